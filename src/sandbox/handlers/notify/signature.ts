/**
 * The hash of a notification, made and checked as the service's official shop plugins check it
 * (`verify_hash` of the swipe-engineer plugins): the notification's `data` without its `hash`, each
 * value in PHP's string form (strings as they are, integers in decimal) joined with nothing, after
 * the signature key; then HMAC-SHA256 of that, keyed with the signature key, in lowercase hex.
 * Only `data` is signed (not `event` nor `trigger_at`), as there.
 */

import { nodeCrypto } from '../../../shared/crypto.js'

/** The keys of `data` the plugins require before they check the hash (a notification without one is refused). */
export const REQUIRED_KEYS = [
  'attempt_id',
  'payment_id',
  'payment_time',
  'payment_amount',
  'payment_status',
  'payment_link_id',
  'payment_link_reference',
  'payment_link_reference_2',
  'payment_message',
  'payment_currency',
  'hash',
] as const

/** PHP's string form of a value of `data`: a string as it is, an integer in decimal; undefined for anything else. */
function phpString(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
  return undefined
}

/** The hash of `data`'s values (in order, `hash` left out) under `signatureKey`. */
export function hashOf(values: readonly (string | number)[], signatureKey: string): string {
  return nodeCrypto()
    .createHmac('sha256', signatureKey)
    .update(signatureKey + values.map((value) => phpString(value) ?? '').join(''))
    .digest('hex')
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Whether `body` (the notification as received: its raw text, or the object parsed from it) is
 * signed with `signatureKey`: true only when it is a JSON object whose `data` holds every key the
 * plugins require, no value but strings and integers, and the hash of its other values. False for
 * anything else, never an exception; the hashes are compared in constant time.
 */
export function verifyWebhook(body: unknown, signatureKey: string): boolean {
  try {
    if (typeof signatureKey !== 'string' || signatureKey === '') return false
    const text = Buffer.isBuffer(body) ? body.toString('utf8') : body
    const parsed: unknown = typeof text === 'string' ? JSON.parse(text) : text
    if (!isObject(parsed) || !isObject(parsed.data)) return false
    const data = parsed.data
    if (REQUIRED_KEYS.some((key) => data[key] === undefined || data[key] === null)) return false
    const given = data.hash
    if (typeof given !== 'string' || !/^[0-9a-f]{64}$/.test(given)) return false
    const values: string[] = []
    for (const [key, value] of Object.entries(data)) {
      if (key === 'hash') continue
      const text = phpString(value)
      if (text === undefined) return false
      values.push(text)
    }
    return nodeCrypto().timingSafeEqual(
      Buffer.from(hashOf(values, signatureKey), 'hex'),
      Buffer.from(given, 'hex'),
    )
  } catch {
    return false
  }
}
