import type { Method } from '../shared/fields.js'

/**
 * The retry policy of every request pay sends, in one place (docs/design.md, Reliability):
 * GET, PUT and DELETE (idempotent by RFC 9110) are sent again after a transient failure, up to
 * `limit` times after the first attempt, within the request's one deadline (--timeout); POST and
 * PATCH carry an Idempotency-Key and are sent once, since they may have acted before failing.
 * Between attempts: Retry-After when the service gives one (capped), else an exponential backoff.
 * A wait that would pass the deadline is not made: the failure is reported instead.
 */
export const RETRY_POLICY = {
  /** Methods that may be sent again. */
  methods: new Set<Method>(['GET', 'PUT', 'DELETE']),
  /** Retries after the first attempt. */
  limit: 2,
  /** The first backoff delay; it doubles per retry. */
  baseMs: 250,
  /** The longest wait a Retry-After header may ask for. */
  retryAfterCapMs: 5000,
  /** Statuses that are worth another attempt. */
  statuses: new Set([408, 429, 500, 502, 503, 504]),
  /** Connection failures that are worth another attempt (with a timeout of the connection). */
  connectionErrors: new Set([
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    'ETIMEDOUT',
  ]),
} as const

/** The policy's numbers, as a client may set them (tests make them short). */
export interface RetryLimits {
  limit: number
  baseMs: number
  retryAfterCapMs: number
}

/** Methods that carry an Idempotency-Key and are sent once: they may have acted before failing. */
export const carriesIdempotencyKey = (method: Method) => method === 'POST' || method === 'PATCH'

/** How many retries a method gets under the policy. */
export const retriesFor = (method: Method, limits: RetryLimits) =>
  RETRY_POLICY.methods.has(method) ? limits.limit : 0

/** An answer's status is worth another attempt. */
export const retryableStatus = (status: number) => RETRY_POLICY.statuses.has(status)

/** A connection failure (its code) is worth another attempt. */
export const retryableConnection = (code: string) => RETRY_POLICY.connectionErrors.has(code)

/**
 * How long to wait before attempt `attempt + 2`: Retry-After (capped), else the backoff;
 * undefined when the wait would pass the deadline.
 */
export function retryWait(
  attempt: number,
  retryAfter: string | undefined,
  deadline: number,
  limits: RetryLimits,
): number | undefined {
  const asked = parseRetryAfter(retryAfter)
  const wait = asked === undefined ? limits.baseMs * 2 ** attempt : Math.min(asked, limits.retryAfterCapMs)
  return Date.now() + wait >= deadline ? undefined : wait
}

/** Retry-After as milliseconds: seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  // An HTTP date names its day and month; anything else (-5, 1.5) is not one.
  if (!/^[a-z]{3}, /i.test(value.trim())) return undefined
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}
