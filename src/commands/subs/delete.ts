import { Args } from '@oclif/core'
import { deleteMany } from '../../bulk/delete.js'
import { idInput } from '../../bulk/ids.js'
import { BaseCommand } from '../../cli/base-command.js'
import { byIdFlags } from '../../cli/flags.js'
import { describeSubscription, SUBSCRIPTION_VIEW } from '../../resources/subscriptions.js'

export default class SubsDelete extends BaseCommand<typeof SubsDelete> {
  static summary = 'Delete subscriptions (cannot be undone)'
  static description =
    'Deletes the subscriptions outright. To stop billing but keep the record, use `pay subs cancel`. ' +
    'Shows the profile, base URL and ids and asks first; --yes skips the question; without a ' +
    'terminal and without --yes nothing is sent (exit 2).'

  static examples = [
    '<%= config.bin %> subs delete 65b2a0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> subs delete 65b2a0c2e4b0a1b2c3d4e5f6 65b2a0c2e4b0a1b2c3d4e5f7 --yes --json',
  ]

  static aliases = ['subs:rm']
  static strict = false
  static args = {
    id: Args.string({ description: 'Subscription id(s); - reads ids from stdin.', ignoreStdin: true }),
  }
  static flags = byIdFlags('deleted')

  async run(): Promise<void> {
    const input = await idInput(this.positionals, this.flags, this.io, 'subscription')
    const { api, target } = await this.api()
    const deletion = {
      command: 'pay subs delete',
      view: SUBSCRIPTION_VIEW,
      irreversible: true,
      remove: (id: string) => api.deleteSubscription(id),
      lookUp: { fetch: (id: string) => api.getSubscription(id), describe: describeSubscription },
    }
    await deleteMany(deletion, { ...input, concurrency: this.flags.concurrency, ...this.workflow(target) })
  }
}
