/**
 * `pay sandbox webhooks deliveries [--link ID] [--state S] [--follow]`: the notifications sent to
 * the business's webhook endpoints (of one link, in one state, when asked), through the running
 * sandbox, else from the local store; --follow needs a running one.
 */
import type { RunContext } from '../../../runtime/context.js'
import { followStopper } from '../../../runtime/stop.js'
import { type DeliveryFilter, loadLocalStore } from '../../../sandbox/index.js'
import type { Rec } from '../../../values.js'
import { sandboxDeliveries } from '../controls.js'
import { placeOf, runningSandbox, type SandboxContext } from '../where.js'
import { DELIVERY_VIEW, deliveriesWord, deliveryShow } from './webhook-views.js'

/** The deliveries, newest last, and where they were read (for the message), and the filter asked. */
export interface Deliveries {
  deliveries: Rec[]
  place: string
  filter: DeliveryFilter
}

/** Which deliveries, and how many: the newest `limit` of link `link`, in state `state`, each when given. */
export type DeliveriesOptions = { limit?: number } & DeliveryFilter

/** The query of the sandbox's deliveries endpoint for `options`. */
const queryOf = ({ limit, link, state }: DeliveriesOptions) => ({ limit, payment_link_id: link, state })

/** The newest `limit` deliveries (1,000 at most from the local store) that the filter keeps, newest last. */
export async function listDeliveries(
  options: DeliveriesOptions,
  context: SandboxContext,
): Promise<Deliveries> {
  const { limit, link, state } = options
  const where = await context.sandboxTarget()
  const deliveries = where.server
    ? await sandboxDeliveries(where.api, queryOf(options))
    : (await loadLocalStore()).deliveriesIn(where.dir, where.apiKey, limit ?? 1000, { link, state })
  return { deliveries, place: placeOf(where, true), filter: { link, state } }
}

/** How many of the newest deliveries each look of --follow reads. */
const FOLLOWED = 100
/** The pause between two looks of --follow. */
const FOLLOW_PAUSE_MS = 500

/**
 * `deliveries --follow`: the newest `limit` deliveries, then each new one and each change of one
 * (an attempt, its state) as it comes, until Ctrl-C (exit 130); with a link or a state, only those
 * of that link, and each as it comes into that state. It goes on printing: each is written through
 * the run's output as it comes (one JSON line each under --json).
 */
export async function followDeliveries(
  options: DeliveriesOptions,
  context: Pick<RunContext, 'sandboxTarget' | 'io' | 'out'>,
): Promise<never> {
  const { out, io } = context
  const where = await context.sandboxTarget()
  const { api } = runningSandbox(where, 'sandbox webhooks deliveries --follow')
  const look = () => sandboxDeliveries(api, queryOf({ ...options, limit: FOLLOWED }))
  const show = deliveryShow(io)
  const seen = new Map<string, string>()
  const stateOf = (delivery: Rec) =>
    `${delivery.state} ${Array.isArray(delivery.attempts) ? delivery.attempts.length : 0}`
  const { stopped, stopListening } = followStopper(io, out)
  try {
    const first = await Promise.race([look(), stopped])
    for (const delivery of first) seen.set(String(delivery._id), stateOf(delivery))
    out.entries(options.limit === undefined ? first : first.slice(-options.limit), DELIVERY_VIEW, show, true)
    out.note(`Following the ${deliveriesWord(options)} of ${placeOf(where)}; Ctrl-C stops.`)
    for (;;) {
      await Promise.race([new Promise((resolve) => setTimeout(resolve, FOLLOW_PAUSE_MS)), stopped])
      const changed = (await Promise.race([look(), stopped])).filter((delivery) => {
        const now = stateOf(delivery)
        const before = seen.get(String(delivery._id))
        seen.set(String(delivery._id), now)
        return before !== now
      })
      out.entries(changed, DELIVERY_VIEW, show, true)
    }
  } finally {
    stopListening()
  }
}
