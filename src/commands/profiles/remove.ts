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

export default class ProfilesRemove extends BaseCommand<typeof ProfilesRemove> {
  static summary = 'Remove a stored profile and its key'
  static examples = ['<%= config.bin %> profiles remove old-live']
  static args = { name: Args.string({ description: 'Profile name.', required: true, ignoreStdin: true }) }

  async run(): Promise<void> {
    const { name } = this.args
    if (name === SANDBOX_PROFILE) throw usageError('The sandbox profile is built in and cannot be removed.')
    const unknown = () => usageError(`There is no profile named "${name}".`, 'See `pay profiles list`.')
    // Checked before the write too, so that an unknown name creates no config directory.
    if (!profileExists(name)) throw unknown()
    const wasCurrent = await updateConfig(configDir(), (config) => {
      if (!storedProfile(config, name)) throw unknown()
      delete config.profiles[name]
      const current = config.current === name
      if (current) config.current = undefined
      return current
    })
    if (this.flags.json) this.out.data({ removed: name, was_current: wasCurrent })
    else this.out.note(`Removed profile "${name}".${wasCurrent ? ' No profile is current now.' : ''}`)
  }
}
