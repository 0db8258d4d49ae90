import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import { PROFILE_VIEW, profilesList } from '../../work/profiles/profiles.js'

export default class ProfilesList extends BaseCommand<typeof ProfilesList> {
  static summary = 'List profiles'
  static description =
    'Shows every profile with its base URL, its redacted key and where the key is stored: `keychain` ' +
    '(the system keychain), `file` (the config file), `env` (PAY_API_KEY, which overrides every ' +
    "profile's key) or `built-in`. `sandbox` is built in."
  static examples = ['<%= config.bin %> profiles list', '<%= config.bin %> profiles list --json']
  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    const { profiles, problems } = await profilesList(this.context)
    return [shown.list(profiles, PROFILE_VIEW), ...problems.map(shown.notice)]
  }
}
