/**
 * What a payment attempt tells, once, as the service tells it (docs/design.md, "Where the spec is
 * silent"): its ids, when, the amount in cents, its status (1 paid, 2 pending, 3 failed: the
 * plugins read 1 as paid, 2 as pending and anything else as failed), the link and its references,
 * a message and the currency. The notification carries it (handlers/notify/notification.ts, with
 * its hash), and so does the customer's return to `redirect_url` (payment.ts), so that a shop that
 * reads it from either finds the same attempt. No value is null (a link without a reference tells
 * ""), and every value is one the plugins' `trim` and `sanitize_text_field` leave as it is.
 */
import { decimalText } from '../../shared/money.js'
import { newObjectId, type PaymentLinkRecord } from './records.js'

/** What came of an attempt: a customer who cancels makes none. */
export type AttemptOutcome = 'paid' | 'pending' | 'failed'

/** `payment_status` of each outcome. */
export const PAYMENT_STATUS: Readonly<Record<AttemptOutcome, number>> = { paid: 1, pending: 2, failed: 3 }

const MESSAGES: Readonly<Record<AttemptOutcome, string>> = {
  paid: 'Payment successful',
  pending: 'Payment pending',
  failed: 'Payment failed',
}

/** An attempt's `data`, in the order the service writes it (the notification adds `hash` last). */
export type AttemptData = {
  attempt_id: string
  payment_id: string
  payment_time: string
  payment_amount: number
  payment_status: number
  payment_link_id: string
  payment_link_reference: string
  payment_link_reference_2: string
  payment_message: string
  payment_currency: string
  payment_method: string
  payment_provider: string
}

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

/** What an attempt with `outcome` on `link` at `at` (sandbox time) tells: new ids of its own. */
export function attemptData(link: PaymentLinkRecord, outcome: AttemptOutcome, at: number): AttemptData {
  return {
    attempt_id: newObjectId(),
    payment_id: newObjectId(),
    payment_time: paymentTime(at),
    payment_amount: centsOf(link.amount),
    payment_status: PAYMENT_STATUS[outcome],
    payment_link_id: link._id,
    payment_link_reference: link.reference ?? '',
    payment_link_reference_2: link.reference_2 ?? '',
    payment_message: MESSAGES[outcome],
    payment_currency: link.currency,
    payment_method: 'card',
    payment_provider: 'pay-sandbox',
  }
}

/**
 * What the customer's return to `redirect_url` carries of an attempt: its data as text, but the
 * method and provider (no plugin reads them there).
 */
export function returnFields(data: AttemptData): Record<string, string> {
  const { payment_method: _method, payment_provider: _provider, ...told } = data
  return Object.fromEntries(Object.entries(told).map(([name, value]) => [name, String(value)]))
}
