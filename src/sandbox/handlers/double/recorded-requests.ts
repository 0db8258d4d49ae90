import { redactSecrets } from '../../../shared/key-forms.js'

/**
 * The recorded requests: what each business sent, for `GET /_sandbox/requests` and `pay sandbox
 * requests`, so that a test can assert on what an application sent. Kept in memory by the running
 * server, a ring of the last RECORDED_PER_BUSINESS requests per business (one business never sees,
 * nor pushes out, another's), with their bodies redacted before they are kept: the sandbox's API
 * keys, values of fields named like secrets, and card-like numbers (13 to 19 digits, spaces or
 * dashes between them) are `[REDACTED]`, in the path, the query, the body and the Idempotency-Key
 * alike. (Not to be confused with the request log, the line per
 * request `pay sandbox start` writes on stderr, nor with pay's journal of changes.)
 */

export const RECORDED_PER_BUSINESS = 1000

/** The longest body kept, as JSON text: a bigger one is kept as a note of its size. */
const MAX_KEPT_BODY = 16 * 1024

const REDACTED = '[REDACTED]'

/** One request, as `GET /_sandbox/requests` answers it. */
export interface RecordedRequest {
  /** 1, 2, 3…, per business, in the order the answers were sent: the cursor of `?after=`. */
  seq: number
  /** When the request arrived (real time, ISO 8601). */
  time: string
  method: string
  /** Path and query, redacted like the body. */
  path: string
  /** The status sent; null when no answer was (a fault cut or held it, or the client went away). */
  status: number | null
  /** From arrival to the end of the answer, in milliseconds (one decimal). */
  ms: number
  idempotency_key: string | null
  /** The JSON body, redacted; null for none (a GET) or one that is not JSON. */
  body: unknown
  /** The fault applied (`503 x2`, `reset after`, `latency=300ms (header)`), or null. */
  fault: string | null
}

/** Field and parameter names whose values are never kept. */
const SECRET_NAME =
  /(^|[_-])(token|secret|password|passwd|api[_-]?key|authorization|cvc|cvv|card[_-]?number|pan)$/i

/**
 * Runs of digits with single spaces or dashes between them, standing alone: not inside a word or a
 * hexadecimal id (one in a hundred ids has 13 or more digits in a row, and was cut up).
 */
const DIGIT_RUN = /(?<![0-9A-Za-z])\d(?:[ -]?\d)*(?![0-9A-Za-z])/g

/**
 * Text with the keys in `secrets` and card-like numbers (a run of 13 to 19 digits, alone or with
 * single spaces or dashes between them, not part of a longer run, a word or an id) replaced by
 * `[REDACTED]`.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  // A key in any form: percent-encoded in part or whole, once or twice over.
  return redactSecrets(text, secrets, REDACTED).replace(DIGIT_RUN, (run) => {
    const digits = run.replace(/[ -]/g, '').length
    return digits >= 13 && digits <= 19 ? REDACTED : run
  })
}

/** A JSON value with every string redactText'ed, secret-named fields and card-like numbers replaced. */
export function redactBody(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactText(value, secrets)
  if (typeof value === 'number') {
    const digits = Number.isInteger(value) ? String(Math.abs(value)).length : 0
    return digits >= 13 && digits <= 19 ? REDACTED : value
  }
  if (Array.isArray(value)) return value.map((item) => redactBody(item, secrets))
  if (value !== null && typeof value === 'object') {
    // No prototype: a field named `__proto__` is kept as the field it is.
    const result: Record<string, unknown> = Object.create(null)
    for (const [name, item] of Object.entries(value)) {
      const key = redactText(name, secrets)
      result[key] =
        SECRET_NAME.test(name) && item !== null && item !== '' ? REDACTED : redactBody(item, secrets)
    }
    return result
  }
  return value
}

/** A path and query as recorded: secrets and card-like numbers redacted, secret-named parameters too. */
export function redactPath(rawUrl: string, secrets: readonly string[]): string {
  const queryStart = rawUrl.indexOf('?')
  const path = redactText(queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart), secrets)
  if (queryStart === -1) return path
  const query = rawUrl
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      if (equals === -1) return redactText(pair, secrets)
      const name = pair.slice(0, equals)
      let decoded = name
      try {
        decoded = decodeURIComponent(name)
      } catch {}
      const value = SECRET_NAME.test(decoded) ? REDACTED : redactText(pair.slice(equals + 1), secrets)
      return `${redactText(name, secrets)}=${value}`
    })
  return `${path}?${query.join('&')}`
}

/** A body as kept: redacted, or a note of its size when it is too big to keep. */
export function keptBody(body: unknown, secrets: readonly string[]): unknown {
  if (body === undefined) return null
  const redacted = redactBody(body, secrets)
  const size = JSON.stringify(redacted).length
  return size > MAX_KEPT_BODY ? `[a body of ${size} characters, not kept]` : redacted
}

/** What a request is recorded as: made when it is first read, unless it was made at once. */
export type Recording = Omit<RecordedRequest, 'seq'> | (() => Omit<RecordedRequest, 'seq'>)

/** A body small enough to keep unredacted until it is read: its redacted JSON stays under MAX_KEPT_BODY. */
export const LAZY_BODY_BYTES = MAX_KEPT_BODY / 4

class Ring {
  private readonly entries: (RecordedRequest | { seq: number; make: () => Omit<RecordedRequest, 'seq'> })[] =
    []
  private start = 0
  last = 0

  constructor(private readonly capacity: number) {}

  push(entry: Recording): void {
    const kept =
      typeof entry === 'function' ? { seq: ++this.last, make: entry } : { seq: ++this.last, ...entry }
    if (this.entries.length < this.capacity) this.entries.push(kept)
    else {
      this.entries[this.start] = kept
      this.start = (this.start + 1) % this.capacity
    }
  }

  /** Oldest first. */
  all(): RecordedRequest[] {
    for (let i = 0; i < this.entries.length; i++) {
      const entry = this.entries[i]
      if ('make' in entry) this.entries[i] = { seq: entry.seq, ...entry.make() }
    }
    return [...this.entries.slice(this.start), ...this.entries.slice(0, this.start)] as RecordedRequest[]
  }
}

/** The requests of every business, and those waiting for the next one (`?wait=`). */
export class RecordedRequests {
  private readonly rings = new Map<number, Ring>()
  private readonly waiting = new Map<number, Set<() => void>>()

  constructor(private readonly capacity = RECORDED_PER_BUSINESS) {}

  /**
   * Keeps a request of `business`. Given as a function, its redaction waits until it is read: most
   * recorded requests are never read.
   */
  record(business: number, entry: Recording): void {
    let ring = this.rings.get(business)
    if (!ring) {
      ring = new Ring(this.capacity)
      this.rings.set(business, ring)
    }
    ring.push(entry)
    const waiters = this.waiting.get(business)
    if (waiters) {
      this.waiting.delete(business)
      for (const wake of waiters) wake()
    }
  }

  /** Newest last: those after `after` (a seq), the newest `limit` of them. */
  read(business: number, { after = 0, limit }: { after?: number; limit?: number } = {}): RecordedRequest[] {
    const all = (this.rings.get(business)?.all() ?? []).filter((entry) => entry.seq > after)
    return limit === undefined ? all : all.slice(Math.max(0, all.length - limit))
  }

  /** The seq of the business's last request (0 for none yet). */
  last(business: number): number {
    return this.rings.get(business)?.last ?? 0
  }

  /**
   * Resolves when the business records a request after `after`, when `ms` pass, or when
   * `stop` resolves (the server closing), whichever comes first.
   */
  async wait(business: number, after: number, ms: number, stop: Promise<void>): Promise<void> {
    if (this.last(business) > after || ms <= 0) return
    let wake!: () => void
    const woken = new Promise<void>((resolve) => {
      wake = resolve
    })
    let waiters = this.waiting.get(business)
    if (!waiters) {
      waiters = new Set()
      this.waiting.set(business, waiters)
    }
    waiters.add(wake)
    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([woken, stop, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))])
    } finally {
      clearTimeout(timer)
      waiters.delete(wake)
    }
  }
}
