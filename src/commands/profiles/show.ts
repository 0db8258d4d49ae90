import { Args } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import { PROFILE_VIEW, profilesShow } from '../../work/profiles/profiles.js'

export default class ProfilesShow extends BaseCommand<typeof ProfilesShow> {
  static summary = 'Show one profile (default: the one in use)'
  static description =
    'Shows the base URL, the redacted key and where the key is stored: `keychain`, `file`, `env` ' +
    "(PAY_API_KEY overrides the profile's key) or `built-in`."
  static examples = ['<%= config.bin %> profiles show', '<%= config.bin %> profiles show live --json']
  static args = { name: Args.string({ description: 'Profile name.', ignoreStdin: true }) }
  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    const { profile, problems } = await profilesShow({ name: this.args.name }, this.context)
    return [shown.record(profile, PROFILE_VIEW), ...problems.map(shown.notice)]
  }
}
