import type http from 'node:http'
import { PayError } from '../errors.js'
import { randomUuid } from '../shared/crypto.js'
import type { Method } from '../shared/fields.js'
import { sanitizeText } from '../values.js'
import { checkBaseUrl, urlUnder } from './base-url.js'
import { ACCEPT_ENCODING, MAX_RESPONSE_BYTES, readBody } from './body.js'
import { failures, UNPROVEN_CONNECTION } from './failures.js'
import { errorFromResponse, parseAnyBody, parseBody } from './reader.js'
import { debugBody, Redactor, SECRET_HEADER } from './redact.js'
import {
  carriesIdempotencyKey,
  RETRY_POLICY,
  type RetryLimits,
  retriesFor,
  retryableConnection,
  retryableStatus,
  retryWait,
} from './retry.js'
import { exchangeOnce, WireError, type WireResponse } from './wire.js'

/**
 * One request to the service and its retries: the key sent only to the base URL (base-url.ts),
 * the retry policy (retry.ts), the body read within its cap (body.ts), the key redacted from
 * all that comes back (redact.ts), the --debug trace.
 */

export interface TransportOptions {
  baseUrl: string
  apiKey: string
  /** Bounds all the HTTP work of one request, retries included. */
  timeoutMs: number
  userAgent: string
  /** Receives --debug trace lines (already free of secrets). */
  debug?: (line: string) => void
  /** Retries after the first attempt, for GET/PUT/DELETE. */
  retryLimit?: number
  /** First backoff delay; doubles per retry. */
  retryBaseMs?: number
  /** Longest wait a Retry-After header may ask for. */
  retryAfterCapMs?: number
  /** Largest answer read, in bytes once decoded (MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number
  /** Makes the connections (the user's sandbox: each proved before it is used); Node's own by default. */
  agent?: http.Agent
}

interface ApiResponse {
  status: number
  /** Parsed JSON, or undefined for an empty body (204); with `anyBody`, text that is not JSON. */
  body: unknown
}

/** An answer whatever its status, as `pay api` shows it. The key is redacted from all of it. */
export interface RawResponse {
  status: number
  statusMessage: string
  httpVersion: string
  /** Header names and values as they came, in order. */
  headers: [string, string][]
  contentType?: string
  /** The body as text. */
  text: string
}

interface SendOptions {
  /** The Idempotency-Key of a POST or PATCH (one is made up when not given). */
  idempotencyKey?: string
  /**
   * Accept a 2xx body that is not JSON (returned as text) instead of failing: for answers
   * whose body carries nothing the command needs, such as a delete.
   */
  anyBody?: boolean
}

export interface RawRequestOptions {
  /** The body, sent exactly as given (JSON text). */
  body?: string
  /** Headers to send besides pay's own (which they may replace), never Authorization. */
  headers?: Record<string, string>
  idempotencyKey?: string
}

/** Headers a caller may not set: the key goes only where pay sends it, and HTTP framing is Node's. */
const RESERVED_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
])

export const isReservedHeader = (name: string) => RESERVED_HEADERS.has(name.toLowerCase())

const DEBUG_RESPONSE_HEADERS = ['content-type', 'content-length', 'retry-after', 'location', 'x-request-id']

export class Transport {
  readonly origin: string
  private readonly base: string
  private readonly options: Required<
    Omit<TransportOptions, 'debug' | 'retryLimit' | 'retryBaseMs' | 'retryAfterCapMs' | 'agent'>
  > &
    Pick<TransportOptions, 'debug' | 'agent'>
  /** The retry policy's numbers for this client (RETRY_POLICY unless set). */
  private readonly limits: RetryLimits
  private readonly redactor: Redactor
  /** The key, wherever a server echoed it into text pay would print, as [REDACTED]. */
  readonly redact: (text: string) => string

  constructor(options: TransportOptions) {
    const url = checkBaseUrl(options.baseUrl)
    this.origin = url.origin
    this.base = url.href.replace(/\/+$/, '')
    const { retryLimit, retryBaseMs, retryAfterCapMs, ...rest } = options
    this.options = { maxResponseBytes: MAX_RESPONSE_BYTES, ...rest }
    this.limits = {
      limit: retryLimit ?? RETRY_POLICY.limit,
      baseMs: retryBaseMs ?? RETRY_POLICY.baseMs,
      retryAfterCapMs: retryAfterCapMs ?? RETRY_POLICY.retryAfterCapMs,
    }
    this.redactor = new Redactor(options.apiKey)
    this.redact = this.redactor.text
  }

  /** Absolute URL for an API path, or a URL the service handed out (next page), if same origin. */
  url(pathOrUrl: string): string {
    return urlUnder(this.base, this.origin, pathOrUrl)
  }

  async send(
    method: Method,
    pathOrUrl: string,
    body?: unknown,
    options: SendOptions = {},
  ): Promise<ApiResponse> {
    try {
      const payload = body === undefined ? undefined : JSON.stringify(body)
      const response = await this.exchange(method, pathOrUrl, payload, options)
      const { status, text, contentType } = response
      if (status >= 200 && status < 300) {
        if (options.anyBody) return { status, body: this.redactValue(parseAnyBody(text), text) }
        return { status, body: this.redactValue(parseBody(status, text, contentType), text) }
      }
      throw errorFromResponse(status, text, contentType, this.redact)
    } catch (error) {
      throw this.redactor.error(error)
    }
  }

  /**
   * Any request, with the same key, deadline, retries (idempotent methods only), redirect refusal
   * and --debug trace as every other; the answer whatever its status, once retries are spent.
   */
  async request(method: Method, pathOrUrl: string, options: RawRequestOptions = {}): Promise<RawResponse> {
    try {
      return await this.exchange(method, pathOrUrl, options.body, options)
    } catch (error) {
      throw this.redactor.error(error)
    }
  }

  /**
   * One request and its retries: the last answer (any status but a redirect, which is refused),
   * with the key redacted from its text and headers. Connection failures and the deadline throw.
   */
  private async exchange(
    method: Method,
    pathOrUrl: string,
    payload: string | undefined,
    options: SendOptions & { headers?: Record<string, string> },
  ): Promise<RawResponse> {
    const url = this.url(pathOrUrl)
    const deadline = Date.now() + this.options.timeoutMs
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/json',
      // No key (the account's sign-in, which gives a token): no Authorization at all.
      ...(this.options.apiKey === '' ? {} : { authorization: `Bearer ${this.options.apiKey}` }),
      'user-agent': this.options.userAgent,
    }
    if (carriesIdempotencyKey(method)) headers['idempotency-key'] = options.idempotencyKey ?? randomUuid()
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (isReservedHeader(name)) {
        throw new PayError(`The ${name} header is pay's to set.`, { kind: 'usage' })
      }
      headers[name.toLowerCase()] = value
    }
    const retries = retriesFor(method, this.limits)

    for (let attempt = 0; ; attempt += 1) {
      const remaining = deadline - Date.now()
      if (remaining <= 0) throw failures.timedOut(this.origin, this.options.timeoutMs)
      this.trace(`> ${method} ${url}`)
      for (const [name, value] of Object.entries(headers)) {
        if (name === 'authorization') this.trace('> authorization: Bearer [REDACTED]')
        else this.trace(`> ${name}: ${SECRET_HEADER.test(name) ? '[REDACTED]' : sanitizeText(value)}`)
      }
      if (payload !== undefined) this.traceBody('>', payload)
      const started = Date.now()
      let response: WireResponse & { text: string }
      let failure: PayError
      const cap = this.options.maxResponseBytes
      try {
        // Decoded here, with a limit on the decoded size (readBody).
        const raw = await exchangeOnce(url, {
          method,
          headers: { 'accept-encoding': ACCEPT_ENCODING, ...headers },
          body: payload,
          timeoutMs: remaining,
          maxBytes: cap,
          agent: this.options.agent,
        })
        response = { ...raw, text: readBody(raw.body, header(raw.headers['content-encoding']), cap) }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? ''
        if (code === 'TOO_LARGE' || code === 'ERR_BUFFER_TOO_LARGE') {
          this.trace(
            `< an answer over ${cap / 1024 / 1024} MB, not read further (${Date.now() - started} ms)`,
          )
          throw failures.tooLarge(this.origin, cap)
        }
        if (error instanceof PayError) throw error
        // The status line arrived, then the connection closed mid-body.
        const cutOff = error instanceof WireError && error.cutOff
        this.trace(
          `< ${code || 'error'}${cutOff ? ' (answer cut off)' : ''} after ${Date.now() - started} ms`,
        )
        if (code === 'ETIMEDOUT' && Date.now() >= deadline - 5)
          throw failures.timedOut(this.origin, this.options.timeoutMs)
        if (code === UNPROVEN_CONNECTION) throw failures.unproven(this.origin)
        failure = cutOff ? failures.cutOff(this.origin) : failures.connection(this.origin, code)
        if (attempt >= retries || !retryableConnection(code)) throw failure
        const wait = retryWait(attempt, undefined, deadline, this.limits)
        if (wait === undefined) throw failure
        await this.pause(attempt, wait)
        continue
      }

      const status = response.statusCode
      this.trace(`< ${status} ${response.statusMessage ?? ''} (${Date.now() - started} ms)`.trimEnd())
      for (const name of DEBUG_RESPONSE_HEADERS) {
        const value = response.headers[name]
        if (value !== undefined) this.trace(`< ${name}: ${sanitizeText(String(value))}`)
      }
      this.traceBody('<', response.text)
      if (status >= 300 && status < 400)
        throw failures.redirected(this.base, status, response.headers.location)
      const answer = this.answer(response)
      if (attempt >= retries || !retryableStatus(status)) return answer
      const wait = retryWait(attempt, header(response.headers['retry-after']), deadline, this.limits)
      if (wait === undefined) return answer
      await this.pause(attempt, wait)
    }
  }

  /** A response as pay keeps it: the key redacted from the body, the status line and the headers. */
  private answer(response: WireResponse & { text: string }): RawResponse {
    const headers: [string, string][] = []
    const raw = response.rawHeaders
    for (let i = 0; i + 1 < raw.length; i += 2) headers.push([this.redact(raw[i]), this.redact(raw[i + 1])])
    const contentType = header(response.headers['content-type'])
    return {
      status: response.statusCode,
      statusMessage: this.redact(response.statusMessage ?? ''),
      httpVersion: response.httpVersion,
      headers,
      contentType: contentType === undefined ? undefined : this.redact(contentType),
      text: this.redact(response.text),
    }
  }

  private async pause(attempt: number, wait: number) {
    this.trace(`retrying in ${wait} ms (attempt ${attempt + 2} of ${this.limits.limit + 1})`)
    await new Promise((resolve) => setTimeout(resolve, wait))
  }

  private trace(line: string) {
    this.options.debug?.(this.redact(line))
  }

  /** A body in the --debug trace: pretty JSON, secrets redacted, cut past 4 KB. */
  private traceBody(direction: '>' | '<', text: string) {
    if (!this.options.debug || text === '') return
    for (const line of debugBody(this.redact(text)).split('\n'))
      this.trace(`${direction} ${sanitizeText(line)}`)
  }

  /** The same error with the key redacted from its texts and its Idempotency-Key (Redactor.error). */
  redactError(error: unknown): unknown {
    return this.redactor.error(error)
  }

  /** A parsed JSON value with the key redacted from its strings (Redactor.value). */
  redactValue(value: unknown, source?: string): unknown {
    return this.redactor.value(value, source)
  }
}

/** A header's value as one string (Node gives a list for a header sent more than once). */
function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}
