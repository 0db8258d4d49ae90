/**
 * `pay sandbox webhooks deliveries [--follow]`: the notifications sent to the business's webhook
 * endpoints, through the running sandbox, else from the local store; --follow needs a running one.
 */
import type { RunContext } from '../../../runtime/context.js'
import { followStopper } from '../../../runtime/stop.js'
import { loadLocalStore } from '../../../sandbox/index.js'
import type { Rec } from '../../../values.js'
import { sandboxDeliveries } from '../controls.js'
import { placeOf, runningSandbox, type SandboxContext } from '../where.js'
import { DELIVERY_VIEW, deliveryShow } from './webhook-views.js'

/** The deliveries, newest last, and where they were read (for the message). */
export interface Deliveries {
  deliveries: Rec[]
  place: string
}

/** The newest `limit` deliveries (1,000 at most from the local store), newest last. */
export async function listDeliveries(
  options: { limit?: number },
  context: SandboxContext,
): Promise<Deliveries> {
  const { limit } = options
  const where = await context.sandboxTarget()
  const deliveries = where.server
    ? await sandboxDeliveries(where.api, { limit })
    : (await loadLocalStore()).deliveriesIn(where.dir, where.apiKey, limit ?? 1000)
  return { deliveries, place: placeOf(where, true) }
}

/** How many of the newest deliveries each look of --follow reads. */
const FOLLOWED = 100
/** The pause between two looks of --follow. */
const FOLLOW_PAUSE_MS = 500

/**
 * `deliveries --follow`: the newest `limit` deliveries, then each new one and each change of one
 * (an attempt, its state) as it comes, until Ctrl-C (exit 130). It goes on printing: each is
 * written through the run's output as it comes (one JSON line each under --json).
 */
export async function followDeliveries(
  options: { limit?: number },
  context: Pick<RunContext, 'sandboxTarget' | 'io' | 'out'>,
): Promise<never> {
  const { out, io } = context
  const where = await context.sandboxTarget()
  const { api } = runningSandbox(where, 'sandbox webhooks deliveries --follow')
  const look = () => sandboxDeliveries(api, { limit: FOLLOWED })
  const show = deliveryShow(io)
  const seen = new Map<string, string>()
  const stateOf = (delivery: Rec) =>
    `${delivery.state} ${Array.isArray(delivery.attempts) ? delivery.attempts.length : 0}`
  const { stopped, stopListening } = followStopper(io, out)
  try {
    const first = await Promise.race([look(), stopped])
    for (const delivery of first) seen.set(String(delivery._id), stateOf(delivery))
    out.entries(options.limit === undefined ? first : first.slice(-options.limit), DELIVERY_VIEW, show, true)
    out.note(`Following the deliveries of ${placeOf(where)}; Ctrl-C stops.`)
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
