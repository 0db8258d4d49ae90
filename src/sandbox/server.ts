import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { businessIdOf, keyHash, seededPackages } from './business.js'
import { SANDBOX_KEY } from './constants.js'
import { payLink } from './control.js'
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
    store: SandboxStore,
    keys: string[],
    private readonly checkoutOrigin?: string,
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
      return handler({ caller, id, query, body, origin, checkoutOrigin: this.checkoutOrigin ?? origin, path })
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
  const sandbox = new SandboxServer(store, keys, options.checkoutOrigin)
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
