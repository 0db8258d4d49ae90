import { Args } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { type Result, shown } from '../../render/result.js'
import { profilesUse } from '../../work/profiles/profiles.js'

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static summary = 'Make a profile the current one'
  /** It changes the current profile (pay's own state). */
  static changesState = true
  static examples = ['<%= config.bin %> profiles use live', '<%= config.bin %> profiles use sandbox']
  static args = { name: Args.string({ description: 'Profile name.', required: true, ignoreStdin: true }) }

  async run(): Promise<Result> {
    const used = await profilesUse({ name: this.args.name }, this.context)
    return shown.message(`Current profile: ${used.current}`, used)
  }
}
