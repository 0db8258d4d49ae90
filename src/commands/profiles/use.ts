import { Args } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { configDir, profileExists, updateConfig } from '../../config/profiles.js'
import { usageError } from '../../errors.js'

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static summary = 'Make a profile the current one'
  static examples = ['<%= config.bin %> profiles use live', '<%= config.bin %> profiles use sandbox']
  static args = { name: Args.string({ description: 'Profile name.', required: true, ignoreStdin: true }) }

  async run(): Promise<void> {
    const { name } = this.args
    if (!profileExists(name)) {
      throw usageError(`There is no profile named "${name}".`, 'See `pay profiles list`.')
    }
    await updateConfig(configDir(), (config) => {
      config.current = name
    })
    if (this.flags.json) this.out.data({ current: name })
    else this.out.note(`Current profile: ${name}`)
  }
}
