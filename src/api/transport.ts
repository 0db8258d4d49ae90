import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import type Zlib from 'node:zlib'
import type { Got, Response } from 'got'
import { PayError } from '../errors.js'
import { sanitizeText } from '../values.js'
import { errorFromResponse, parseAnyBody, parseBody } from './reader.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** Methods that may be sent again (RFC 9110 idempotent): retried on transient failures. */
const IDEMPOTENT = new Set<Method>(['GET', 'PUT', 'DELETE'])
/** Methods that carry an Idempotency-Key and are sent once: they may have acted before failing. */
export const carriesIdempotencyKey = (method: Method) => method === 'POST' || method === 'PATCH'

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
}

/**
 * The largest answer pay reads: 50 MB, far beyond a page of any real service. Past it the answer
 * is dropped (exit 6), so a hostile or broken server cannot make pay hold unbounded memory.
 * Counted on the decoded body: a small gzip body that would inflate past it is stopped too.
 */
export const MAX_RESPONSE_BYTES = 50 * 1024 * 1024

/** The encodings pay asks for, as got did when it decoded answers itself. */
const ACCEPT_ENCODING = 'gzip, deflate, br'

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

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504])
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
])
/** OpenSSL's verdicts on a server certificate, as pay words them (never retried). */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'is self-signed and not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'chains to a self-signed certificate that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'comes from an issuer that is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'could not be verified',
  CERT_HAS_EXPIRED: 'has expired',
  CERT_NOT_YET_VALID: 'is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'is not for this host name',
}
/** Connection errors that mean the request never left: nothing can have been created. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'])
const DEBUG_RESPONSE_HEADERS = ['content-type', 'content-length', 'retry-after', 'location', 'x-request-id']

/** Request headers a --debug trace shows as [REDACTED]: credentials, cookies, anything named like a secret. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie)$|token|secret|password|api-?key|session/i

/** Headers a caller may not set: the key goes only where pay sends it, and HTTP framing is got's. */
const RESERVED_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
])

export const isReservedHeader = (name: string) => RESERVED_HEADERS.has(name.toLowerCase())

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

const isLoopback = (host: string) => LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host)

/** A base URL the key may be sent to: https anywhere, http only to this machine. */
export function checkBaseUrl(baseUrl: string): URL {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new PayError(`The base URL "${baseUrl}" is not a valid URL.`, {
      kind: 'usage',
      hint: 'Give it as https://host[/path] with --base-url, PAY_BASE_URL or `pay login --base-url`.',
    })
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new PayError(`The base URL "${url.origin}${url.pathname}…" carries a user, query or fragment.`, {
      kind: 'usage',
      hint: 'Give it as https://host[/path]: the API key is the only credential pay sends.',
    })
  }
  if (url.protocol === 'https:') return url
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return url
  if (url.protocol === 'http:') {
    throw new PayError(`Refusing to send the API key over plain http to ${url.host}.`, {
      kind: 'usage',
      hint: 'Use an https:// base URL; http:// is allowed only for loopback addresses (127.0.0.1, localhost).',
    })
  }
  throw new PayError(`The base URL "${baseUrl}" must start with https:// (or http:// for loopback).`, {
    kind: 'usage',
  })
}

let gotModule: Got | undefined

export class Transport {
  readonly origin: string
  private readonly base: string
  private readonly options: Required<Omit<TransportOptions, 'debug'>> & Pick<TransportOptions, 'debug'>

  constructor(options: TransportOptions) {
    const url = checkBaseUrl(options.baseUrl)
    this.origin = url.origin
    this.base = url.href.replace(/\/+$/, '')
    this.options = {
      retryLimit: 2,
      retryBaseMs: 250,
      retryAfterCapMs: 5000,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      ...options,
    }
  }

  /** Absolute URL for an API path, or a URL the service handed out (next page), if same origin. */
  url(pathOrUrl: string): string {
    if (!/^https?:\/\//i.test(pathOrUrl)) return `${this.base}${pathOrUrl}`
    const url = new URL(pathOrUrl)
    if (url.origin !== this.origin) {
      throw new PayError(`The service pointed to ${url.origin}, outside ${this.origin}; not following it.`, {
        kind: 'unavailable',
        hint: 'The API key is only ever sent to the base URL of the profile.',
      })
    }
    return url.href
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
      throw this.scrub(error)
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
      throw this.scrub(error)
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
    const got = await loadGot()
    const deadline = Date.now() + this.options.timeoutMs
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: `Bearer ${this.options.apiKey}`,
      'user-agent': this.options.userAgent,
    }
    if (carriesIdempotencyKey(method)) headers['idempotency-key'] = options.idempotencyKey ?? randomUUID()
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (isReservedHeader(name)) {
        throw new PayError(`The ${name} header is pay's to set.`, { kind: 'usage' })
      }
      headers[name.toLowerCase()] = value
    }
    const retries = IDEMPOTENT.has(method) ? this.options.retryLimit : 0

    for (let attempt = 0; ; attempt += 1) {
      const remaining = deadline - Date.now()
      if (remaining <= 0) throw this.timedOut()
      this.trace(`> ${method} ${url}`)
      for (const [name, value] of Object.entries(headers)) {
        if (name === 'authorization') this.trace('> authorization: Bearer [REDACTED]')
        else this.trace(`> ${name}: ${SECRET_HEADER.test(name) ? '[REDACTED]' : sanitizeText(value)}`)
      }
      if (payload !== undefined) this.traceBody('>', payload)
      const started = Date.now()
      let response: Response<string> | undefined
      let failure: PayError
      const cap = this.options.maxResponseBytes
      let tooLarge = false
      try {
        // Decoded here rather than by got, with a limit on the decoded size (readBody).
        const request = got(url, {
          method,
          headers: { 'accept-encoding': ACCEPT_ENCODING, ...headers },
          body: payload,
          throwHttpErrors: false,
          followRedirect: false,
          retry: { limit: 0 },
          timeout: { request: remaining },
          decompress: false,
          responseType: 'buffer',
        })
        const stop = () => {
          tooLarge = true
          request.cancel()
        }
        request.on('response', (answer: { headers: Record<string, string | string[] | undefined> }) => {
          if (Number(answer.headers['content-length']) > cap) stop()
        })
        request.on('downloadProgress', ({ transferred }: { transferred: number }) => {
          if (transferred > cap) stop()
        })
        const raw = await request
        response = Object.assign(raw, {
          body: readBody(raw.body, raw.headers['content-encoding'], cap),
        })
      } catch (error) {
        if (tooLarge || (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
          this.trace(
            `< an answer over ${cap / 1024 / 1024} MB, not read further (${Date.now() - started} ms)`,
          )
          throw this.tooLarge()
        }
        if (error instanceof PayError) throw error
        const code = (error as NodeJS.ErrnoException).code ?? ''
        // got's ReadError: the status line arrived, then the connection closed mid-body.
        const cutOff = (error as { name?: string }).name === 'ReadError'
        this.trace(
          `< ${code || 'error'}${cutOff ? ' (answer cut off)' : ''} after ${Date.now() - started} ms`,
        )
        if (code === 'ETIMEDOUT' && Date.now() >= deadline - 5) throw this.timedOut()
        failure = cutOff ? this.cutOff() : this.connectionError(code)
        if (attempt >= retries || !(CONNECTION_ERRORS.has(code) || code === 'ETIMEDOUT')) throw failure
        await this.backoff(attempt, undefined, deadline, failure)
        continue
      }

      const status = response.statusCode
      this.trace(`< ${status} ${response.statusMessage ?? ''} (${Date.now() - started} ms)`.trimEnd())
      for (const name of DEBUG_RESPONSE_HEADERS) {
        const value = response.headers[name]
        if (value !== undefined) this.trace(`< ${name}: ${sanitizeText(String(value))}`)
      }
      this.traceBody('<', response.body)
      if (status >= 300 && status < 400) throw this.redirected(status, response.headers.location)
      const answer = this.answer(response)
      if (attempt >= retries || !RETRYABLE_STATUS.has(status)) return answer
      const wait = this.retryWait(attempt, response.headers['retry-after'], deadline)
      if (wait === undefined) return answer
      await this.pause(attempt, wait)
    }
  }

  /** A response as pay keeps it: the key redacted from the body, the status line and the headers. */
  private answer(response: Response<string>): RawResponse {
    const headers: [string, string][] = []
    const raw = response.rawHeaders
    for (let i = 0; i + 1 < raw.length; i += 2) headers.push([this.redact(raw[i]), this.redact(raw[i + 1])])
    const contentType = response.headers['content-type']
    return {
      status: response.statusCode,
      statusMessage: this.redact(response.statusMessage ?? ''),
      httpVersion: response.httpVersion,
      headers,
      contentType: contentType === undefined ? undefined : this.redact(contentType),
      text: this.redact(response.body),
    }
  }

  /** Waits before retrying after a connection failure, or throws it when the deadline would pass. */
  private async backoff(
    attempt: number,
    retryAfter: string | undefined,
    deadline: number,
    failure: PayError,
  ) {
    const wait = this.retryWait(attempt, retryAfter, deadline)
    if (wait === undefined) throw failure
    await this.pause(attempt, wait)
  }

  /** How long to wait before the next attempt; undefined when that would pass the deadline. */
  private retryWait(attempt: number, retryAfter: string | undefined, deadline: number): number | undefined {
    const asked = parseRetryAfter(retryAfter)
    const wait =
      asked === undefined
        ? this.options.retryBaseMs * 2 ** attempt
        : Math.min(asked, this.options.retryAfterCapMs)
    return Date.now() + wait >= deadline ? undefined : wait
  }

  private async pause(attempt: number, wait: number) {
    this.trace(`retrying in ${wait} ms (attempt ${attempt + 2} of ${this.options.retryLimit + 1})`)
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

  /**
   * A parsed JSON value with the key redacted from its strings: a body can hold the key written
   * with \u escapes, which only parsing reveals.
   */
  redactValue(value: unknown, source?: string): unknown {
    // Without a backslash in its text, a body's strings are its text's, already redacted.
    if (source !== undefined && !source.includes('\\')) return value
    const key = this.options.apiKey
    const text = JSON.stringify(value)
    if (key.length < 4 || text === undefined || !text.includes(key)) return value
    return JSON.parse(text.split(key).join('[REDACTED]'))
  }

  /**
   * The key, wherever a server echoed it into text pay would print, as [REDACTED]. Also for
   * text taken out of a body (a JSON string's escapes can spell the key).
   */
  readonly redact = (text: string): string => {
    const key = this.options.apiKey
    return key.length >= 4 && text.includes(key) ? text.split(key).join('[REDACTED]') : text
  }

  /** The same error with the key redacted from its text, if a server echoed it there. */
  private scrub(error: unknown): unknown {
    if (!(error instanceof PayError)) return error
    const key = this.options.apiKey
    const texts = [error.message, error.hint ?? '', ...Object.entries(error.errors ?? {}).flat(2)]
    if (!texts.some((text) => text.includes(key))) return error
    const errors = error.errors
      ? Object.fromEntries(
          Object.entries(error.errors).map(([field, messages]) => [
            this.redact(field),
            messages.map((m) => this.redact(m)),
          ]),
        )
      : undefined
    return new PayError(this.redact(error.message), {
      kind: error.kind,
      status: error.status,
      errors,
      hint: error.hint && this.redact(error.hint),
    })
  }

  private timedOut(): PayError {
    const seconds = this.options.timeoutMs / 1000
    return new PayError(`No answer from ${this.origin} within ${seconds} s.`, {
      kind: 'unavailable',
      hint: 'Raise the limit with --timeout SECONDS (or PAY_TIMEOUT) if the service is just slow.',
    })
  }

  private connectionError(code: string): PayError {
    const reasons: Record<string, string> = {
      ECONNREFUSED: 'connection refused',
      ECONNRESET: 'the connection was reset',
      EPIPE: 'the connection was closed',
      ENOTFOUND: 'host not found',
      EAI_AGAIN: 'name lookup failed',
      EHOSTUNREACH: 'host unreachable',
      ETIMEDOUT: 'the connection timed out',
    }
    const certificate = CERTIFICATE_PROBLEMS[code]
    if (certificate) {
      return new PayError(`Could not reach ${this.origin}: its TLS certificate ${certificate}.`, {
        kind: 'unavailable',
        hint: 'If the service uses a private certificate authority, point NODE_EXTRA_CA_CERTS at its certificate.',
        unsent: true,
      })
    }
    return new PayError(`Could not reach ${this.origin}: ${reasons[code] ?? (code || 'network error')}.`, {
      kind: 'unavailable',
      unsent: NEVER_SENT.has(code),
    })
  }

  private tooLarge(): PayError {
    const limit = `${this.options.maxResponseBytes / 1024 / 1024} MB`
    return new PayError(`The answer from ${this.origin} is larger than ${limit}: pay stopped reading it.`, {
      kind: 'unavailable',
      hint: `pay reads at most ${limit} of one answer; no page of a real service is that large.`,
    })
  }

  private cutOff(): PayError {
    return new PayError(`The answer from ${this.origin} was cut off: the connection closed before its end.`, {
      kind: 'unavailable',
    })
  }

  private redirected(status: number, location: string | undefined): PayError {
    let where = ''
    try {
      if (location) where = ` to ${new URL(location, this.base).origin}`
    } catch {}
    return new PayError(
      `The service answered ${status} with a redirect${where}; pay does not follow redirects.`,
      {
        kind: 'unavailable',
        hint: 'Redirects would carry the API key elsewhere. Check the base URL of the profile.',
      },
    )
  }
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

/** Longest body a --debug trace shows. */
const DEBUG_BODY_LIMIT = 4096
/** Fields whose values a --debug trace never shows (and those values wherever else they appear). */
const SECRET_FIELD = /(^|_)(token|secret|password|api_?key|authorization)$/i

/** A body as the --debug trace shows it: JSON pretty-printed with secrets redacted, cut past 4 KB. */
function debugBody(text: string): string {
  let shown = text
  try {
    const secrets = new Set<string>()
    const parsed = JSON.parse(text, (key, value) => {
      if (SECRET_FIELD.test(key) && typeof value === 'string' && value !== '') {
        secrets.add(value)
        return '[REDACTED]'
      }
      return value
    })
    shown = JSON.stringify(parsed, null, 2)
    // The same secret inside another field (a token in an activation URL) is hidden too.
    for (const secret of secrets) if (secret.length >= 4) shown = shown.split(secret).join('[REDACTED]')
  } catch {
    // not JSON: shown as it came
  }
  if (shown.length <= DEBUG_BODY_LIMIT) return shown
  return `${shown.slice(0, DEBUG_BODY_LIMIT)}\n… (${shown.length - DEBUG_BODY_LIMIT} more characters not shown)`
}

/** Decoders of the encodings pay asks for, by name; deflate as zlib data or raw, as servers send it. */
type Decode = (body: Buffer, options: { maxOutputLength: number }) => Buffer

function decoderFor(coding: string): Decode | undefined {
  // Through require: got has loaded node:zlib already (a dynamic import() cannot run in the bundle).
  const zlib = createRequire(import.meta.url)('node:zlib') as typeof Zlib
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.gunzipSync
  if (coding === 'br') return zlib.brotliDecompressSync
  if (coding !== 'deflate') return undefined
  return (body, options) => {
    try {
      return zlib.inflateSync(body, options)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error
      return zlib.inflateRawSync(body, options)
    }
  }
}

/**
 * A body as text, decoded from its Content-Encoding (the last applied first) to at most `cap`
 * bytes: past that zlib stops with ERR_BUFFER_TOO_LARGE. An encoding pay did not ask for, or
 * data that does not decode, is the service failing.
 */
function readBody(body: Buffer, contentEncoding: string | undefined, cap: number): string {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
  let decoded = body
  for (const coding of codings.reverse()) {
    const decode = decoderFor(coding)
    const what = `an answer encoded as "${sanitizeText(coding.slice(0, 40))}"`
    if (!decode) {
      throw new PayError(`Unexpected answer from the service: ${what}, which pay did not ask for.`, {
        kind: 'unavailable',
      })
    }
    try {
      decoded = decode(decoded, { maxOutputLength: cap })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error
      throw new PayError(`Unexpected answer from the service: ${what} that does not decode.`, {
        kind: 'unavailable',
      })
    }
  }
  return decoded.toString('utf8')
}

async function loadGot(): Promise<Got> {
  gotModule ??= (await import('got')).default
  return gotModule
}
