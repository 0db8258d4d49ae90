import { Args } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { sandboxProfile } from '../../cli/sandbox-profile.js'
import { configDir, readConfig } from '../../config/file.js'
import { profileSummaries } from '../../config/profiles.js'
import { usageError } from '../../errors.js'
import { PROFILE_VIEW } from '../../resources/profiles.js'

export default class ProfilesShow extends BaseCommand<typeof ProfilesShow> {
  static summary = 'Show one profile (default: the one in use)'
  static examples = ['<%= config.bin %> profiles show', '<%= config.bin %> profiles show live --json']
  static args = { name: Args.string({ description: 'Profile name.', ignoreStdin: true }) }
  static flags = { ...outputFlags }

  async run(): Promise<void> {
    const name =
      this.args.name || this.flags.profile || process.env.PAY_PROFILE || readConfig(configDir()).current
    if (name === undefined) {
      throw usageError('No profile is selected.', 'Name one, or run `pay login` / `pay profiles use NAME`.')
    }
    const profile = profileSummaries(sandboxProfile()).find((candidate) => candidate.name === name)
    if (!profile) throw usageError(`There is no profile named "${name}".`, 'See `pay profiles list`.')
    const keySource = process.env.PAY_API_KEY ? 'PAY_API_KEY (overrides the profile)' : 'profile'
    this.out.record({ ...profile, key_source: keySource }, PROFILE_VIEW)
  }
}
