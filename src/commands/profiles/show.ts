import { Args } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { PROFILE_VIEW } from '../../cli/local/profiles.js'
import { sandboxProfile } from '../../cli/sandbox-profile.js'
import { configDir, readConfig } from '../../config/file.js'
import { profileSummaries } from '../../config/profiles.js'
import { usageError } from '../../errors.js'
import { type Result, shown } from '../../render/result.js'

export default class ProfilesShow extends BaseCommand<typeof ProfilesShow> {
  static summary = 'Show one profile (default: the one in use)'
  static description =
    'Shows the base URL, the redacted key and where the key is stored: `keychain`, `file`, `env` ' +
    "(PAY_API_KEY overrides the profile's key) or `built-in`."
  static examples = ['<%= config.bin %> profiles show', '<%= config.bin %> profiles show live --json']
  static args = { name: Args.string({ description: 'Profile name.', ignoreStdin: true }) }
  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    const name =
      this.args.name || this.flags.profile || process.env.PAY_PROFILE || readConfig(configDir()).current
    if (name === undefined) {
      throw usageError('No profile is selected.', 'Name one, or run `pay login` / `pay profiles use NAME`.')
    }
    const { profiles, problems } = await profileSummaries(sandboxProfile(), {
      only: name,
      keychain: this.keychainOptions(),
    })
    const [profile] = profiles
    if (!profile) throw usageError(`There is no profile named "${name}".`, 'See `pay profiles list`.')
    return [shown.record(profile, PROFILE_VIEW), ...problems.map(shown.notice)]
  }
}
