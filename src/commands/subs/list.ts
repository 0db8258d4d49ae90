import { BaseCommand } from '../../cli/base-command.js'
import { listFlags, optionFlags, outputFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { SORT_FLAG } from '../../work/common/sort.js'
import { SUBSCRIPTION_FILTERS } from '../../work/subs/filters.js'
import { listSubscriptions } from '../../work/subs/list.js'

export default class SubsList extends BaseCommand<typeof SubsList> {
  static calls: readonly EndpointName[] = ['listSubscriptions']
  static summary = 'List subscriptions'
  static description =
    'Lists the subscriptions of the business. Without filters it reads the first page (--all: ' +
    'every page); filters search every page. On a terminal at most 30 are shown unless --limit ' +
    'says otherwise. --unpaid and --overdue judge each subscription by its charges (payment_links ' +
    "entries: paid, created_at); --overdue measures their age by the service's clock. Subscriptions " +
    'whose charges lack those fields are not listed, and stderr says how many. Each one listed ' +
    'shows its count of unpaid charges (UNPAID) and their sum (OWED; JSON: unpaid_charges, ' +
    'amount_owed {amount, currency}). --sort orders every ' +
    'match before --limit takes the first; --format csv writes a spreadsheet.'

  static aliases = ['subs:ls']
  static examples = [
    '<%= config.bin %> subs list',
    '<%= config.bin %> subs list --status created -q',
    '<%= config.bin %> subs list --status cancelled --email jane@example.com --json',
    '<%= config.bin %> subs list --unpaid',
    '<%= config.bin %> subs list --unpaid --sort -owed --format csv > owed.csv',
    '<%= config.bin %> subs list --overdue 30d --status created -q',
    '<%= config.bin %> subs list --created-after 30d --sort -created_at --format csv > new-subs.csv',
  ]

  static flags = {
    ...optionFlags(SUBSCRIPTION_FILTERS),
    ...SORT_FLAG,
    ...listFlags,
    ...outputFlags,
  }

  async run(): Promise<Result> {
    const found = await listSubscriptions(this.flags, this.context)
    return [
      shown.list(found.batches, found.view, found.outcome),
      shown.later(() => found.warnings().map(shown.warn)),
    ]
  }
}
