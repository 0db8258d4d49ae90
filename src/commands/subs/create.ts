import { Flags } from '@oclif/core'
import type { SubscriptionInput } from '../../api/client.js'
import { BaseCommand, outputFlags } from '../../base-command.js'
import { askForMissing, checkFields, rules } from '../../lib/input.js'
import { SUBSCRIPTION_VIEW } from '../../render/views.js'

export default class SubsCreate extends BaseCommand<typeof SubsCreate> {
  static summary = 'Subscribe a customer to a package'
  static description =
    'Creates a subscription (status "created") and prints it with its package. On a terminal, ' +
    'missing --package-id and --email are asked for. `pay sandbox start` lists the sandbox packages.'

  static examples = [
    '<%= config.bin %> subs create --package-id 6a1b2c3d4e5f6a7b8c9d0e1f --email jane@example.com',
    '<%= config.bin %> subs create --package-id 6a1b2c3d4e5f6a7b8c9d0e1f --email jane@example.com --phone "+44 20 7946 0000" --json',
  ]

  static flags = {
    'package-id': Flags.string({ description: 'Package to subscribe to (_id of the package).' }),
    email: Flags.string({ description: 'Customer e-mail address.' }),
    phone: Flags.string({ description: 'Customer phone number.' }),
    ...outputFlags,
  }

  async run(): Promise<void> {
    const fields: Record<string, string | undefined> = {
      package_id: this.flags['package-id'],
      email: this.flags.email,
      phone_no: this.flags.phone,
    }
    checkFields(fields, { email: [rules.email] })
    await askForMissing(
      fields,
      [
        { field: 'package_id', message: 'Package id' },
        { field: 'email', message: 'Customer e-mail', rules: [rules.email] },
      ],
      this.interactive,
    )
    if (fields.phone_no === undefined) delete fields.phone_no
    const { api } = await this.api()
    this.out.record(await api.createSubscription(fields as unknown as SubscriptionInput), SUBSCRIPTION_VIEW)
  }
}
