import { BaseCommand } from '../../cli/base-command.js'
import { fishScript } from '../../cli/completion/scripts.js'
import { type Result, shown } from '../../render/result.js'

export default class AutocompleteFish extends BaseCommand<typeof AutocompleteFish> {
  static summary = 'Print the completion script for fish'
  static description =
    "`pay autocomplete bash` and `zsh` set up oclif's completion; fish gets this script of pay's " +
    'own: save it where fish looks for completions. It completes topics, commands, flags and their ' +
    'values, and the ids of the links and subscriptions pay has shown or made for the profile in use ' +
    "(`pay links get <TAB>`), read from pay's cache: no request is sent while completing."

  static examples = [
    '<%= config.bin %> autocomplete fish > ~/.config/fish/completions/<%= config.bin %>.fish',
    '<%= config.bin %> autocomplete fish | source',
  ]

  async run(): Promise<Result> {
    const script = fishScript(this.config.bin)
    return shown.text(script.trimEnd(), { shell: 'fish', script })
  }
}
