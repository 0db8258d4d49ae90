import { Args } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { sandboxProfile } from '../../cli/sandbox/profile.js'
import { useProfile } from '../../config/profiles.js'
import { type Result, shown } from '../../render/result.js'

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static summary = 'Make a profile the current one'
  static examples = ['<%= config.bin %> profiles use live', '<%= config.bin %> profiles use sandbox']
  static args = { name: Args.string({ description: 'Profile name.', required: true, ignoreStdin: true }) }

  async run(): Promise<Result> {
    const { name } = this.args
    await useProfile(name, sandboxProfile())
    return shown.message(`Current profile: ${name}`, { current: name })
  }
}
