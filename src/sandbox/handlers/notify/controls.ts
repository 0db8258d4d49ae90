/**
 * `/_sandbox/webhooks`: the caller's signature key, webhook endpoints and deliveries, each a
 * handler of the route table (http/routes.ts), on the caller's business only (`key scoped`).
 */

import { invalid, Refusal, type Reply, success, valid } from '../../domain/answers.js'
import type { ScopedContext } from '../context.js'
import { addEndpoint, checkEndpoint, removeEndpoint, webhooksOf } from './endpoints.js'
import { type Dispatch, listDeliveries as deliveriesOf, resendDelivery as resend } from './outbox.js'

/** The most deliveries one answer holds. */
export const MAX_DELIVERIES = 1000

/** `GET /_sandbox/webhooks`: `{signature_key, endpoints}`. */
export const listWebhooks = ({ store, caller, now }: ScopedContext): Reply =>
  success(webhooksOf(store, caller.keyHash), now)

/**
 * `POST /_sandbox/webhooks` `{url, events?, enabled?, lease_seconds?}`: the endpoint (`_id`, url,
 * events, enabled), added, or the one of that URL there already; 422 naming each field that fails.
 */
export const addWebhook = ({ store, caller, body, now }: ScopedContext): Reply =>
  success(addEndpoint(store, caller.keyHash, valid(checkEndpoint(body))), now)

/** `DELETE /_sandbox/webhooks/{id}`: the endpoint removed; its pending deliveries fail, saying so. */
export function removeWebhook({ store, caller, id, now }: ScopedContext): Reply {
  const removed = removeEndpoint(store, caller.keyHash, id)
  if (!removed) throw new Refusal(404, 'Webhook endpoint not found.')
  return success(removed, now)
}

/** `GET /_sandbox/webhooks/deliveries?limit=N`: the newest N deliveries (default and most 1,000), newest last. */
export function listDeliveries({ store, caller, query, now }: ScopedContext): Reply {
  const text = query.get('limit')
  const limit = text === null ? MAX_DELIVERIES : Number(text)
  if (!/^\d+$/.test(text ?? '0') || limit < 1 || limit > MAX_DELIVERIES) {
    throw invalid({ limit: [`The limit must be an integer from 1 to ${MAX_DELIVERIES}.`] })
  }
  return success(deliveriesOf(store, caller.keyHash, limit), now)
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
