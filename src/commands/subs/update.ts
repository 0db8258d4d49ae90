import { Args, Flags } from '@oclif/core'
import type { SubscriptionUpdate } from '../../api/client.js'
import { BaseCommand, outputFlags } from '../../base-command.js'
import { usageError } from '../../errors.js'
import { checkFields, rules } from '../../lib/input.js'
import { SUBSCRIPTION_VIEW } from '../../render/views.js'

export default class SubsUpdate extends BaseCommand<typeof SubsUpdate> {
  static summary = "Change a subscription's e-mail, phone or status"
  static description =
    'Only the flags given are sent. To cancel many subscriptions safely use `pay subs cancel`.'
  static examples = [
    '<%= config.bin %> subs update 65b2a0c2e4b0a1b2c3d4e5f6 --email new@example.com',
    '<%= config.bin %> subs update 65b2a0c2e4b0a1b2c3d4e5f6 --status cancel',
  ]

  static args = {
    id: Args.string({ description: 'Subscription id (_id).', required: true, ignoreStdin: true }),
  }
  static flags = {
    email: Flags.string({ description: 'New customer e-mail address.' }),
    phone: Flags.string({ description: 'New customer phone number.' }),
    status: Flags.string({ description: 'New status (the service documents "cancel").' }),
    ...outputFlags,
  }

  async run(): Promise<void> {
    const changes: SubscriptionUpdate = {
      email: this.flags.email,
      phone_no: this.flags.phone,
      status: this.flags.status,
    }
    for (const key of Object.keys(changes) as (keyof SubscriptionUpdate)[]) {
      if (changes[key] === undefined) delete changes[key]
    }
    if (Object.keys(changes).length === 0)
      throw usageError('Nothing to change.', 'Give --email, --phone or --status.')
    checkFields({ email: changes.email }, { email: [rules.email] })
    const { api } = await this.api()
    this.out.record(await api.updateSubscription(this.args.id, changes), SUBSCRIPTION_VIEW)
  }
}
