/**
 * The sandbox's HTTP server: one request's way through it, in order (handle):
 * 1. the Host and Origin guard (guard.ts): a request that does not name this sandbox goes no further;
 * 2. its route (routes.ts, the one table of routes and their rules);
 * 3. its caller, the business of its key, if it names one of this sandbox's;
 * 4. the test double (double/test-double.ts): the request recorded, and faulted, where its
 *    route's rules say so;
 * 5. the route run (dispatch): a key checked, the body read, the time the rules give, an
 *    Idempotency-Key honoured, then the handler;
 * 6. the answer sent, and a line of the request log (onRequest) once it is.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { catchUp } from '../billing/billing.js'
import { type Outcome, SANDBOX_KEY } from '../constants.js'
import { type Business, businessIdOf, businessOf, listPackages } from '../domain/business.js'
import type { PackageRecord } from '../domain/records.js'
import type { RequestBody } from '../domain/rules.js'
import { parseFaultRule } from '../double/faults.js'
import { FixturesInvalid, type Seeded, seedFixtures } from '../double/fixtures.js'
import { type Settled, settleLink } from '../double/outcomes.js'
import type { RecordedRequest } from '../double/recorded-requests.js'
import { type FaultControl, TestDouble, type Trail } from '../double/test-double.js'
import { WEBHOOK_METHOD, webhookPath } from '../double/webhook-faults.js'
import { PAYMENT_CREATED } from '../notify/notification.js'
import type { Notifier } from '../notify/notifier.js'
import { openWebhooks, type RunningWebhooks, type WebhookOptions } from '../notify/running.js'
import { pageMethodNotAllowed, pageNotFound, preparePages } from '../pages/customer-pages.js'
import { misdirectedPage } from '../pages/templates.js'
import { sandboxNow } from '../store/clock.js'
import { SERVER_CHECKPOINT_PAGES } from '../store/database.js'
import type { Notice } from '../store/legacy.js'
import { SandboxStore } from '../store/store.js'
import type { RequestContext } from './context.js'
import { Addresses, DEFAULT_LIMITS, limitConnections, type ServerLimits, serverOptions } from './guard.js'
import { answerOnce } from './idempotency.js'
import { serverSecret } from './proof.js'
import { errorReply, HttpError, methodNotAllowed, type Reply } from './reply.js'
import { decodePathSegment, idempotencyKeyOf, loggedPath, methodOf, pathOf, readJsonBody } from './request.js'
import { type Routed, routeOf } from './routes.js'

export interface SandboxOptions {
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
  /** How many connections it keeps and how long it waits for requests (DEFAULT_LIMITS). */
  limits?: Partial<ServerLimits>
  /**
   * Fixtures (double/fixtures.ts) seeded into the first key's business once bound, before any request is
   * answered; `once` skips the names seeded before. Invalid ones: FixturesInvalid, nothing kept,
   * the server closed.
   */
  seed?: { fixtures: unknown; once?: boolean }
  /**
   * Fault rules every business starts with (double/faults.ts; a bad one throws FaultRuleError), and the
   * seed of their `P%` draws (default: a random one, which `faults.list().seed` tells).
   */
  faults?: { rules?: readonly string[]; seed?: number }
  /** Its notifications: endpoints to start with, how it delivers (notify/running.ts). */
  webhooks?: WebhookOptions
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
  /** The fault the request got (`503 x2`, `reset after`, `hang (header)`); undefined for none. */
  fault?: string
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
  /** What the `seed` option seeded. */
  seeded?: Seeded
  /** Fault rules, set, cleared and listed while it runs (double/test-double.ts). */
  faults: FaultControl
  /** What the business of `key` (default: the first key) sent, newest last (`GET /_sandbox/requests`). */
  requests(options?: { key?: string; after?: number; limit?: number }): RecordedRequest[]
  /** Signature keys, endpoints and deliveries (notify/). */
  webhooks: RunningWebhooks
  /** The customer's outcome on a link (whichever business owns it), notified through this sandbox (its faults). */
  settle(linkId: string, outcome: Outcome): Settled | undefined
  /** Stops accepting, closes idle keep-alive sockets, resolves once every connection is closed. */
  close(): Promise<void>
}

/** The first path segment of a customer page: those answer HTML, everything else JSON. */
const isPagePath = (rawUrl: string) => /^\/checkout(?:[/?#]|$)/.test(rawUrl)
class SandboxServer {
  readonly server: http.Server
  /** The business of each key, by the key (hashing the key a request sends cost more than finding it). */
  private readonly callers = new Map<string, Business>()
  private closing: Promise<void> | undefined
  private readonly closeIdle: () => void
  /** The names and port a request may address it by; set once listening. */
  private addresses = new Addresses('127.0.0.1', 0)
  baseUrl = ''

  constructor(
    private readonly store: SandboxStore,
    private readonly keys: string[],
    /** The secret of its directory, with which it proves it is the user's own (proof.ts). */
    private readonly secret: Buffer,
    private readonly checkoutOrigin: string | undefined,
    private readonly onRequest: ((entry: RequestLogEntry) => void) | undefined,
    limits: ServerLimits,
    /** Faults, the recorded requests, and their controls. */
    readonly double: TestDouble,
    private readonly notifier: Notifier,
  ) {
    preparePages(store)
    for (const key of keys) this.callers.set(key, businessOf(key))
    this.server = http.createServer(serverOptions(limits), (request, response) => {
      const trail: Trail = { arrived: Date.now(), started: process.hrtime.bigint() }
      this.notifier.noteRequest()
      if (this.onRequest) this.logWhenDone(request, response, trail)
      this.handle(request, response, trail).catch(() => response.destroy())
    })
    this.closeIdle = limitConnections(this.server, limits.maxConnections, (socket) => double.isHeld(socket))
  }

  async listen(host: string, port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, host, () => {
        this.server.off('error', reject)
        resolve()
      })
    })
    const { port: listening } = this.server.address() as AddressInfo
    this.addresses = new Addresses(host, listening)
    this.baseUrl = this.addresses.baseUrl(host)
  }

  close(): Promise<void> {
    // Requests held by a fault (hang, latency) or waiting for the next recorded request end now.
    this.double.close()
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve())
      this.closeIdle()
      // A client that keeps a request open (a stalled upload) must not hold the close forever.
      setTimeout(() => this.server.closeAllConnections(), 2000).unref()
    })
    return this.closing
  }

  private logWhenDone(request: http.IncomingMessage, response: http.ServerResponse, trail: Trail): void {
    const keys = this.keys
    response.once('close', () => {
      this.onRequest?.({
        method: request.method ?? '',
        // Redacted when read: a log that only counts requests (--quiet) never does.
        get path() {
          return loggedPath(request.url ?? '/', keys)
        },
        status: response.writableFinished ? response.statusCode : undefined,
        ms: Number(process.hrtime.bigint() - trail.started) / 1e6,
        fault: trail.fault,
      })
    })
  }

  private async handle(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    trail: Trail,
  ): Promise<void> {
    let reply: Reply | undefined
    try {
      reply = this.refusal(request)
      if (reply === undefined) {
        const method = methodOf(request)
        const path = pathOf(request.url ?? '/')
        const routed = routeOf(method, path)
        trail.caller = this.callerOf(request)
        reply = await this.double.serve(request, response, trail, {
          route: { method, path, faults: routed.faults, recorded: routed.recorded },
          readBody: () => this.bodyOf(request, trail),
          dispatch: () => this.dispatch(routed, request, trail),
          failed: (error) => errorReply(error, this.store.dir),
        })
      }
    } catch (error) {
      reply = errorReply(error, this.store.dir)
    }
    if (reply) this.send(response, reply)
  }

  /** The request's JSON body, read once (a fault reads it before the dispatch does). */
  private bodyOf(request: http.IncomingMessage, trail: Trail): Promise<RequestBody> {
    trail.reading ??= readJsonBody(request).then((body) => {
      trail.body = body
      return body
    })
    return trail.reading
  }

  /**
   * Before any route: a request must name this sandbox in its Host (421 otherwise: a page of
   * another name rebound to this address), and an API request that a web page of another origin
   * sent is refused (403). The customer pages check the origin of their forms themselves.
   */
  private refusal(request: http.IncomingMessage): Reply | undefined {
    const page = isPagePath(request.url ?? '/')
    // Node keeps the first of several Host lines; a request with more than one names no one host.
    const hosts = request.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'host').length
    if (hosts !== 1 || this.addresses.allowedHost(request.headers.host) === undefined) {
      if (page) return misdirectedPage(this.addresses.describe())
      return {
        status: 421,
        body: {
          message: `Misdirected request: this sandbox answers only requests addressed to it as ${this.addresses.describe()}.`,
        },
        headers: { Connection: 'close' },
      }
    }
    const origin = request.headers.origin
    if (!page && origin !== undefined && !this.addresses.allowedOrigin(origin)) {
      return {
        status: 403,
        body: { message: 'This sandbox does not answer API requests from web pages of another origin.' },
      }
    }
    return undefined
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

  /** Runs the request's route as its rules say (routes.ts); a path or method it lacks is answered 404 or 405. */
  private async dispatch(routed: Routed, request: http.IncomingMessage, trail: Trail): Promise<Reply> {
    if (!routed.route) {
      const { kind, allowed } = routed
      if (kind === 'page') return allowed.length > 0 ? pageMethodNotAllowed(allowed) : pageNotFound()
      throw allowed.length > 0 ? methodNotAllowed(allowed) : new HttpError(404, 'Not found.')
    }
    const { route, segment } = routed
    const rawUrl = request.url ?? '/'
    const queryStart = rawUrl.indexOf('?')
    const context: RequestContext = {
      store: this.store,
      double: this.double,
      notifier: this.notifier,
      secret: this.secret,
      request,
      method: route.method,
      path: pathOf(rawUrl),
      query: new URLSearchParams(queryStart === -1 ? '' : rawUrl.slice(queryStart + 1)),
      segment,
    }
    if (!route.key) return route.handler(context)
    const caller = trail.caller
    if (!caller) throw new HttpError(401, 'Unauthenticated.', {}, { 'WWW-Authenticate': 'Bearer' })
    const body = route.method === 'POST' || route.method === 'PUT' ? await this.bodyOf(request, trail) : {}
    const id = segment === '' ? '' : decodePathSegment(segment)
    if (id === undefined) throw new HttpError(404, 'Not found.')
    // The Host was checked (refusal): one of this sandbox's own names.
    const host = this.addresses.allowedHost(request.headers.host)
    const origin = host === undefined ? this.baseUrl : `http://${host}`
    const checkoutOrigin = this.checkoutOrigin ?? origin
    const answer = () => {
      const now =
        route.time === 'bills'
          ? catchUp(this.store, checkoutOrigin)
          : route.time === 'real-time'
            ? Date.now()
            : sandboxNow(this.store)
      const keyed = { ...context, id, body, origin, checkoutOrigin, now }
      const run = () => (route.scoped ? route.handler({ ...keyed, caller }) : route.handler(keyed))
      const key = route.idempotent ? idempotencyKeyOf(request) : undefined
      if (key === undefined) return run()
      return answerOnce(this.store, { business: caller, key, path: context.path, body }, () => {
        const reply = run()
        // The look-up and the handler's writes are one transaction, which cannot wait for anything.
        if (reply instanceof Promise) throw new TypeError(`POST ${context.path} must answer at once.`)
        return reply
      })
    }
    // The API's writes of a turn of the event loop share one commit, each answered once it is
    // written (store/transactions.ts); a read takes no lock (WAL).
    return route.kind === 'api' && route.method !== 'GET'
      ? this.store.grouped(answer as () => Reply)
      : answer()
  }

  /** The business of the request's key; undefined without one of this sandbox's keys. */
  private callerOf(request: http.IncomingMessage): Business | undefined {
    const authorization = request.headers.authorization
    if (authorization === undefined) return undefined
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization)
    return match ? this.callers.get(match[1]) : undefined
  }
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
  const rules = (options.faults?.rules ?? []).map(parseFaultRule)
  const secret = serverSecret(dir)
  const store = new SandboxStore(dir, SERVER_CHECKPOINT_PAGES)
  const limits = { ...DEFAULT_LIMITS, ...options.limits }
  const double = new TestDouble(keys, businessIdOf, rules, options.faults?.seed, limits.maxHeldRequests)
  const fault = (business: number) =>
    double.faults.pick(business, WEBHOOK_METHOD, webhookPath(PAYMENT_CREATED))
  let webhooks: ReturnType<typeof openWebhooks>
  try {
    webhooks = openWebhooks(store, keys, options.webhooks ?? {}, fault)
  } catch (error) {
    store.close()
    throw error
  }
  const sandbox = new SandboxServer(
    store,
    keys,
    secret,
    options.checkoutOrigin,
    options.onRequest,
    limits,
    double,
    webhooks.notifier,
  )
  try {
    await sandbox.listen(host, port)
  } catch (error) {
    store.close()
    throw error
  }
  // No await between listening and seeding: no request is read before the fixtures are in.
  let seeded: Seeded | undefined
  if (options.seed) {
    const origin = options.checkoutOrigin ?? sandbox.baseUrl
    const done = seedFixtures(store, businessOf(keys[0]), options.seed.fixtures, {
      ...options.seed,
      origin,
    })
    if (!done.ok) {
      await sandbox.close()
      store.close()
      throw new FixturesInvalid(done.errors)
    }
    seeded = done.value
  }
  webhooks.start()
  return {
    baseUrl: sandbox.baseUrl,
    keys,
    packages: Object.fromEntries(keys.map((key) => [key, listPackages(key)])),
    database: store.file,
    notices: store.notices,
    seeded,
    faults: double.control(),
    requests: (options) => double.requests(options),
    webhooks: webhooks.running,
    settle: (linkId, outcome) => settleLink(store, linkId, outcome, undefined, webhooks.notifier),
    close: async () => {
      await sandbox.close()
      await webhooks.notifier.close()
      store.close()
    },
  }
}
