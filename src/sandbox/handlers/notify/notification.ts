/**
 * A notification of a payment attempt, as the service sends it (docs/design.md, "Where the spec
 * is silent"): `{trigger_at, event: "payment.created", data}`, `data`'s keys in the order the
 * documentation gives them and `hash` last (src/shared/webhook-signature.ts). No value is null (a link without a
 * reference sends ""), and every value the sandbox makes is one the plugins' `trim` and
 * `sanitize_text_field` leave as it is: no surrounding spaces, tags, line breaks or `%XX`.
 */
import { decimalText } from '../../../shared/money.js'
import { NOTIFICATION_EVENT, notificationHash } from '../../../shared/webhook-signature.js'
import type { PaymentAttempt } from '../../domain/payment.js'
import { newObjectId, nowIso } from '../../domain/records.js'

export const PAYMENT_CREATED = NOTIFICATION_EVENT

/** The events a notification can be: the service sends one. */
export const WEBHOOK_EVENTS = [PAYMENT_CREATED] as const

/** `payment_status`: 1 paid, 2 pending, anything else failed (the plugins' reading). A failed attempt is 3. */
export const PAID = 1
export const FAILED = 3

/**
 * `d-m-Y h:i:s a` (PHP's date format) in UTC: `24-11-2026 05:10:25 pm`, as the service writes
 * `payment_time`.
 */
export function paymentTime(at: number): string {
  const date = new Date(at)
  const two = (n: number) => String(n).padStart(2, '0')
  const hours = date.getUTCHours()
  const clock = `${two(hours % 12 === 0 ? 12 : hours % 12)}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`
  const day = `${two(date.getUTCDate())}-${two(date.getUTCMonth() + 1)}-${date.getUTCFullYear()}`
  return `${day} ${clock} ${hours < 12 ? 'am' : 'pm'}`
}

/**
 * `payment_amount`: the amount in cents, an integer, as the documentation gives it (25.5 -> 2550),
 * counted from the amount's decimal digits (never through a float product); a fraction of a cent
 * is rounded half up (0.005 -> 1).
 */
export function centsOf(amount: number): number {
  const [whole, fraction = ''] = decimalText(amount).split('.')
  const digits = fraction.padEnd(3, '0')
  const cents = BigInt(whole) * 100n + BigInt(digits.slice(0, 2)) + (Number(digits[2]) >= 5 ? 1n : 0n)
  return Number(cents)
}

/** The notification of `attempt`, signed with `signatureKey`: the JSON text every attempt sends. */
export function notificationText(attempt: PaymentAttempt, signatureKey: string): string {
  const { link, paid, at } = attempt
  const data = {
    attempt_id: newObjectId(),
    payment_id: newObjectId(),
    payment_time: paymentTime(at),
    payment_amount: centsOf(link.amount),
    payment_status: paid ? PAID : FAILED,
    payment_link_id: link._id,
    payment_link_reference: link.reference ?? '',
    payment_link_reference_2: link.reference_2 ?? '',
    payment_message: paid ? 'Payment successful' : 'Payment failed',
    payment_currency: link.currency,
    payment_method: 'card',
    payment_provider: 'pay-sandbox',
  }
  const hash = notificationHash(Object.values(data), signatureKey)
  return JSON.stringify({ trigger_at: nowIso(at), event: PAYMENT_CREATED, data: { ...data, hash } })
}
