import type { PayApi } from '../../api/client.js'
import { actOnIds, type ByIdJob } from '../../bulk/by-id.js'
import { type IdFlags, idInput } from '../../bulk/ids.js'
import { PayError } from '../../errors.js'
import type { BulkOutcome } from '../../render/bulk-rows.js'
import { type RunContext, workflowOf } from '../../runtime/context.js'
import { isRecord, plain, type Rec } from '../../values.js'
import { CANCELLED_STATUS, isCancelled } from './fields.js'
import { describeSubscription, SUBSCRIPTION_MONEY, SUBSCRIPTION_VIEW } from './view.js'

/** Cancels one subscription: already cancelled is done; otherwise PUT status=cancel. */
async function cancelOne(api: PayApi, id: string): Promise<{ status: string; record: Rec }> {
  // Read again even when the plan read it: it may have been cancelled since.
  const current = await api.send('getSubscription', { id: id })
  if (isCancelled(current)) return { status: 'already_cancelled', record: current }
  let updated: Rec
  try {
    updated = await api.send('updateSubscription', { id, body: { status: CANCELLED_STATUS } })
  } catch (error) {
    // The service may have acted on the PUT and only its answer was lost (5xx, reset): report
    // what the service now holds rather than "failed" for a subscription that is cancelled (unless
    // no later request can tell: the sandbox is no longer the user's).
    if (!(error instanceof PayError) || error.kind !== 'unavailable' || error.ends) throw error
    const after = await api.send('getSubscription', { id: id }).catch(() => undefined)
    if (after && isCancelled(after)) return { status: 'cancelled', record: after }
    throw error
  }
  if (!isCancelled(updated)) {
    throw new PayError(`The service answered with status "${plain(updated.status)}", not "cancel".`, {
      kind: 'unavailable',
    })
  }
  return { status: 'cancelled', record: updated }
}

/**
 * `pay subs cancel`: each subscription set to status "cancel" (one already cancelled is done,
 * not a failure), in the bulk run of by-id.ts.
 */
export function cancelSubscriptions(api: PayApi, job: ByIdJob): Promise<BulkOutcome> {
  return actOnIds(
    {
      command: 'pay subs cancel',
      action: 'cancel',
      done: 'cancelled',
      acts: 'cancellations',
      view: SUBSCRIPTION_VIEW,
      doneStatuses: ['cancelled', 'already_cancelled'],
      lookUp: {
        fetch: (id) => api.send('getSubscription', { id: id }),
        describe: describeSubscription,
        alreadyDone: (subscription) => (isCancelled(subscription) ? 'already_cancelled' : undefined),
        money: SUBSCRIPTION_MONEY,
      },
      ...SUBSCRIPTION_REPORT,
      work: (id) => cancelOne(api, id),
      // A cancel a killed run sent may have been done: the journal says what the resume found.
      found: (result) => {
        if (result.status === 'already_cancelled') api.found('updateSubscription', result.id, 'cancelled')
      },
    },
    job,
  )
}

/** What an id report says of a subscription: its customer, package, and the package's price. */
export const SUBSCRIPTION_REPORT = {
  columns: ['email', 'package', 'amount', 'currency'],
  describe: (subscription: Rec) => {
    const pkg = isRecord(subscription.package) ? subscription.package : {}
    return {
      email: plain(subscription.email),
      package: plain(pkg.name),
      amount: plain(pkg.amount),
      currency: plain(pkg.currency),
    }
  },
}

/** What the bulk commands by id take: the ids (arguments; --from-file, -), the report, the concurrency. */
export type ByIdOptions = IdFlags & { ids: string[]; concurrency: number }

/** `subs cancel`: ids from arguments, a file or stdin, each subscription set to status "cancel". */
export async function cancelMany(options: ByIdOptions, context: RunContext): Promise<BulkOutcome> {
  const input = await idInput(options.ids, options, context.io, 'subscription')
  const { api, target } = await context.api()
  return cancelSubscriptions(api, {
    ...input,
    concurrency: options.concurrency,
    ...workflowOf(context, target),
  })
}
