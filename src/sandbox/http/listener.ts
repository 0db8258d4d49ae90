/**
 * The sandbox's HTTP listener: one request's way through it, in order (handle):
 * 1. the Host and Origin guard (guard.ts): a request that does not name this sandbox goes no further;
 * 2. its route (routes.ts, the one table of routes and their rules), under `/api` as well as at the
 *    root (underApi);
 * 3. its caller, the business of its key, if it names one of this sandbox's;
 * 4. the test double (handlers/double/test-double.ts): the request recorded, and faulted, where its
 *    route's rules say so;
 * 5. the route run (dispatch): a key checked (or the account's access token), the body read, the
 *    time the rules give, an Idempotency-Key honoured, then the handler;
 * 6. the answer sent, and a line of the request log (onRequest) once it is.
 * What it serves is assembled by server.ts (startSandbox).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Account, type AccountBusiness, accountBusinesses, isAccessToken } from '../domain/account.js'
import { Refusal, type Reply } from '../domain/answers.js'
import { type Business, businessOf } from '../domain/business.js'
import type { Payments } from '../domain/payment.js'
import type { RequestBody } from '../domain/rules.js'
import { catchUp } from '../handlers/billing/billing.js'
import type { TestDouble, Trail } from '../handlers/double/test-double.js'
import type { Notifier } from '../handlers/notify/notifier.js'
import { pageMethodNotAllowed, pageNotFound } from '../handlers/pages/templates.js'
import { sandboxNow } from '../store/clock.js'
import type { SandboxStore } from '../store/store.js'
import type { ServedRequest } from './context.js'
import { Addresses, limitConnections, refusal, type ServerLimits, serverOptions } from './guard.js'
import { answerOnce } from './idempotency.js'
import { allowHeader, errorReply, methodNotAllowed } from './reply.js'
import {
  decodePathSegment,
  idempotencyKeyOf,
  loggedPath,
  methodOf,
  pathOf,
  readJsonBody,
  underApi,
} from './request.js'
import { type Routed, routeOf } from './route-match.js'
import type { Route } from './routes.js'

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

/** What the listener serves: the parts server.ts assembles. */
export interface SandboxParts {
  store: SandboxStore
  keys: string[]
  /** The secret of its directory, with which it proves it is the user's own (proof.ts). */
  secret: Buffer
  /** The payment transition on the store, with the notifications subscribed to it. */
  payments: Payments
  /** Faults, the recorded requests, and their controls. */
  double: TestDouble
  notifier: Notifier
  /** The account a shop signs in with (`POST /auth/sign-in`): its businesses are those of the keys. */
  account: Account
  checkoutOrigin: string | undefined
  onRequest: ((entry: RequestLogEntry) => void) | undefined
}

export class SandboxServer {
  readonly server: http.Server
  /** The business of each key, by the key (hashing the key a request sends cost more than finding it). */
  private readonly callers = new Map<string, Business>()
  /** The account's businesses, one per key. */
  private readonly businesses: readonly AccountBusiness[]
  private closing: Promise<void> | undefined
  private readonly closeIdle: () => void
  /** The names and port a request may address it by; set once listening. */
  private addresses = new Addresses('127.0.0.1', 0)
  baseUrl = ''

  constructor(
    private readonly served: SandboxParts,
    limits: ServerLimits,
  ) {
    for (const key of served.keys) this.callers.set(key, businessOf(key))
    this.businesses = accountBusinesses(served.keys)
    this.server = http.createServer(serverOptions(limits), (request, response) => {
      const trail: Trail = { arrived: Date.now(), started: process.hrtime.bigint() }
      served.notifier.noteRequest()
      if (served.onRequest) this.logWhenDone(request, response, trail)
      this.handle(request, response, trail).catch(() => response.destroy())
    })
    this.closeIdle = limitConnections(this.server, limits.maxConnections, (socket) =>
      served.double.isHeld(socket),
    )
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
    this.served.double.close()
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve())
      this.closeIdle()
      // A client that keeps a request open (a stalled upload) must not hold the close forever.
      setTimeout(() => this.server.closeAllConnections(), 2000).unref()
    })
    return this.closing
  }

  private logWhenDone(request: http.IncomingMessage, response: http.ServerResponse, trail: Trail): void {
    const { keys, onRequest } = this.served
    response.once('close', () => {
      onRequest?.({
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
    const { store, double } = this.served
    let reply: Reply | undefined
    try {
      reply = refusal(request, this.addresses)
      if (reply === undefined) {
        const method = methodOf(request)
        const { path } = underApi(pathOf(request.url ?? '/'))
        const routed = routeOf(method, path)
        trail.caller = this.callerOf(request)
        reply = await double.serve(request, response, trail, {
          route: { method, path, faults: routed.faults, recorded: routed.recorded },
          readBody: () => this.bodyOf(request, trail),
          dispatch: () => this.dispatch(routed, request, trail),
          failed: (error) => errorReply(error, store.dir),
        })
      }
    } catch (error) {
      reply = errorReply(error, store.dir)
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
      if (kind === 'page')
        return allowed.length > 0 ? pageMethodNotAllowed(allowHeader(allowed)) : pageNotFound()
      throw allowed.length > 0 ? methodNotAllowed(allowed) : new Refusal(404, 'Not found.')
    }
    const { store, payments, double, notifier, secret } = this.served
    const { route, segment } = routed
    const rawUrl = request.url ?? '/'
    const queryStart = rawUrl.indexOf('?')
    const context: ServedRequest = {
      store,
      payments,
      double,
      notifier,
      secret,
      request,
      method: route.method,
      ...underApi(pathOf(rawUrl)),
      query: new URLSearchParams(queryStart === -1 ? '' : rawUrl.slice(queryStart + 1)),
      segment,
    }
    if (route.account) return this.dispatchAccount(route, context, routed.segments, trail)
    if (!route.key) return route.handler(context)
    const caller = trail.caller
    if (!caller) throw unauthenticated()
    const body = route.readsBody ? await this.bodyOf(request, trail) : {}
    const id = segment === '' ? '' : decodePathSegment(segment)
    if (id === undefined) throw new Refusal(404, 'Not found.')
    const params = decodedParams(routed.segments)
    // The Host was checked (refusal): one of this sandbox's own names.
    const host = this.addresses.allowedHost(request.headers.host)
    const origin = host === undefined ? this.baseUrl : `http://${host}`
    const checkoutOrigin = this.served.checkoutOrigin ?? origin
    const answer = () => {
      const now =
        route.time === 'bills'
          ? catchUp(store, checkoutOrigin)
          : route.time === 'real-time'
            ? Date.now()
            : sandboxNow(store)
      // One object a request: the route's context and what its rules add (caller, if scoped).
      const run = () =>
        route.scoped
          ? route.handler({ ...context, id, params, body, origin, checkoutOrigin, now, caller })
          : route.handler({ ...context, id, params, body, origin, checkoutOrigin, now })
      const key = route.idempotent ? idempotencyKeyOf(request) : undefined
      if (key === undefined) return run()
      return answerOnce(store, { business: caller, key, path: context.path, body }, () => {
        const reply = run()
        // The look-up and the handler's writes are one transaction, which cannot wait for anything.
        if (reply instanceof Promise) throw new TypeError(`POST ${context.path} must answer at once.`)
        return reply
      })
    }
    // The API's writes of a turn of the event loop share one commit, each answered once it is
    // written (store/transactions.ts); a read takes no lock (WAL).
    return route.kind === 'api' && route.method !== 'GET' ? store.grouped(answer as () => Reply) : answer()
  }

  /**
   * Runs a route of the account's: the access token checked (but for the sign-in: an API key opens
   * none of them, 401 as the API's routes answer a token), the body read, then the handler, at the
   * sandbox clock's time (a token's end is told by it).
   */
  private async dispatchAccount(
    route: Route & { account: true },
    context: ServedRequest,
    segments: Readonly<Record<string, string>>,
    trail: Trail,
  ): Promise<Reply> {
    const { store, account, secret } = this.served
    const now = sandboxNow(store)
    if (route.token) {
      const token = bearerOf(context.request)
      if (token === undefined || !isAccessToken(secret, account, token, now)) throw unauthenticated()
    }
    const body = route.readsBody ? await this.bodyOf(context.request, trail) : {}
    const id = context.segment === '' ? '' : decodePathSegment(context.segment)
    if (id === undefined) throw new Refusal(404, 'Not found.')
    const host = this.addresses.allowedHost(context.request.headers.host)
    const origin = host === undefined ? this.baseUrl : `http://${host}`
    const params = decodedParams(segments)
    const businesses = this.businesses
    return route.handler({ ...context, id, params, body, origin, now, account, businesses, secret })
  }

  /** The business of the request's key; undefined without one of this sandbox's keys. */
  private callerOf(request: http.IncomingMessage): Business | undefined {
    const key = bearerOf(request)
    return key === undefined ? undefined : this.callers.get(key)
  }
}

/** The credential of a request's `Authorization: Bearer …`, if it has one. */
function bearerOf(request: http.IncomingMessage): string | undefined {
  const authorization = request.headers.authorization
  if (authorization === undefined) return undefined
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization)?.[1]
}

const unauthenticated = () => new Refusal(401, 'Unauthenticated.', {}, { 'WWW-Authenticate': 'Bearer' })

/** A route's path parameters decoded; one that cannot be is answered 404. */
function decodedParams(segments: Readonly<Record<string, string>>): Record<string, string> {
  const params: Record<string, string> = {}
  for (const [name, segment] of Object.entries(segments)) {
    const value = decodePathSegment(segment)
    if (value === undefined) throw new Refusal(404, 'Not found.')
    params[name] = value
  }
  return params
}
