import { COMMAND_VIEW, commandList } from '../agent/commands.js'
import { BaseCommand } from '../cli/base-command.js'
import { outputFlags } from '../cli/flags.js'
import { type Result, shown } from '../render/result.js'

export default class Commands extends BaseCommand<typeof Commands> {
  static summary = 'List the commands of pay: flags, arguments, examples, and whether each changes state'
  static description =
    'Every command, from the same declarations as its help. With --json, an array of one object per command: ' +
    'id (as typed, e.g. "links create"), summary, description, aliases, flags (name, char, type: boolean or ' +
    'option, required, default, negatable, multiple, options, env, description), args (name, required, ' +
    'description), examples, and changes_state (true when it creates, changes or deletes anything: at the ' +
    'service, in the sandbox, or in your profiles). For scripts and AI assistants that drive pay.'

  static examples = [
    '<%= config.bin %> commands',
    '<%= config.bin %> commands --json',
    "<%= config.bin %> commands --jq '.[] | select(.changes_state | not) | .id'",
  ]

  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    return shown.list(commandList(this.config), COMMAND_VIEW)
  }
}
