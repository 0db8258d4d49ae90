/**
 * `pay webhooks verify`'s check of a notification an app received (docs/design.md, "Where the spec
 * is silent"): as strict as the sandbox's and its library's (src/shared/webhook-signature.ts, which
 * the sandbox signs with), each refusal said in the plugins' terms (a key they require missing).
 * Two checks of one scheme: a follow-up makes them one.
 *
 * The hash is the service's, as its official shop plugins check it (`verify_hash` of the
 * swipe-engineer plugins): HMAC-SHA256, keyed with the business's signature key, of the signature
 * key followed by every value of `data` but `hash`, in order, each in PHP's string form, run
 * together with nothing between them; lowercase hex. Only `data` is signed (not `event` nor
 * `trigger_at`).
 *
 * Since the values run together, a hash alone cannot tell where one ends: characters can move from
 * one value to the next, and a key can be added to take what is left over. So the check is strict,
 * and refuses what the plugins would let through: exactly the documented keys, in the documented
 * order and no others, each value in its documented form (the ids 24 hex digits, the amount an
 * integer of cents, the status 1, 2 or 3, the time `d-m-Y h:i:s a`, the currency three letters).
 * Text fields side by side (the references, the message) can still trade characters, and a
 * notification can be sent again: a receiver keeps the attempt_ids it has seen and matches the
 * link, amount and currency against its order (docs/security.md).
 */
import { nodeCrypto } from './crypto.js'

/** The keys of a notification's `data`, in the service's order; `hash` last. */
export const NOTIFICATION_KEYS = [
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
  'payment_method',
  'payment_provider',
  'hash',
] as const

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

/** The statuses the service sends: 1 paid, 2 pending, 3 failed (the plugins read anything but 1 and 2 as failed). */
export const PAYMENT_STATUSES: readonly number[] = [1, 2, 3]

const HEX_ID = /^[0-9a-f]{24}$/
const TIME = /^(0[1-9]|[12]\d|3[01])-(0[1-9]|1[0-2])-\d{4} (0[1-9]|1[0-2]):[0-5]\d:[0-5]\d (am|pm)$/

/** What each value must be, as the service writes it; undefined for a value of its form. */
const FORMS: Readonly<Record<string, (value: unknown) => string | undefined>> = {
  attempt_id: (v) => (typeof v === 'string' && HEX_ID.test(v) ? undefined : '24 hex digits'),
  payment_id: (v) => (typeof v === 'string' && HEX_ID.test(v) ? undefined : '24 hex digits'),
  payment_time: (v) => (typeof v === 'string' && TIME.test(v) ? undefined : 'a time as d-m-Y h:i:s a'),
  payment_amount: (v) => (Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : 'an integer of cents'),
  payment_status: (v) => (PAYMENT_STATUSES.includes(v as number) ? undefined : 'the number 1, 2 or 3'),
  payment_link_id: (v) => (typeof v === 'string' && HEX_ID.test(v) ? undefined : '24 hex digits'),
  payment_link_reference: (v) => (typeof v === 'string' ? undefined : 'text'),
  payment_link_reference_2: (v) => (typeof v === 'string' ? undefined : 'text'),
  payment_message: (v) => (typeof v === 'string' ? undefined : 'text'),
  payment_currency: (v) =>
    typeof v === 'string' && /^[A-Z]{3}$/.test(v) ? undefined : 'three capital letters',
  payment_method: (v) => (typeof v === 'string' ? undefined : 'text'),
  payment_provider: (v) => (typeof v === 'string' ? undefined : 'text'),
  hash: (v) => (typeof v === 'string' && /^[0-9a-f]{64}$/.test(v) ? undefined : '64 lowercase hex digits'),
}

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
 * Why `body` (the notification as received: its raw text, a Buffer of it, or the object parsed
 * from it) is not one signed with `signatureKey`, in a sentence: no signature key, not JSON, no
 * `data`, a key the plugins require missing, a key out of place or unknown, a value not in its
 * form, or the hash not matching. Undefined when it holds. Never throws.
 */
export function webhookProblem(body: unknown, signatureKey: unknown): string | undefined {
  try {
    if (typeof signatureKey !== 'string' || signatureKey === '')
      return 'There is no signature key to check it with.'
    const text = Buffer.isBuffer(body) ? body.toString('utf8') : body
    let parsed: unknown
    try {
      parsed = typeof text === 'string' ? JSON.parse(text) : text
    } catch {
      return 'It is not JSON.'
    }
    if (!isObject(parsed) || !isObject(parsed.data)) return 'It has no "data" object.'
    const data = parsed.data
    const keys = Object.keys(data)
    const missing = REQUIRED_KEYS.filter((key) => !Object.hasOwn(data, key) || data[key] === null)
    if (missing.length > 0) {
      const named = missing.map((key) => `"${key}"`).join(', ')
      return `It lacks ${missing.length === 1 ? 'a key' : 'keys'} the plugins require: ${named}.`
    }
    const unknown = keys.filter((key) => !(NOTIFICATION_KEYS as readonly string[]).includes(key))
    if (unknown.length > 0)
      return `It has keys the service never sends: ${unknown.map((k) => `"${k}"`).join(', ')}.`
    const absent = NOTIFICATION_KEYS.filter((key) => !Object.hasOwn(data, key))
    if (absent.length > 0) return `It lacks ${absent.map((k) => `"${k}"`).join(', ')}.`
    if (keys.join() !== NOTIFICATION_KEYS.join())
      return `Its keys are not in the service's order (${NOTIFICATION_KEYS.join(', ')}).`
    for (const key of NOTIFICATION_KEYS) {
      const form = FORMS[key](data[key])
      if (form !== undefined) return `Its "${key}" is not ${form}.`
    }
    const values = NOTIFICATION_KEYS.filter((key) => key !== 'hash').map(
      (key) => phpString(data[key]) as string,
    )
    const expected = Buffer.from(hashOf(values, signatureKey), 'hex')
    const given = Buffer.from(data.hash as string, 'hex')
    if (!nodeCrypto().timingSafeEqual(expected, given))
      return 'Its hash does not match: it was not signed with this signature key, or it was changed since.'
    return undefined
  } catch {
    return 'It cannot be read.'
  }
}

/**
 * Whether `body` is a notification signed with `signatureKey` (webhookProblem finds nothing):
 * true or false, never an exception.
 */
export const verifyWebhook = (body: unknown, signatureKey: unknown): boolean =>
  webhookProblem(body, signatureKey) === undefined
