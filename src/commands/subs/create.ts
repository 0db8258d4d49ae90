import { BaseCommand } from '../../cli/base-command.js'
import { createFlags, fieldFlags, outputFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { createSubscription } from '../../work/subs/create.js'
import { SUBSCRIPTION_FIELDS } from '../../work/subs/fields.js'
import { SUBSCRIPTION_VIEW } from '../../work/subs/view.js'

export default class SubsCreate extends BaseCommand<typeof SubsCreate> {
  static calls: readonly EndpointName[] = ['createSubscription']
  static summary = 'Subscribe a customer to a package'
  static description =
    'Creates a subscription (status "created") and prints it with its package. On a terminal, ' +
    'missing --package-id and --email are asked for; with the sandbox profile the package is picked ' +
    'from its seeded packages. `pay sandbox packages` lists them (ids to give --package-id).'

  static examples = [
    '<%= config.bin %> subs create --package-id 6a1b2c3d4e5f6a7b8c9d0e1f --email jane@example.com',
    '<%= config.bin %> subs create --package-id 6a1b2c3d4e5f6a7b8c9d0e1f --email jane@example.com --phone "+44 20 7946 0000" --json',
  ]

  static flags = { ...fieldFlags(SUBSCRIPTION_FIELDS), ...createFlags, ...outputFlags }

  async run(): Promise<Result> {
    const fields = SUBSCRIPTION_FIELDS.fromFlags(this.flags)
    const subscription = await createSubscription(
      { fields, idempotencyKey: this.flags['idempotency-key'] },
      this.context,
    )
    return shown.record(subscription, SUBSCRIPTION_VIEW)
  }
}
