/**
 * What a handler is given. Each route of the table (routes.ts) gets the context its rules call
 * for: every route the request and what the sandbox holds; a route that needs a key (`key`) also
 * the request's body, id, addresses and time; a business-scoped one (`scoped`) also the caller,
 * the business whose records alone it may act on.
 */
import type http from 'node:http'
import type { Business } from '../domain/business.js'
import type { RequestBody } from '../domain/rules.js'
import type { TestDouble } from '../double/test-double.js'
import type { Notifier } from '../notify/notifier.js'
import type { SandboxStore } from '../store/store.js'

export interface RequestContext {
  store: SandboxStore
  /** Fault rules, the recorded requests, and whether the server is stopping (double/). */
  double: TestDouble
  /** Attempts the notifications the request makes (notify/). */
  notifier: Notifier
  /** The secret of the sandbox's directory, with which it proves it is the user's own (proof.ts). */
  secret: Buffer
  request: http.IncomingMessage
  /** GET for HEAD. */
  method: string
  /** No query, no trailing slash. */
  path: string
  query: URLSearchParams
  /** The `{…}` segment of the route's path as it was sent (percent-encoded); '' when it has none. */
  segment: string
}

/** The context of a route that needs a key (`key`). */
export interface KeyContext extends RequestContext {
  /** `segment` decoded (a segment that cannot be is answered 404 before the handler runs). */
  id: string
  /** POST and PUT only: the JSON object sent. */
  body: RequestBody
  /** `http://host:port` as the client addressed the sandbox, for the URLs handed out. */
  origin: string
  /** Where payment and activation pages are said to live (the in-process sandbox names its well-known address). */
  checkoutOrigin: string
  /** The time the route's rules give it (sandbox time, once what came due was billed for `bills`). */
  now: number
}

/** The context of a business-scoped route (`scoped`). */
export interface ScopedContext extends KeyContext {
  /** The business of the request's key: the route acts on its records only. */
  caller: Business
}
