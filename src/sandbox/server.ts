import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { requestTime } from './billing.js'
import { businessIdOf, keyHash, seededPackages } from './business.js'
import { SANDBOX_KEY } from './constants.js'
import { payLink } from './control.js'
import { answerOnce } from './idempotency.js'
import type { Notice } from './legacy.js'
import type { PackageRecord, PaymentLinkRecord } from './records.js'
import { type Caller, HttpError, type Reply, SandboxRoutes } from './routes.js'
import type { RequestBody } from './rules.js'
import { SandboxStore, StoreBusyError, StoreCorruptError, StoreVersionError, setAside } from './store.js'

export const MAX_BODY_BYTES = 1024 * 1024

interface SandboxOptions {
  /** Directory of the store (created 0700 when missing). */
  dir: string
  /** API keys, each its own business. Default: `[SANDBOX_KEY]`. */
  keys?: string[]
  host?: string
  /** 0 picks a free port. */
  port?: number
  /**
   * Origin used in payment_url and activation_url instead of the address the client used:
   * the in-process sandbox listens on a throw-away port but names its well-known address.
   */
  checkoutOrigin?: string
  /** Called once per request, when its answer was sent (or its connection closed without one). */
  onRequest?: (entry: RequestLogEntry) => void
}

/** One request, for the request log: nothing a client sent but the method and a redacted path. */
export interface RequestLogEntry {
  method: string
  /** The path and query, values that may be secrets replaced by [REDACTED] (loggedPath). */
  path: string
  /** The status sent; undefined when the connection closed before an answer was sent. */
  status: number | undefined
  /** From the request's arrival to the last byte of the answer. */
  ms: number
}

export interface RunningSandbox {
  /** `http://host:port`, without a trailing slash. */
  baseUrl: string
  keys: string[]
  /** The seeded packages of each key's business. */
  packages: Record<string, PackageRecord[]>
  /** The database file. */
  database: string
  /** What opening the store did that a person should hear of (an import of an old store). */
  notices: Notice[]
  /** Stops accepting, closes idle keep-alive sockets, resolves once every connection is closed. */
  close(): Promise<void>
}

/** Query parameters whose values the request log shows: paging, and a link's id (the payment page). */
const LOGGED_PARAMETERS = new Set(['page', 'per_page', 'id', 'test'])

const REDACTED = '[REDACTED]'

/**
 * The path and query of a request as the request log shows them: a query value is shown only for
 * the parameters in LOGGED_PARAMETERS, the token of an activation page never, and any part that
 * holds one of the sandbox's API keys (a key pasted in a URL) is replaced as a whole.
 */
export function loggedPath(rawUrl: string, keys: readonly string[]): string {
  const holdsKey = (text: string) => {
    let decoded = text
    try {
      decoded = decodeURIComponent(text.replace(/\+/g, ' '))
    } catch {}
    return keys.some((key) => text.includes(key) || decoded.includes(key))
  }
  const queryStart = rawUrl.indexOf('?')
  const rawPath = queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart)
  const segments = rawPath.split('/').map((segment, i, all) => {
    if (holdsKey(segment)) return REDACTED
    // /checkout/tokens/<token>/activate: the token activates the customer's card.
    if (i === 3 && all[1] === 'checkout' && all[2] === 'tokens' && segment !== '') return REDACTED
    return segment
  })
  if (queryStart === -1) return segments.join('/')
  const query = rawUrl
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const name = equals === -1 ? pair : pair.slice(0, equals)
      if (holdsKey(name)) return REDACTED
      if (equals === -1) return name
      const value = pair.slice(equals + 1)
      let decodedName = name
      try {
        decodedName = decodeURIComponent(name)
      } catch {}
      return LOGGED_PARAMETERS.has(decodedName) && !holdsKey(value) ? pair : `${name}=${REDACTED}`
    })
  return `${segments.join('/')}?${query.join('&')}`
}

const HOST_HEADER = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/

function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0].trim().toLowerCase()
  return mediaType === 'application/json' || mediaType.endsWith('+json')
}

/** Reads the body as a JSON object; no body at all counts as `{}`. */
async function readJsonBody(request: http.IncomingMessage): Promise<RequestBody> {
  const contentType = request.headers['content-type']
  if (contentType !== undefined && !isJsonMediaType(contentType)) {
    throw new HttpError(415, 'The request body must be JSON, sent with Content-Type: application/json.')
  }
  const tooLarge = () =>
    new HttpError(
      413,
      `The request body is larger than ${MAX_BODY_BYTES} bytes.`,
      {},
      { Connection: 'close' },
    )
  if (Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES) throw tooLarge()
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) throw tooLarge()
    chunks.push(chunk)
  }
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
  if (text.trim() === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new HttpError(400, 'Malformed JSON body.')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new HttpError(400, 'The JSON body must be an object.')
  }
  return parsed as RequestBody
}

function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/** `http://` + host as written in a URL: brackets for IPv6, loopback for "any address". */
function urlHostOf(host: string): string {
  if (host === '' || host === '0.0.0.0') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') ? `[${host}]` : host
}

function errorReply(error: unknown): Reply {
  if (error instanceof HttpError) {
    return { status: error.status, body: { message: error.message, ...error.extra }, headers: error.headers }
  }
  if (error instanceof StoreCorruptError || error instanceof StoreVersionError) {
    return { status: 500, body: { message: error.message } }
  }
  if (error instanceof StoreBusyError) {
    return {
      status: 503,
      body: { message: 'The sandbox store is busy; try again.' },
      headers: { 'Retry-After': '1' },
    }
  }
  return {
    status: 500,
    body: { message: `Internal sandbox error: ${(error as Error)?.message ?? String(error)}` },
  }
}

class SandboxServer {
  readonly server: http.Server
  private readonly routes: SandboxRoutes
  private readonly callers = new Map<string, Caller>()
  private closing: Promise<void> | undefined
  baseUrl = ''

  constructor(
    private readonly store: SandboxStore,
    private readonly keys: string[],
    private readonly checkoutOrigin?: string,
    private readonly onRequest?: (entry: RequestLogEntry) => void,
  ) {
    this.routes = new SandboxRoutes(store)
    for (const key of keys) {
      const businessId = businessIdOf(key)
      this.callers.set(keyHash(key), {
        keyHash: keyHash(key),
        businessId,
        packages: seededPackages(businessId),
      })
    }
    this.server = http.createServer((request, response) => {
      if (this.onRequest) this.logWhenDone(request, response)
      this.handle(request, response).catch(() => response.destroy())
    })
  }

  async listen(host: string, port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, host, () => {
        this.server.off('error', reject)
        resolve()
      })
    })
    this.baseUrl = `http://${urlHostOf(host)}:${(this.server.address() as AddressInfo).port}`
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve())
      this.server.closeIdleConnections()
      // A client that keeps a request open (a stalled upload) must not hold the close forever.
      setTimeout(() => this.server.closeAllConnections(), 2000).unref()
    })
    return this.closing
  }

  private logWhenDone(request: http.IncomingMessage, response: http.ServerResponse): void {
    const started = process.hrtime.bigint()
    response.once('close', () => {
      this.onRequest?.({
        method: request.method ?? '',
        path: loggedPath(request.url ?? '/', this.keys),
        status: response.writableFinished ? response.statusCode : undefined,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      })
    })
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    let reply: Reply
    try {
      reply = await this.dispatch(request)
    } catch (error) {
      reply = errorReply(error)
    }
    this.send(response, reply)
  }

  private send(response: http.ServerResponse, { status, body, text: given, headers = {} }: Reply): void {
    if (response.headersSent || response.destroyed) return
    const text = given ?? JSON.stringify(body)
    response.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
      'X-Pay-Sandbox': '1',
      ...(this.closing ? { Connection: 'close' } : {}),
      ...headers,
    })
    response.end(text)
  }

  private async dispatch(request: http.IncomingMessage): Promise<Reply> {
    const rawUrl = request.url ?? '/'
    const queryStart = rawUrl.indexOf('?')
    const rawPath = queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart)
    const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath
    const query = new URLSearchParams(queryStart === -1 ? '' : rawUrl.slice(queryStart + 1))
    const method = request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET')

    if (path === '/_sandbox/health') {
      if (method !== 'GET') throw methodNotAllowed(['GET'])
      return { status: 200, body: { service: 'pay-sandbox' } }
    }
    // The customer's pages are public (no key) and answer HTML: src/sandbox/pages.ts.
    const page = this.routes.pages.match(path)
    if (page) return page({ method, query, request })
    for (const route of this.routes.routes) {
      const match = route.pattern.exec(path)
      if (!match) continue
      const handler = route.methods[method]
      if (!handler) throw methodNotAllowed(Object.keys(route.methods))
      const caller = this.authenticate(request)
      const body = method === 'POST' || method === 'PUT' ? await readJsonBody(request) : {}
      const id = match[1] === undefined ? '' : decodePathSegment(match[1])
      if (id === undefined) throw new HttpError(404, 'Not found.')
      const host = request.headers.host
      const origin = host && HOST_HEADER.test(host) ? `http://${host}` : this.baseUrl
      const checkoutOrigin = this.checkoutOrigin ?? origin
      const now = requestTime(this.store, path, checkoutOrigin)
      const context = { caller, id, query, body, origin, checkoutOrigin, path, now }
      // Idempotency-Key is the API's: the sandbox's own controls (`/_sandbox/…`) are not replayed,
      // and reset, which forgets every key and compacts the file, cannot run inside a transaction.
      const key = method === 'POST' && !path.startsWith('/_sandbox/') ? idempotencyKeyOf(request) : undefined
      if (key === undefined) return handler(context)
      return answerOnce(this.store, { business: caller, key, path, body }, () => {
        const reply = handler(context)
        // The look-up and the handler's writes are one transaction, which cannot wait for anything.
        if (reply instanceof Promise) throw new TypeError(`POST ${path} must answer at once.`)
        return reply
      })
    }
    throw new HttpError(404, 'Not found.')
  }

  private authenticate(request: http.IncomingMessage): Caller {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? '')
    const caller = match ? this.callers.get(keyHash(match[1])) : undefined
    if (!caller) throw new HttpError(401, 'Unauthenticated.', {}, { 'WWW-Authenticate': 'Bearer' })
    return caller
  }
}

/** The Idempotency-Key header of a request; none when absent or blank. */
function idempotencyKeyOf(request: http.IncomingMessage): string | undefined {
  const value = request.headers['idempotency-key']
  const key = (Array.isArray(value) ? value[0] : value)?.trim()
  return key ? key : undefined
}

function methodNotAllowed(allowed: string[]): HttpError {
  const list = allowed.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ')
  return new HttpError(
    405,
    `The method is not supported for this route. Supported methods: ${list}.`,
    {},
    { Allow: list },
  )
}

/** The seeded packages of the business behind `key`. */
export function listPackages(key: string): PackageRecord[] {
  return seededPackages(businessIdOf(key))
}

/** Serves the payment service API from the store in `dir` until `close()`. */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const { dir, host = '127.0.0.1', port = 0 } = options
  const keys = [...new Set(options.keys ?? [SANDBOX_KEY])]
  if (keys.length === 0) throw new TypeError('The sandbox needs at least one API key.')
  for (const key of keys) {
    if (!/^\S+$/.test(key))
      throw new TypeError('A sandbox API key must be non-empty and contain no whitespace.')
  }
  const store = new SandboxStore(dir)
  const sandbox = new SandboxServer(store, keys, options.checkoutOrigin, options.onRequest)
  try {
    await sandbox.listen(host, port)
  } catch (error) {
    store.close()
    throw error
  }
  return {
    baseUrl: sandbox.baseUrl,
    keys,
    packages: Object.fromEntries(keys.map((key) => [key, listPackages(key)])),
    database: store.file,
    notices: store.notices,
    close: async () => {
      await sandbox.close()
      store.close()
    },
  }
}

/**
 * Empties the store in `dir`. A store that cannot be opened (corrupt, or from a newer pay) is set
 * aside first, never deleted: returns where it was kept.
 */
export function resetSandbox(dir: string): { keptAs?: string } {
  let store: SandboxStore
  let keptAs: string | undefined
  try {
    store = new SandboxStore(dir)
  } catch (error) {
    if (!(error instanceof StoreCorruptError || error instanceof StoreVersionError)) throw error
    keptAs = setAside(dir)
    store = new SandboxStore(dir)
  }
  try {
    store.empty()
  } finally {
    store.close()
  }
  return { keptAs }
}

/**
 * Simulates the customer paying link `linkId`, whichever business owns it. Returns the updated
 * record, or undefined when no business has that link. Paying a paid link changes nothing.
 */
export function markLinkPaid(dir: string, linkId: string): PaymentLinkRecord | undefined {
  const store = new SandboxStore(dir)
  try {
    return payLink(store, linkId)
  } finally {
    store.close()
  }
}
