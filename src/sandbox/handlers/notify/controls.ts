/**
 * `/_sandbox/webhooks`: the caller's signature key, webhook endpoints and deliveries, each a
 * handler of the route table (http/routes.ts), on the caller's business only (`key scoped`).
 */

import { invalid, Refusal, type Reply, success, valid } from '../../domain/answers.js'
import type { ScopedContext } from '../context.js'
import { addEndpoint, checkEndpoint, removeEndpoint, webhooksOf } from './endpoints.js'
import {
  type DeliveryState,
  type Dispatch,
  listDeliveries as deliveriesOf,
  resendDelivery as resend,
} from './outbox.js'

/** The most deliveries one answer holds. */
export const MAX_DELIVERIES = 1000

/** `GET /_sandbox/webhooks`: `{signature_key, endpoints}`. */
export const listWebhooks = ({ store, caller, now }: ScopedContext): Reply =>
  success(webhooksOf(store, caller.keyHash), now)

/**
 * `POST /_sandbox/webhooks` `{url, events?, enabled?, lease_seconds?}`: the endpoint (`_id`, url,
 * events, enabled), added, or the one of that URL there already; 422 naming each field that fails.
 */
export function addWebhook({ store, caller, body, now }: ScopedContext): Reply {
  const input = valid(checkEndpoint(body))
  // A leased endpoint of that URL there already: its lease renewed, the machinery of a pay process.
  const renewal =
    input.leaseSeconds !== undefined &&
    webhooksOf(store, caller.keyHash).endpoints.some((endpoint) => endpoint.url === input.url)
  return { ...success(addEndpoint(store, caller.keyHash, input), now), ...(renewal ? { renewal } : {}) }
}

/** `DELETE /_sandbox/webhooks/{id}`: the endpoint removed; its pending deliveries fail, saying so. */
export function removeWebhook({ store, caller, id, now }: ScopedContext): Reply {
  const removed = removeEndpoint(store, caller.keyHash, id)
  if (!removed) throw new Refusal(404, 'Webhook endpoint not found.')
  return success(removed, now)
}

/** The states a delivery is in, which `?state=` may name. */
const DELIVERY_STATES: readonly DeliveryState[] = ['pending', 'delivered', 'failed']

/**
 * `GET /_sandbox/webhooks/deliveries?limit=N&payment_link_id=ID&state=S`: the newest N deliveries
 * (default and most 1,000), newest last; of link ID only, in state S only, when given.
 */
export function listDeliveries({ store, caller, query, now }: ScopedContext): Reply {
  const text = query.get('limit')
  const limit = text === null ? MAX_DELIVERIES : Number(text)
  const state = query.get('state') ?? undefined
  const problems: Record<string, string[]> = {}
  if (!/^\d+$/.test(text ?? '0') || limit < 1 || limit > MAX_DELIVERIES) {
    problems.limit = [`The limit must be an integer from 1 to ${MAX_DELIVERIES}.`]
  }
  if (state !== undefined && !DELIVERY_STATES.includes(state as DeliveryState)) {
    problems.state = [`The state must be one of ${DELIVERY_STATES.join(', ')}.`]
  }
  if (Object.keys(problems).length > 0) throw invalid(problems)
  const link = query.get('payment_link_id') ?? undefined
  return success(deliveriesOf(store, caller.keyHash, limit, { link, state: state as DeliveryState }), now)
}

/**
 * `POST /_sandbox/webhooks/deliveries/{id}/resend`: the delivery due again, with three more
 * attempts, the first at once (the same body); 409 while an attempt of it is under way.
 */
export function resendDelivery({
  store,
  caller,
  id,
  notifier,
  now,
}: ScopedContext & { notifier: Dispatch }): Reply {
  const resent = resend(store, caller.keyHash, id, notifier)
  if (resent === undefined) throw new Refusal(404, 'Delivery not found.')
  if (resent === 'busy') {
    throw new Refusal(409, 'The delivery is being attempted now: resend it once that attempt has ended.')
  }
  return success(resent.delivery, now)
}
