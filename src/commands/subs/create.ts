import { csvReportHelp } from '../../bulk/help.js'
import { BaseCommand } from '../../cli/base-command.js'
import { createFlags, fieldFlags, fromCsvFlags, outputFlags } from '../../cli/flags.js'
import { usageError } from '../../errors.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { createSubscription } from '../../work/subs/create.js'
import { SUBSCRIPTION_FIELDS } from '../../work/subs/fields.js'
import { createSubscriptionsFromCsvFile } from '../../work/subs/from-csv.js'
import { SUBSCRIPTION_VIEW } from '../../work/subs/view.js'

export default class SubsCreate extends BaseCommand<typeof SubsCreate> {
  static calls: readonly EndpointName[] = ['createSubscription']
  static summary = 'Subscribe a customer to a package'
  static description =
    'Creates a subscription (status "created") and prints it with its package. On a terminal, ' +
    'missing --package-id and --email are asked for; with the sandbox profile the package is picked ' +
    'from its seeded packages. `pay sandbox packages` lists them (ids to give --package-id). ' +
    '--from-csv creates one subscription per row of a CSV file (columns package_id or package-id, email, ' +
    'phone): every row is checked before anything is sent, the plan is confirmed, each row is sent with ' +
    'its own Idempotency-Key, and --report/--resume make a run that stopped half-way safe to carry on (no ' +
    'row is ever created twice). Exit 3 when rows are invalid (nothing sent), 7 when some rows were not ' +
    'created or stay unknown.' +
    csvReportHelp('_id of the subscription made', 'email, package_id and phone_no')

  static examples = [
    '<%= config.bin %> subs create --package-id 6a1b2c3d4e5f6a7b8c9d0e1f --email jane@example.com',
    '<%= config.bin %> subs create --package-id 6a1b2c3d4e5f6a7b8c9d0e1f --email jane@example.com --phone "+44 20 7946 0000" --json',
    '<%= config.bin %> subs create --from-csv customers.csv --report subscribed.csv',
    '<%= config.bin %> subs create --from-csv customers.csv --resume subscribed.csv',
  ]

  static flags = {
    ...fieldFlags(SUBSCRIPTION_FIELDS),
    ...createFlags,
    ...fromCsvFlags('subscription', 'package-id,email,phone'),
    ...outputFlags,
  }

  async run(): Promise<Result> {
    const { flags } = this
    const fields = SUBSCRIPTION_FIELDS.fromFlags(flags)
    if (flags['from-csv'] !== undefined) {
      if (Object.keys(fields).length > 0 || flags['idempotency-key']) {
        throw usageError('--from-csv takes the fields from the file: give no field flags with it.')
      }
      return shown.bulk(
        await createSubscriptionsFromCsvFile({ ...flags, source: flags['from-csv'] }, this.context),
      )
    }
    const subscription = await createSubscription(
      { fields, idempotencyKey: flags['idempotency-key'] },
      this.context,
    )
    return shown.record(subscription, SUBSCRIPTION_VIEW)
  }
}
