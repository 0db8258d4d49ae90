import { Args } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { sandboxProfile } from '../../cli/sandbox/profile.js'
import { removeProfile } from '../../config/profiles.js'
import { type Result, shown } from '../../render/result.js'

export default class ProfilesRemove extends BaseCommand<typeof ProfilesRemove> {
  static summary = 'Remove a stored profile and its key'
  static description =
    'Removes the profile from the config file and, when its key is in the system keychain, deletes it ' +
    'there too. When the keychain cannot be reached, the profile is removed all the same and pay says ' +
    'which keychain entry is left.'
  static examples = ['<%= config.bin %> profiles remove old-live']
  static args = { name: Args.string({ description: 'Profile name.', required: true, ignoreStdin: true }) }

  async run(): Promise<Result> {
    const { name } = this.args
    const removal = await removeProfile(name, sandboxProfile(), this.keychainOptions())
    const { keychain } = removal
    const left =
      keychain && !keychain.deleted && 'reason' in keychain
        ? shown.warn(
            `The key of profile "${name}" is still in the system keychain, which ${keychain.reason}; ` +
              `delete it there (service "pay", account "${keychain.account}").`,
          )
        : undefined
    let from = ''
    if (keychain?.deleted) from = ' Its key was deleted from the system keychain.'
    else if (keychain && 'gone' in keychain) from = ' Its key was no longer in the system keychain.'
    const summary = {
      removed: name,
      was_current: removal.wasCurrent,
      key_storage: removal.keyStorage,
      key_deleted: keychain === undefined || keychain.deleted || 'gone' in keychain,
    }
    const said = `Removed profile "${name}".${from}${removal.wasCurrent ? ' No profile is current now.' : ''}`
    return [left, shown.message(said, summary)]
  }
}
