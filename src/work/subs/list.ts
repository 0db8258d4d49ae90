import { usageError } from '../../errors.js'
import type { View } from '../../render/views.js'
import type { RunContext } from '../../runtime/context.js'
import type { Rec } from '../../values.js'
import { type RecordWalk, walkList } from '../common/list-walk.js'
import { sortOrder } from '../common/sort.js'
import { chargeFilter } from './charges.js'
import { type SubscriptionFilters, subscriptionFilter } from './filters.js'
import { OWING_VIEW, SUBSCRIPTION_VIEW } from './view.js'

/**
 * The walk of `subs list`, the view to show it with (with --unpaid or --overdue, OWING_VIEW: what
 * each owes), and, once it is spent, what could not be judged by its charges.
 */
export interface SubscriptionWalk extends RecordWalk {
  view: View
  warnings(): string[]
}

/** The fields OWING_VIEW adds. */
const OWED = /^(unpaid_charges|amount_owed\.)/

/**
 * `subs list`: filtered by fields, by when they were created and by charges (unpaid, overdue),
 * sorted by `sort` (`-FIELD`: descending), as much as the list scope says.
 */
export async function listSubscriptions(
  options: SubscriptionFilters & { sort?: string },
  context: RunContext,
): Promise<SubscriptionWalk> {
  const fields = subscriptionFilter(options, context.now())
  const charges = chargeFilter(options)
  const view = charges ? OWING_VIEW : SUBSCRIPTION_VIEW
  // What each owes is known only where charges are judged: say so rather than "unknown field".
  if (!charges && options.sort !== undefined && sortOrder(options.sort, OWING_VIEW)?.field.match(OWED)) {
    throw usageError(
      `--sort ${options.sort}: what each subscription owes is counted with --unpaid or --overdue only.`,
      `Add --unpaid: pay subs list --unpaid --sort ${options.sort}`,
    )
  }
  const order = sortOrder(options.sort, view)
  const { api } = await context.api()
  const match = charges
    ? (record: Rec) => (fields === undefined || fields(record)) && charges.match(record)
    : fields
  const pages = charges ? charges.watch(api.pages('listSubscriptions')) : api.pages('listSubscriptions')
  return {
    ...walkList(pages, match, order, context.listScope),
    view,
    warnings: () => charges?.warnings() ?? [],
  }
}
