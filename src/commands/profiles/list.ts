import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { sandboxProfile } from '../../cli/sandbox-profile.js'
import { profileSummaries } from '../../config/profiles.js'
import { PROFILE_VIEW } from '../../resources/profiles.js'

export default class ProfilesList extends BaseCommand<typeof ProfilesList> {
  static summary = 'List profiles'
  static description = 'Shows every profile with its base URL and redacted key; `sandbox` is built in.'
  static examples = ['<%= config.bin %> profiles list', '<%= config.bin %> profiles list --json']
  static flags = { ...outputFlags }

  async run(): Promise<void> {
    this.out.list(profileSummaries(sandboxProfile()), PROFILE_VIEW)
  }
}
