import { Args } from '@oclif/core'
import { BaseCommand } from '../../cli/base-command.js'
import { type Result, shown } from '../../render/result.js'
import { profilesRemove } from '../../work/profiles/profiles.js'

export default class ProfilesRemove extends BaseCommand<typeof ProfilesRemove> {
  static summary = 'Remove a stored profile and its key'
  /** It removes a profile and its key (pay's own state). */
  static changesState = true
  static description =
    'Removes the profile from the config file and, when its key is in the system keychain, deletes it ' +
    'there too. When the keychain cannot be reached, the profile is removed all the same and pay says ' +
    'which keychain entry is left.'
  static examples = ['<%= config.bin %> profiles remove old-live']
  static args = { name: Args.string({ description: 'Profile name.', required: true, ignoreStdin: true }) }

  async run(): Promise<Result> {
    const removed = await profilesRemove({ name: this.args.name }, this.context)
    return [
      removed.warning ? shown.warn(removed.warning) : undefined,
      shown.message(removed.said, removed.summary),
    ]
  }
}
