/**
 * The work of `pay sandbox webhooks add|list|remove|deliveries|resend`: each through the running
 * sandbox that proved it is the user's (its API, the key's business), else on the local store of
 * $PAY_SANDBOX_DIR, as `sandbox pay` and `sandbox seed` do. A resend with no server makes its
 * first attempt before the command ends and says what came of it.
 */

import { PayError, validationError } from '../../../errors.js'
import type { Output } from '../../../render/output.js'
import { type Result, shown } from '../../../render/result.js'
import type { RunContext, SandboxTarget } from '../../../runtime/context.js'
import type { IO } from '../../../runtime/io.js'
import { followStopper } from '../../../runtime/stop.js'
import { loadLocalStore } from '../../../sandbox/index.js'
import type { Rec } from '../../../values.js'
import {
  addSandboxWebhook,
  removeSandboxWebhook,
  resendSandboxDelivery,
  sandboxDeliveries,
  sandboxWebhooks,
} from '../controls.js'
import { runningSandbox } from '../where.js'
import {
  attemptedText,
  DELIVERY_VIEW,
  deliveryText,
  deliveryTsv,
  ENDPOINT_VIEW,
  SIGNATURE_VIEW,
} from './webhook-views.js'

type WebhooksContext = Pick<RunContext, 'sandboxTarget' | 'listScope' | 'io' | 'out'>

/** Where it was done, for the note: through the server, or in the local store (and why). */
const placeOf = (where: SandboxTarget) =>
  where.server
    ? `the sandbox at ${where.target.baseUrl}`
    : `the local sandbox store ${where.dir} (no sandbox is running at ${where.baseUrl})`

/** `webhooks add URL`: the endpoint (the one there already for that URL). */
export async function addWebhook({ url }: { url: string }, context: WebhooksContext): Promise<Result> {
  const where = await context.sandboxTarget()
  let endpoint: Rec
  if (where.server) endpoint = await addSandboxWebhook(where.api, { url })
  else {
    const { addWebhookIn } = await loadLocalStore()
    const added = addWebhookIn(where.dir, where.apiKey, { url })
    if (!added.ok) throw validationError(added.errors)
    endpoint = added.value
  }
  const said = `Payment attempts are notified to ${url} (endpoint ${endpoint._id}) by ${placeOf(where)}.`
  return [shown.note(said), shown.record(endpoint, ENDPOINT_VIEW)]
}

/** `webhooks list`: the signature key, and the endpoints under it; `{signature_key, endpoints}` under --json. */
export async function listWebhooks(context: WebhooksContext): Promise<Result> {
  const where = await context.sandboxTarget()
  const webhooks = where.server
    ? await sandboxWebhooks(where.api)
    : (await loadLocalStore()).webhooksIn(where.dir, where.apiKey)
  const { signature_key, endpoints } = webhooks
  return [
    shown.record({ signature_key }, SIGNATURE_VIEW, { signature_key, endpoints }),
    shown.related('Endpoints', endpoints, ENDPOINT_VIEW),
  ]
}

/** `webhooks remove ID`: the endpoint removed (its pending deliveries fail, saying so). */
export async function removeWebhook({ id }: { id: string }, context: WebhooksContext): Promise<Result> {
  const where = await context.sandboxTarget()
  let removed: Rec | undefined
  if (where.server)
    removed = await removeSandboxWebhook(where.api, id).catch(notFound('webhook endpoint', id))
  else removed = (await loadLocalStore()).removeWebhookIn(where.dir, where.apiKey, id)
  if (!removed) throw noSuch('webhook endpoint', id)
  return [
    shown.note(`Removed endpoint ${id} (${removed.url}) from ${placeOf(where)}.`),
    shown.record(removed, ENDPOINT_VIEW),
  ]
}

/** `webhooks deliveries [--follow]`: the newest deliveries, newest last; with --follow, each change as it comes. */
export async function listDeliveries(
  { follow }: { follow: boolean },
  context: WebhooksContext,
): Promise<Result> {
  const where = await context.sandboxTarget()
  const { limit } = context.listScope
  const show = { text: (r: Rec) => deliveryText(r, context.io.colour), tsv: deliveryTsv }
  if (follow) {
    const { api, target } = runningSandbox(where, 'sandbox webhooks deliveries --follow')
    await followDeliveries(() => sandboxDeliveries(api, { limit: FOLLOWED }), {
      ...context,
      limit,
      baseUrl: target.baseUrl,
    })
  }
  const deliveries = where.server
    ? await sandboxDeliveries(where.api, { limit })
    : (await loadLocalStore()).deliveriesIn(where.dir, where.apiKey, limit ?? 1000)
  return [
    { kind: 'entries', records: deliveries, view: DELIVERY_VIEW, show },
    deliveries.length === 0 ? shown.note(`No deliveries yet in ${placeOf(where)}.`) : undefined,
  ]
}

/** `webhooks resend ID`: the delivery due again; with no server, its first attempt made and said. */
export async function resendDelivery({ id }: { id: string }, context: WebhooksContext): Promise<Result> {
  const where = await context.sandboxTarget()
  if (where.server) {
    const delivery = await resendSandboxDelivery(where.api, id).catch(notFound('delivery', id))
    return [
      shown.note(`Sending delivery ${id} again through ${placeOf(where)}.`),
      shown.record(delivery, DELIVERY_VIEW),
    ]
  }
  const { result, attempted } = await (await loadLocalStore()).resendIn(where.dir, where.apiKey, id)
  if (result === undefined) throw noSuch('delivery', id)
  if (result === 'busy') {
    throw new PayError(`Delivery ${id} is being attempted by a sandbox on ${where.dir} now.`, {
      kind: 'general',
      hint: 'Resend it once that attempt has ended.',
    })
  }
  return [...attemptedText(attempted, where.dir).map(shown.notice), shown.record(result, DELIVERY_VIEW)]
}

const noSuch = (noun: string, id: string) =>
  new PayError(`No ${noun} ${id} in the sandbox.`, { kind: 'not_found' })

/** A 404 said with what was looked for; other errors as they are. */
const notFound = (noun: string, id: string) => (error: unknown) => {
  throw error instanceof PayError && error.kind === 'not_found' ? noSuch(noun, id) : error
}

/** How many of the newest deliveries each look of --follow reads. */
const FOLLOWED = 100
/** The pause between two looks of --follow. */
const FOLLOW_PAUSE_MS = 500

/**
 * Shows the newest `limit` deliveries, then each new one and each change of one (an attempt, its
 * state) as it comes, until Ctrl-C (exit 130); one JSON line each under --json.
 */
async function followDeliveries(
  look: () => Promise<Rec[]>,
  options: { out: Output; io: IO; limit?: number; baseUrl: string },
): Promise<never> {
  const { out, io } = options
  const show = { text: (r: Rec) => deliveryText(r, io.colour), tsv: deliveryTsv }
  const seen = new Map<string, string>()
  const stateOf = (delivery: Rec) =>
    `${delivery.state} ${Array.isArray(delivery.attempts) ? delivery.attempts.length : 0}`
  const { stopped, stopListening } = followStopper(io, out)
  try {
    const first = await Promise.race([look(), stopped])
    for (const delivery of first) seen.set(String(delivery._id), stateOf(delivery))
    out.entries(options.limit === undefined ? first : first.slice(-options.limit), DELIVERY_VIEW, show, true)
    out.note(`Following the deliveries of the sandbox at ${options.baseUrl}; Ctrl-C stops.`)
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
