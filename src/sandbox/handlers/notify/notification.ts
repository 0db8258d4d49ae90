/**
 * A notification of a payment attempt, as the service sends it (docs/design.md, "Where the spec
 * is silent"): `{trigger_at, event: "payment.created", data}`, `data`'s keys in the order the
 * documentation gives them and `hash` last (src/shared/webhook-signature.ts). No value is null (a link without a
 * reference sends ""), and every value the sandbox makes is one the plugins' `trim` and
 * `sanitize_text_field` leave as it is: no surrounding spaces, tags, line breaks or `%XX`.
 */
import { NOTIFICATION_EVENT, notificationHash } from '../../../shared/webhook-signature.js'
import { attemptData, centsOf, PAYMENT_STATUS, paymentTime } from '../../domain/attempt.js'
import type { PaymentAttempt } from '../../domain/payment.js'
import { nowIso } from '../../domain/records.js'

export { centsOf, paymentTime }

export const PAYMENT_CREATED = NOTIFICATION_EVENT

/** The events a notification can be: the service sends one. */
export const WEBHOOK_EVENTS = [PAYMENT_CREATED] as const

/** `payment_status`: 1 paid, 2 pending, anything else failed (the plugins' reading). A failed attempt is 3. */
export const PAID = PAYMENT_STATUS.paid
export const PENDING = PAYMENT_STATUS.pending
export const FAILED = PAYMENT_STATUS.failed

/**
 * The notification of `attempt`, signed with `signatureKey`: the JSON text every attempt sends,
 * its `data` the attempt's (domain/attempt.ts: the very values its return to `redirect_url`
 * carries), made here for an attempt that has none.
 */
export function notificationText(
  attempt: Pick<PaymentAttempt, 'link' | 'paid' | 'at'> & { data?: PaymentAttempt['data'] },
  signatureKey: string,
): string {
  const { link, paid, at } = attempt
  const data = attempt.data ?? attemptData(link, paid ? 'paid' : 'failed', at)
  const hash = notificationHash(Object.values(data), signatureKey)
  return JSON.stringify({ trigger_at: nowIso(at), event: PAYMENT_CREATED, data: { ...data, hash } })
}
