import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { CHARGE_VIEW, chargesTitle } from '../../work/subs/charges.js'
import { showSubscription } from '../../work/subs/get.js'
import { SUBSCRIPTION_VIEW } from '../../work/subs/view.js'

export default class SubsGet extends BaseCommand<typeof SubsGet> {
  static calls: readonly EndpointName[] = ['getSubscription']
  static summary = 'Show one subscription with its package and its charges'
  static description =
    'Prints the subscription, then its charges, oldest first: date, amount, paid or not, and the id of the ' +
    'payment link that collects it (its payment_links). On a terminal the charges are a table under the ' +
    "record; piped, one line each after the record's key<TAB>value lines: charge<TAB>DATE<TAB>AMOUNT<TAB>" +
    'CURRENCY<TAB>PAID<TAB>LINK_ID. --json prints the record exactly as the service gives it.'

  static examples = [
    '<%= config.bin %> subs get 65b2a0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> subs get 65b2a0c2e4b0a1b2c3d4e5f6 --json',
    "<%= config.bin %> subs get 65b2a0c2e4b0a1b2c3d4e5f6 | grep '^charge'",
  ]

  static args = {
    id: idArg('Subscription id (_id).'),
  }
  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    const { subscription, charges } = await showSubscription({ id: this.args.id }, this.context)
    return [
      shown.record(subscription, SUBSCRIPTION_VIEW),
      shown.related(chargesTitle(charges), charges, CHARGE_VIEW),
    ]
  }
}
