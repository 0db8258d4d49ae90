/**
 * The hash of a notification, made and checked as the service's official shop plugins check it
 * (`verify_hash` of the swipe-engineer plugins): the notification's `data` without its `hash`, each
 * value in PHP's string form (strings as they are, integers in decimal) joined with nothing, after
 * the signature key; then HMAC-SHA256 of that, keyed with the signature key, in lowercase hex.
 * Only `data` is signed (not `event` nor `trigger_at`), as there. The sandbox signs with it, and
 * the client (`pay sandbox listen`, `pay webhooks verify`) and the library check with it.
 *
 * Since the values are run together with no separator, a hash alone cannot tell where one value
 * ends: whoever holds one genuine notification could move characters from one value to the next
 * (a `1` out of `payment_id` into `payment_status`), add a key to hold what was moved, or change
 * the keys' order, and keep the hash. So the check is strict: exactly the documented keys, in the
 * documented order, each value in its documented form. That leaves only what no check of this
 * scheme can see: values of free text next to each other (`payment_link_reference`,
 * `payment_link_reference_2`, `payment_message`, `payment_method`, `payment_provider`) trading
 * characters, and a notification sent again as it was (docs/security.md, Notifications).
 */

import { nodeCrypto } from './crypto.js'

/** What a notification is: its keys in order, and the one event the service sends. */
export const NOTIFICATION_KEYS = ['trigger_at', 'event', 'data'] as const
export const NOTIFICATION_EVENT = 'payment.created'

/** `payment_status`: 1 paid, 2 pending, 3 failed, as the service's documentation and the sandbox give them. */
export const PAYMENT_STATUSES = [1, 2, 3] as const

const OBJECT_ID = /^[0-9a-f]{24}$/
/** `d-m-Y h:i:s a`, PHP's date format: `24-11-2026 05:10:25 pm`. */
const PAYMENT_TIME = /^(0[1-9]|[12]\d|3[01])-(0[1-9]|1[0-2])-\d{4} (0[1-9]|1[0-2]):[0-5]\d:[0-5]\d (am|pm)$/
const HASH = /^[0-9a-f]{64}$/

type Form = (value: unknown) => boolean
const text: Form = (value) => typeof value === 'string'
const objectId: Form = (value) => typeof value === 'string' && OBJECT_ID.test(value)

/** The keys of `data`, in the documented order, `hash` last, and the form each value must have. */
const DATA_FORMS: readonly (readonly [string, Form, string])[] = [
  ['attempt_id', objectId, '24 hex digits'],
  ['payment_id', objectId, '24 hex digits'],
  [
    'payment_time',
    (value) => typeof value === 'string' && PAYMENT_TIME.test(value),
    'a time as d-m-Y h:i:s a',
  ],
  ['payment_amount', (value) => Number.isSafeInteger(value) && (value as number) >= 0, 'an integer (cents)'],
  [
    'payment_status',
    (value) => (PAYMENT_STATUSES as readonly unknown[]).includes(value),
    `one of ${PAYMENT_STATUSES.join(', ')} (a number)`,
  ],
  ['payment_link_id', objectId, '24 hex digits'],
  ['payment_link_reference', text, 'text'],
  ['payment_link_reference_2', text, 'text'],
  ['payment_message', text, 'text'],
  ['payment_currency', (value) => typeof value === 'string' && /^[A-Za-z]{3}$/.test(value), 'three letters'],
  ['payment_method', text, 'text'],
  ['payment_provider', text, 'text'],
  ['hash', (value) => typeof value === 'string' && HASH.test(value), '64 lowercase hex digits'],
]

/** The keys of a notification's `data`, in the order the service sends them, `hash` last. */
export const DATA_KEYS: readonly string[] = DATA_FORMS.map(([key]) => key)

/** PHP's string form of a value of `data`: a string as it is, an integer in decimal. */
const phpString = (value: string | number): string => (typeof value === 'number' ? String(value) : value)

/** The hash of `data`'s values (in order, `hash` left out) under `signatureKey`. */
export function notificationHash(values: readonly (string | number)[], signatureKey: string): string {
  return nodeCrypto()
    .createHmac('sha256', signatureKey)
    .update(signatureKey + values.map(phpString).join(''))
    .digest('hex')
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Where two lists of keys first differ, in words: what a notification has that it should not, or lacks. */
function keysProblem(where: string, keys: string[], expected: readonly string[]): string | undefined {
  const extra = keys.find((key) => !expected.includes(key))
  if (extra !== undefined) return `${where} has a key the service never sends: ${JSON.stringify(extra)}`
  const missing = expected.find((key) => !keys.includes(key))
  if (missing !== undefined) return `${where} has no ${missing}`
  const at = keys.findIndex((key, i) => key !== expected[i])
  if (at >= 0) return `${where}'s keys are out of order: ${keys[at]} where ${expected[at]} belongs`
  return undefined
}

/**
 * Why `body` (the notification as received: its raw text, a Buffer of it, or the object parsed
 * from it) is not a notification signed with `signatureKey`, in words a command can print (key
 * names, never values); undefined when it is one. Never throws. A `signatureKey` undefined (a
 * profile that keeps none) is a refusal that says so.
 */
export function webhookProblem(body: unknown, signatureKey: string | undefined): string | undefined {
  try {
    if (signatureKey === undefined) return 'there is no signature key to check it with'
    if (typeof signatureKey !== 'string' || signatureKey === '') return 'the signature key is empty'
    const raw = Buffer.isBuffer(body) ? body.toString('utf8') : body
    let parsed: unknown = raw
    if (typeof raw === 'string') {
      try {
        parsed = JSON.parse(raw)
      } catch {
        return 'the body is not JSON'
      }
    }
    if (!isObject(parsed)) return 'the body is not a JSON object'
    const outer = keysProblem('the notification', Object.keys(parsed), NOTIFICATION_KEYS)
    if (outer !== undefined) return outer
    if (parsed.event !== NOTIFICATION_EVENT) return `event is not "${NOTIFICATION_EVENT}"`
    if (typeof parsed.trigger_at !== 'string') return 'trigger_at is not text'
    const data = parsed.data
    if (!isObject(data)) return 'data is not a JSON object'
    const inner = keysProblem('data', Object.keys(data), DATA_KEYS)
    if (inner !== undefined) return inner
    for (const [key, form, said] of DATA_FORMS) {
      if (!form(data[key])) return `data.${key} is not ${said}`
    }
    const values = DATA_KEYS.slice(0, -1).map((key) => data[key] as string | number)
    const expected = Buffer.from(notificationHash(values, signatureKey), 'hex')
    const given = Buffer.from(data.hash as string, 'hex')
    if (!nodeCrypto().timingSafeEqual(expected, given)) {
      return 'the hash does not match: it was not signed with this signature key, or it was changed'
    }
    return undefined
  } catch {
    return 'the notification could not be read'
  }
}

/**
 * Whether `body` (its raw text, a Buffer of it, or the object parsed from it) is a notification
 * signed with `signatureKey`: true only for exactly the documented notification, its keys in order,
 * each value in its form, and the hash of its values. False for anything else, never an exception;
 * the hashes are compared in constant time.
 */
export function verifyWebhook(body: unknown, signatureKey: string | undefined): boolean {
  return webhookProblem(body, signatureKey) === undefined
}
