import { type ErrorKind, type FieldErrors, PayError } from '../errors.js'
import { isRecord, type Rec, sanitizeText } from '../values.js'

/**
 * The tolerant reader: the spec (docs/spec/payment-service-api.md) states only the create bodies, so every
 * other answer is accepted in the shapes real services use, and anything else is a clear error.
 */

export function kindForStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'auth'
  if (status === 404) return 'not_found'
  if (status === 422) return 'validation'
  if (status === 408 || status === 429 || status >= 500) return 'unavailable'
  return 'general'
}

const unexpected = (what: string) =>
  new PayError(`Unexpected answer from the service: ${what}.`, {
    kind: 'unavailable',
    hint: 'Run again with --debug to see the exchange.',
  })

/**
 * Deeper than any answer of the service. JSON.parse takes any depth, but printing a value
 * (JSON.stringify, String) recurses and overflows the stack somewhere past a few thousand.
 */
const MAX_JSON_DEPTH = 256

/** Whether objects and arrays in `value` nest deeper than `limit`; without recursion. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]]
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!
    if (typeof current !== 'object' || current === null) continue
    if (depth >= limit) return true
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      // Stryker disable next-line LogicalOperator,ConditionalExpression: only keeps plain values off the stack, which the loop skips anyway
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1])
    }
  }
  return false
}

/** A 2xx body: JSON, or nothing for an empty answer. Anything else is a service failure. */
export function parseBody(
  status: number,
  text: string,
  contentType: string | undefined,
  redact: (text: string) => string = (same) => same,
): unknown {
  if (text.trim() === '') return undefined
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    if (!isHtml(text, contentType)) throw unexpected(`status ${status} with a body that is not JSON`)
    // The title names what answered instead of the service: a captive portal, a proxy's login page.
    const title = htmlTitle(text)
    throw unexpected(
      `status ${status} with ${anHtmlPage(title && sanitizeText(firstLineOfText(redact(title))))}`,
    )
  }
  if (nestedDeeperThan(body, MAX_JSON_DEPTH)) {
    throw unexpected(`status ${status} with JSON nested deeper than ${MAX_JSON_DEPTH} levels`)
  }
  return body
}

/** A 2xx body that may be anything (a delete's): JSON when it parses, else the text; nothing when empty. */
export function parseAnyBody(text: string): unknown {
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Any body as JSON, when it is (and not nested beyond what pay prints): `{value}`, else undefined. */
export function readJson(text: string): { value: unknown } | undefined {
  // Stryker disable next-line MethodExpression,StringLiteral,ConditionalExpression: JSON.parse throws on blank text, and the catch gives the same undefined
  if (text.trim() === '') return undefined
  try {
    const value: unknown = JSON.parse(text)
    return nestedDeeperThan(value, MAX_JSON_DEPTH) ? undefined : { value }
  } catch {
    return undefined
  }
}

function fieldErrors(value: unknown): FieldErrors | undefined {
  if (!isRecord(value)) return undefined
  // No prototype: a field the server names `__proto__` is one more field, not the object's prototype.
  const errors: FieldErrors = Object.create(null)
  for (const [field, messages] of Object.entries(value)) {
    if (Array.isArray(messages))
      errors[field] = messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)))
    else if (typeof messages === 'string') errors[field] = [messages]
  }
  return Object.keys(errors).length > 0 ? errors : undefined
}

function isHtml(text: string, contentType: string | undefined): boolean {
  // Stryker disable next-line StringLiteral: any text without "html" in it is the same
  return /html/i.test(contentType ?? '') || /^\s*</.test(text)
}

const htmlTitle = (text: string) => /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]

const anHtmlPage = (summary: string | undefined) => `an HTML page${summary ? ` (${summary})` : ''}`

function firstLineOfText(text: string): string {
  const title = htmlTitle(text)
  const stripped = (title ?? text.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim()
  return stripped.length > 200 ? `${stripped.slice(0, 200)}…` : stripped
}

/**
 * Any error answer as a PayError: {message, errors}, an envelope with success:false, text or HTML.
 * `redact` hides the API key in text the server sent, before any of it is cut short (a key cut
 * in half would no longer be recognised).
 */
export function errorFromResponse(
  status: number,
  text: string,
  contentType?: string,
  redact: (text: string) => string = (same) => same,
): PayError {
  const kind = kindForStatus(status)
  text = redact(text)
  let body: unknown
  try {
    // Stryker disable next-line MethodExpression,StringLiteral,ConditionalExpression: JSON.parse throws on blank text, and the catch gives the same undefined
    body = text.trim() === '' ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  if (nestedDeeperThan(body, MAX_JSON_DEPTH)) body = undefined
  if (isRecord(body)) {
    const errors = fieldErrors(body.errors)
    let message = typeof body.message === 'string' ? body.message : undefined
    if (message === undefined && isRecord(body.errors) && typeof body.errors.message === 'string') {
      message = body.errors.message
    }
    if (message === undefined && typeof body.error === 'string') message = body.error
    if (message === undefined && isRecord(body.error) && typeof body.error.message === 'string') {
      message = body.error.message
    }
    return new PayError(message ?? defaultMessage(status), { kind, status, errors })
  }
  if (typeof body === 'string' && body.trim() !== '') {
    return new PayError(`The service answered ${status}: ${sanitizeText(firstLineOfText(redact(body)))}`, {
      kind,
      status,
    })
  }
  if (body !== undefined) return new PayError(defaultMessage(status), { kind, status })
  if (text.trim() === '') return new PayError(defaultMessage(status), { kind, status })
  const html = isHtml(text, contentType)
  const summary = sanitizeText(firstLineOfText(text))
  const message = html
    ? `The service answered ${status} with ${anHtmlPage(summary)}.`
    : `The service answered ${status}: ${summary}`
  return new PayError(message, { kind, status })
}

function defaultMessage(status: number): string {
  const known: Record<number, string> = {
    400: 'The service rejected the request as malformed (400).',
    401: 'The API key was not accepted (401).',
    403: 'The API key is not allowed to do this (403).',
    404: 'Not found (404).',
    422: 'The given data was invalid.',
    429: 'Too many requests (429).',
  }
  return known[status] ?? `The service answered ${status}.`
}

function failedEnvelope(body: Rec): PayError {
  const errors = fieldErrors(body.errors)
  const message = typeof body.message === 'string' ? body.message : 'The service reported a failure.'
  return new PayError(message, { kind: errors ? 'validation' : 'general', errors })
}

/** One record: the envelope's data, or the record itself. */
export function readRecord(body: unknown, noun: string): Rec {
  if (isRecord(body) && body.success === false) throw failedEnvelope(body)
  const record = isRecord(body) && 'data' in body ? body.data : body
  if (!isRecord(record)) {
    throw unexpected(`expected a ${noun}, got ${describe(record)}`)
  }
  return record
}

/**
 * The answer to a delete: any 2xx body (an envelope, `{}`, text, nothing) means done,
 * unless it is an envelope that says `success: false`.
 */
export function readDeleted(body: unknown): void {
  if (isRecord(body) && body.success === false) throw failedEnvelope(body)
}

interface Page {
  items: Rec[]
  /** Absolute URL of the next page, when the list is paginated and more exist. */
  next?: string
  /** The envelope's `meta.timestamp` (`YYYY-MM-DD HH:MM:SS UTC`), when it has one. */
  timestamp?: string
}

/** A list: `data: [...]`, a paginated `data: {data, next_page_url, ...}`, or a bare array. */
export function readPage(body: unknown, noun: string): Page {
  if (isRecord(body) && body.success === false) throw failedEnvelope(body)
  let items: unknown = body
  let next: unknown
  if (isRecord(body) && 'data' in body) {
    items = body.data
    next = body.next_page_url ?? (isRecord(body.links) ? body.links.next : undefined)
    if (isRecord(items) && 'data' in items) {
      next = items.next_page_url
      items = items.data
    }
  }
  if (!Array.isArray(items)) throw unexpected(`expected a list of ${noun}s, got ${describe(items)}`)
  const bad = items.findIndex((item) => !isRecord(item))
  if (bad !== -1) throw unexpected(`item ${bad} of the ${noun} list is ${describe(items[bad])}`)
  const timestamp = isRecord(body) && isRecord(body.meta) ? body.meta.timestamp : undefined
  return {
    items: items as Rec[],
    next: typeof next === 'string' && next !== '' ? next : undefined,
    ...(typeof timestamp === 'string' ? { timestamp } : {}),
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'an empty body'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (isRecord(value)) return 'an object without the expected fields'
  return `a ${typeof value}`
}
