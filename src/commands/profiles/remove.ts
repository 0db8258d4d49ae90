import { Args } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { sandboxProfile } from '../../cli/sandbox-profile.js'
import { removeProfile } from '../../config/profiles.js'

export default class ProfilesRemove extends BaseCommand<typeof ProfilesRemove> {
  static summary = 'Remove a stored profile and its key'
  static examples = ['<%= config.bin %> profiles remove old-live']
  static args = { name: Args.string({ description: 'Profile name.', required: true, ignoreStdin: true }) }

  async run(): Promise<void> {
    const { name } = this.args
    const wasCurrent = await removeProfile(name, sandboxProfile())
    if (this.flags.json) this.out.data({ removed: name, was_current: wasCurrent })
    else this.out.note(`Removed profile "${name}".${wasCurrent ? ' No profile is current now.' : ''}`)
  }
}
