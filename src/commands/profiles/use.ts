import { Args } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import {
  configDir,
  profileExists,
  SANDBOX_PROFILE,
  storedProfile,
  updateConfig,
} from '../../config/profiles.js'
import { usageError } from '../../errors.js'

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static summary = 'Make a profile the current one'
  static examples = ['<%= config.bin %> profiles use live', '<%= config.bin %> profiles use sandbox']
  static args = { name: Args.string({ description: 'Profile name.', required: true, ignoreStdin: true }) }

  async run(): Promise<void> {
    const { name } = this.args
    const unknown = () => usageError(`There is no profile named "${name}".`, 'See `pay profiles list`.')
    // Checked before the write too, so that an unknown name creates no config directory.
    if (!profileExists(name)) throw unknown()
    await updateConfig(configDir(), (config) => {
      // Again under the lock: a `profiles remove` may have run in between.
      if (name !== SANDBOX_PROFILE && !storedProfile(config, name)) throw unknown()
      config.current = name
    })
    if (this.flags.json) this.out.data({ current: name })
    else this.out.note(`Current profile: ${name}`)
  }
}
