/**
 * `Idempotency-Key` on the API's POSTs, as Stripe honours it: the first answer of a POST sent with
 * a key is kept (in the database, per business, for 24 hours, the key as its hash); the same POST sent again with that
 * key gets that answer again, the same status and body, and nothing is created twice. The key on
 * another request (another body or endpoint) is refused with a 422.
 *
 * Only what was done is kept: a 2xx. A request refused before anything was done (a 422 of its
 * fields, a 401, a malformed body) keeps nothing, so it can be corrected and sent again with the
 * same key (Stripe does the same).
 */
import { createHash } from 'node:crypto'
import { invalid, type Reply } from '../domain/answers.js'
import type { BusinessKey } from '../domain/business.js'
import type { SandboxStore } from '../store/store.js'

/** How long a key is remembered (Stripe: at least 24 hours). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000

/** Stripe's limit on a key's length. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255

/** The header that says an answer is a replay (Stripe's name). */
export const REPLAYED_HEADER = 'Idempotent-Replayed'

export const KEY_REUSED_MESSAGE =
  'This idempotency key was already used for a different request: send a new key with a new request.'
export const KEY_TOO_LONG_MESSAGE = `The idempotency key must not be longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`

/** JSON with the keys of every object in order, so that the order a client wrote them in does not count. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value)
}

/** What makes two POSTs the same request: the path and the body (key order aside). */
export function fingerprintOf(path: string, body: unknown): string {
  return createHash('sha256').update(path).update('\n').update(canonical(body)).digest('hex')
}

/** How a key is kept in the database: its SHA-256, never the key itself. */
export const keptKey = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`

/**
 * A 422 in the shape of docs/spec/payment-service-api.md 7, the key named as a field (pay shows it under
 * --idempotency-key).
 */
const refused = (message: string) => invalid({ idempotency_key: [message] })

interface IdempotentRequest {
  business: BusinessKey
  key: string
  path: string
  body: unknown
  /** Milliseconds since the epoch; tests give another. */
  now?: number
}

/**
 * Answers a POST that carries an Idempotency-Key: the kept answer when the key was seen with the
 * same request, a 422 when it was seen with another one, else `handle()`'s answer, kept when it is
 * a 2xx. The look-up, the handler's writes and the keeping of its answer are one transaction, so
 * two POSTs with one key at once (from two processes too) create one record: the second waits for
 * the first and gets its answer.
 */
export function answerOnce(store: SandboxStore, request: IdempotentRequest, handle: () => Reply): Reply {
  const { business, key } = request
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw refused(KEY_TOO_LONG_MESSAGE)
  const now = request.now ?? Date.now()
  const fingerprint = fingerprintOf(request.path, request.body)
  // Kept as a hash: a key is whatever the client chose, a secret pasted by mistake among them.
  const kept = keptKey(key)
  return store.write(() => {
    const since = now - IDEMPOTENCY_WINDOW_MS
    // A key an earlier pay kept as it was is still found, for the rest of its window.
    const seen = store.recall(business, kept, since) ?? store.recall(business, key, since)
    if (seen) {
      if (seen.fingerprint !== fingerprint) throw refused(KEY_REUSED_MESSAGE)
      // Kept as the handler answered it: its records' pages as paths, named anew by the server.
      return { status: seen.status, text: seen.response, headers: { [REPLAYED_HEADER]: 'true' }, pages: true }
    }
    const reply = handle()
    if (reply.status < 200 || reply.status >= 300) return reply
    // Serialised once: the text kept is the text sent.
    const response = reply.text ?? JSON.stringify(reply.body)
    store.remember(business, kept, { fingerprint, status: reply.status, response }, now, since)
    return { ...reply, text: response }
  })
}
