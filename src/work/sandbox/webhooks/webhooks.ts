/**
 * The work of `pay sandbox webhooks add|list|remove|resend`: each through the running sandbox
 * that proved it is the user's (its API, the key's business), else on the local store of
 * $PAY_SANDBOX_DIR, as `sandbox pay` and `sandbox seed` do. A resend with no server makes its
 * first attempt before the command ends, and says what came of it.
 */

import { PayError, validationError } from '../../../errors.js'
import { attemptedText } from '../../../runtime/sandbox/attempted.js'
import { loadLocalStore } from '../../../sandbox/index.js'
import type { Rec } from '../../../values.js'
import {
  addSandboxWebhook,
  removeSandboxWebhook,
  resendSandboxDelivery,
  sandboxWebhooks,
  type WebhooksAnswer,
} from '../controls.js'
import { placeOf, type SandboxContext } from '../where.js'

/** An endpoint added or removed, as asked (`url`, `id`), and where (for the message). */
export interface EndpointDone {
  endpoint: Rec
  place: string
}

/** `webhooks add URL`: the endpoint (the one there already for that URL). */
export async function addWebhook(
  { url }: { url: string },
  context: SandboxContext,
): Promise<EndpointDone & { url: string }> {
  const where = await context.sandboxTarget()
  let endpoint: Rec
  if (where.server) endpoint = await addSandboxWebhook(where.api, { url })
  else {
    const { addWebhookIn } = await loadLocalStore()
    const added = addWebhookIn(where.dir, where.apiKey, { url })
    if (!added.ok) throw validationError(added.errors)
    endpoint = added.value
  }
  return { url, endpoint, place: placeOf(where, true) }
}

/** `webhooks list`: the business's signature key and its endpoints. */
export async function listWebhooks(context: SandboxContext): Promise<WebhooksAnswer> {
  const where = await context.sandboxTarget()
  if (where.server) return sandboxWebhooks(where.api)
  return (await loadLocalStore()).webhooksIn(where.dir, where.apiKey)
}

/** `webhooks remove ID`: the endpoint removed (its pending deliveries fail, saying so). */
export async function removeWebhook(
  { id }: { id: string },
  context: SandboxContext,
): Promise<EndpointDone & { id: string }> {
  const where = await context.sandboxTarget()
  let removed: Rec | undefined
  if (where.server)
    removed = await removeSandboxWebhook(where.api, id).catch(notFound('webhook endpoint', id))
  else removed = (await loadLocalStore()).removeWebhookIn(where.dir, where.apiKey, id)
  if (!removed) throw noSuch('webhook endpoint', id)
  return { id, endpoint: removed, place: placeOf(where, true) }
}

/** A delivery sent again. */
export interface DeliveryResent {
  id: string
  delivery: Rec
  /** Through a running sandbox, which makes the attempts; else in the local store, which made the first. */
  server: boolean
  place: string
  /** In the local store, what came of the first attempt. */
  notified: string[]
}

/** `webhooks resend ID`: the delivery due again; with no server, its first attempt made. */
export async function resendDelivery(
  { id }: { id: string },
  context: SandboxContext,
): Promise<DeliveryResent> {
  const where = await context.sandboxTarget()
  const place = placeOf(where, true)
  if (where.server) {
    const delivery = await resendSandboxDelivery(where.api, id).catch(notFound('delivery', id))
    return { id, delivery, server: true, place, notified: [] }
  }
  const { result, attempted } = await (await loadLocalStore()).resendIn(where.dir, where.apiKey, id)
  if (result === undefined) throw noSuch('delivery', id)
  if (result === 'busy') {
    throw new PayError(`Delivery ${id} is being attempted by a sandbox on ${where.dir} now.`, {
      kind: 'general',
      hint: 'Resend it once that attempt has ended.',
    })
  }
  return { id, delivery: result, server: false, place, notified: attemptedText(attempted, where.dir) }
}

const noSuch = (noun: string, id: string) =>
  new PayError(`No ${noun} ${id} in the sandbox.`, { kind: 'not_found' })

/** A 404 said with what was looked for; other errors as they are. */
const notFound = (noun: string, id: string) => (error: unknown) => {
  throw error instanceof PayError && error.kind === 'not_found' ? noSuch(noun, id) : error
}
