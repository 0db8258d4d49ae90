/**
 * Every route of the sandbox, declared once. The endpoints of the one endpoint table
 * (src/shared/endpoints.ts: the spec's API and the sandbox's own controls) are served by name, one
 * line each: the endpoint's name, its rules and its handler; its method and path are the table's,
 * its kind is `api` (the service's) or `control` (the sandbox's own, `/_sandbox/…`). The customer
 * pages and health, which are no endpoints of the table, are the sandbox's own routes, with their
 * method and path. The server (listener.ts) does what the rules say: no rule of a route is decided
 * from its path anywhere else.
 *
 * The rules, in the order they are written:
 * - `key`: needs one of the sandbox's API keys (401 without); the handler gets the request's JSON
 *   body (POST, PUT), its decoded `{id}`, its addresses and its time (KeyContext, handlers/context.ts);
 * - `scoped`: acts on the caller's business only; only such a handler gets the caller (ScopedContext);
 * - `idempotent`: a POST whose Idempotency-Key is honoured (idempotency.ts): sent again with the
 *   key, it is answered as the first time and does nothing;
 * - `bills`: billing catches up before it runs (handlers/billing/billing.ts), so its answer shows the
 *   charges of its time; `real-time`: its time is real time (reset must run on a store whose clock
 *   it cannot read); neither: the sandbox clock as it stands;
 * - `faults`: fault rules and the Pay-Sandbox-Fault header reach it (handlers/double/faults.ts);
 * - `recorded`: a request with one of the sandbox's keys is kept among the recorded requests of its
 *   business (`GET /_sandbox/requests`).
 * A route without `key` is public and gets the bare RequestContext. Any handler may also take
 * what is the server's own (context.ts: its test double, its notifier, its secret).
 *
 * The body of an `api` route is checked here, before its handler runs, against the fields the
 * table declares for it, with their rules (domain/rules.ts): the 422 of every field that fails, in
 * Laravel's words and the service's order; the handler gets the values that passed (`input`). A
 * line may add what the table cannot say (RouteChecks): the record the path names, found first (a
 * 404 before a 422, as Laravel binds a route's record before it validates), and checks of a field
 * with what only the caller's business knows. The sandbox's controls check their own bodies.
 *
 * A path no route declares is answered by its prefix (routeOf): under /checkout a page (404, or
 * 405 for a page's path and another method), under /_sandbox/ JSON, anything else as the API
 * answers a path it does not know, which is kept among the recorded requests and may be faulted
 * like the API's routes: a client's mistyped path is what a test wants to see.
 */

import { ENDPOINT_NAMES, ENDPOINTS, type EndpointName } from '../../shared/endpoints.js'
import type { Field, Method } from '../../shared/fields.js'
import { type Answer, valid } from '../domain/answers.js'
import { CHECKED_TYPES, checkBody, type FieldCheck } from '../domain/rules.js'
import { moveClock, showClock } from '../handlers/billing/controls.js'
import type { CheckedContext } from '../handlers/context.js'
import {
  cancelLink,
  clearFaults,
  failLink,
  listFaults,
  listRequests,
  payLink,
  resetBusiness,
  seed,
  setFaults,
} from '../handlers/double/controls.js'
import {
  addWebhook,
  listDeliveries,
  listWebhooks,
  removeWebhook,
  resendDelivery,
} from '../handlers/notify/controls.js'
import { serveActivationPage, servePaymentPage } from '../handlers/pages/customer-pages.js'
import {
  createLink,
  createSubscription,
  createTokenization,
  deleteLink,
  deleteSubscription,
  getLink,
  getSubscription,
  linkFound,
  listLinks,
  listSubscriptions,
  packageOfCaller,
  subscriptionFound,
  updateLink,
  updateSubscription,
} from '../handlers/service/endpoints.js'
import type { ServedKey, ServedRequest, ServedScoped } from './context.js'
import { health } from './health.js'

/** `api`: the spec's endpoints; `control`: the sandbox's own (`/_sandbox/…`); `page`: the customer's; `health`. */
export type Kind = 'api' | 'control' | 'page' | 'health'

export type Rule = 'key' | 'scoped' | 'idempotent' | 'bills' | 'real-time' | 'faults' | 'recorded'

const RULES: readonly Rule[] = ['key', 'scoped', 'idempotent', 'bills', 'real-time', 'faults', 'recorded']

/** Whose time a route's handler gets (`now`): see the rules above. */
export type Time = 'bills' | 'real-time' | 'clock'

/** How a route's handler is called: the context its rules give it. */
export type Handling =
  | { key: false; scoped: false; handler: (context: ServedRequest) => Answer }
  | { key: true; scoped: false; handler: (context: ServedKey) => Answer }
  | { key: true; scoped: true; handler: (context: ServedScoped) => Answer }

export type Route = Handling & {
  /** The endpoint of the table it serves; undefined for the sandbox's own (a page, health). */
  endpoint: EndpointName | undefined
  method: Method
  /** As the table writes it: `/payment-links/{id}`. */
  path: string
  kind: Kind
  /** The rules as the line writes them. */
  rules: string
  idempotent: boolean
  time: Time
  faults: boolean
  recorded: boolean
}

type Handler<C> = (context: C) => Answer

/** What the handler of a `key scoped` route of endpoint N gets: the checked fields of an `api` route's body. */
export type ServedOf<N extends EndpointName> = (typeof ENDPOINTS)[N] extends {
  readonly sandbox: false
  readonly body: readonly Field[]
}
  ? ServedScoped & CheckedContext<N>
  : ServedScoped

/** What a line adds to the table's checks of an `api` route's request, before its handler runs. */
export interface RouteChecks {
  /** The record the path names, found before the body is checked (throws its 404). */
  found?: (context: ServedScoped) => void
  /** Checks of fields beyond the table's rules (FieldCheck), with the request's context. */
  fields?: Readonly<Record<string, (value: unknown, context: ServedScoped) => string | undefined>>
}

/** A route of its method, path and kind: its rules read, a rule misspelt or one that needs another refused. */
function ruled(
  label: string,
  declared: { endpoint: EndpointName | undefined; method: Method; path: string; kind: Kind },
  rules: string,
  handler: Handler<never>,
): Route {
  const { method } = declared
  const words = rules === '' ? [] : rules.split(' ')
  const wrong = words.find((word) => !RULES.includes(word as Rule))
  if (wrong !== undefined) throw new TypeError(`${label}: "${wrong}" is no rule of a route.`)
  const has = (rule: Rule) => words.includes(rule)
  const key = has('key')
  const needsKey = (['scoped', 'idempotent', 'bills', 'real-time'] as const).find((rule) => has(rule))
  if (!key && needsKey) throw new TypeError(`${label}: "${needsKey}" needs "key".`)
  if (has('idempotent') && method !== 'POST') throw new TypeError(`${label}: only a POST is idempotent.`)
  if (has('bills') && has('real-time')) throw new TypeError(`${label}: "bills" or "real-time", not both.`)
  // The overloads of serve and own tie each handler's context to the rules given with it.
  const handling = { key, scoped: has('scoped'), handler } as Handling
  return {
    ...handling,
    ...declared,
    rules,
    idempotent: has('idempotent'),
    time: has('bills') ? 'bills' : has('real-time') ? 'real-time' : 'clock',
    faults: has('faults'),
    recorded: has('recorded'),
  }
}

/**
 * The route of endpoint `name` of the table, its method and path the table's. The rules decide
 * which context the handler gets, so that a handler that needs the caller can only sit on a
 * `key scoped` route, and one that reads `input` only on an `api` route with a body. A name the
 * table lacks, a rule misspelt or one that needs another (`scoped` without `key`, `idempotent` on
 * anything but a POST), an `api` route that is not `key scoped`, or checks of a field its body
 * lacks, fail as the table is built.
 */
export function serve<N extends EndpointName>(
  name: N,
  rules: `key scoped${string}`,
  handler: Handler<ServedOf<N>>,
  checks?: RouteChecks,
): Route
export function serve(name: EndpointName, rules: `key${string}`, handler: Handler<ServedKey>): Route
export function serve(
  name: EndpointName,
  rules: string,
  handler: Handler<never>,
  checks: RouteChecks = {},
): Route {
  if (!Object.hasOwn(ENDPOINTS, name)) {
    throw new TypeError(`${name}: no endpoint of the table (src/shared/endpoints.ts) has this name.`)
  }
  const endpoint = ENDPOINTS[name]
  const kind = endpoint.sandbox ? 'control' : 'api'
  const route = ruled(
    name,
    { endpoint: name, method: endpoint.method, path: endpoint.path, kind },
    rules,
    handler,
  )
  const body: readonly Field[] | undefined = 'body' in endpoint ? endpoint.body : undefined
  if (kind === 'control') {
    if (checks.found || checks.fields) throw new TypeError(`${name}: a control checks its own request.`)
    return route
  }
  if (!route.scoped) throw new TypeError(`${name}: a route of the service's is "key scoped".`)
  for (const field of body ?? []) {
    if (!CHECKED_TYPES.includes(field.type))
      throw new TypeError(`${name}: the sandbox checks no field of type ${field.type} (${field.name}).`)
  }
  const unknown = Object.keys(checks.fields ?? {}).find((field) => !body?.some((f) => f.name === field))
  if (unknown !== undefined) throw new TypeError(`${name}: its body has no field ${unknown} to check.`)
  if (!body && !checks.found) return route
  return {
    ...route,
    handler: checked(route.handler as Handler<ServedScoped & { input: unknown }>, body, checks),
  }
}

/** The handler behind the router's checks: the record found, the body's fields checked (their 422), then the handler. */
function checked(
  handler: Handler<ServedScoped & { input: unknown }>,
  body: readonly Field[] | undefined,
  { found, fields }: RouteChecks,
): Handler<ServedScoped> {
  return (context) => {
    found?.(context)
    if (!body) return handler({ ...context, input: {} })
    let own: Record<string, FieldCheck> | undefined
    if (fields) {
      own = {}
      for (const [field, check] of Object.entries(fields)) own[field] = (value) => check(value, context)
    }
    return handler({ ...context, input: valid(checkBody(body, context.body, own)) })
  }
}

/** A route of the sandbox's own, no endpoint of the table: a customer page or health, public. */
export function own(
  method: Method,
  path: string,
  kind: 'page' | 'health',
  handler: Handler<ServedRequest>,
): Route {
  return ruled(`${method} ${path}`, { endpoint: undefined, method, path, kind }, '', handler)
}

/**
 * The routes as given, once each endpoint of the table has exactly one, no route of the sandbox's
 * own takes the method and path of one, and no method and path are routed twice; else a TypeError.
 */
export function tableOf(routes: readonly Route[]): readonly Route[] {
  for (const name of ENDPOINT_NAMES) {
    const count = routes.filter((route) => route.endpoint === name).length
    const { method, path } = ENDPOINTS[name]
    if (count === 0) throw new TypeError(`${name} (${method} ${path}) has no route: serve it in ROUTES.`)
    if (count > 1) throw new TypeError(`${name} (${method} ${path}) is served ${count} times.`)
  }
  const seen = new Set<string>()
  for (const route of routes) {
    const line = `${route.method} ${route.path}`
    if (seen.has(line)) throw new TypeError(`${line} is routed twice.`)
    seen.add(line)
  }
  return routes
}

// biome-ignore format: one route a line, its parts in columns
export const ROUTES: readonly Route[] = tableOf([
  serve('createToken',           'key scoped idempotent bills faults recorded', createTokenization),
  serve('listLinks',             'key scoped bills faults recorded',            listLinks),
  serve('createLink',            'key scoped idempotent bills faults recorded', createLink),
  serve('getLink',               'key scoped bills faults recorded',            getLink),
  serve('updateLink',            'key scoped bills faults recorded',            updateLink, { found: linkFound }),
  serve('deleteLink',            'key scoped bills faults recorded',            deleteLink),
  serve('listSubscriptions',     'key scoped bills faults recorded',            listSubscriptions),
  serve('createSubscription',    'key scoped idempotent bills faults recorded', createSubscription, { fields: { package_id: packageOfCaller } }),
  serve('getSubscription',       'key scoped bills faults recorded',            getSubscription),
  serve('updateSubscription',    'key scoped bills faults recorded',            updateSubscription, { found: subscriptionFound }),
  serve('deleteSubscription',    'key scoped bills faults recorded',            deleteSubscription),
  serve('sandboxReset',          'key scoped real-time',                        resetBusiness),
  serve('sandboxClock',          'key',                                         showClock),
  serve('sandboxMoveClock',      'key',                                         moveClock),
  serve('sandboxSeed',           'key scoped',                                  seed),
  serve('sandboxFaults',         'key scoped',                                  listFaults),
  serve('setSandboxFaults',      'key scoped',                                  setFaults),
  serve('clearSandboxFaults',    'key scoped',                                  clearFaults),
  serve('sandboxRequests',       'key scoped',                                  listRequests),
  serve('sandboxPay',            'key scoped',                                  payLink),
  serve('sandboxCancel',         'key scoped',                                  cancelLink),
  serve('sandboxFail',           'key scoped',                                  failLink),
  serve('sandboxWebhooks',       'key scoped',                                  listWebhooks),
  serve('addSandboxWebhook',     'key scoped',                                  addWebhook),
  // Before removeSandboxWebhook, whose path's pattern (its {id}) the deliveries' path also matches.
  serve('sandboxDeliveries',     'key scoped',                                  listDeliveries),
  serve('resendSandboxDelivery', 'key scoped',                                  resendDelivery),
  serve('removeSandboxWebhook',  'key scoped',                                  removeWebhook),
  own('GET',  '/checkout/pay',                    'page',   servePaymentPage),
  own('POST', '/checkout/pay',                    'page',   servePaymentPage),
  own('GET',  '/checkout/tokens/{token}/activate', 'page',   serveActivationPage),
  own('POST', '/checkout/tokens/{token}/activate', 'page',   serveActivationPage),
  own('GET',  '/_sandbox/health',                 'health', health),
])

/** The routes of one path, and its pattern: `{…}` matches one segment, which is its one group. */
interface PathRoutes {
  pattern: RegExp
  routes: Route[]
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&')

/** Each path of the table once, in the table's order, with its routes in theirs (the Allow header's). */
const PATHS: readonly PathRoutes[] = (() => {
  const byPath = new Map<string, PathRoutes>()
  for (const declared of ROUTES) {
    let entry = byPath.get(declared.path)
    if (!entry) {
      const pattern = escapeRegExp(declared.path).replace(/\{[^}]+\}/g, '([^/]+)')
      entry = { pattern: new RegExp(`^${pattern}$`), routes: [] }
      byPath.set(declared.path, entry)
    }
    entry.routes.push(declared)
  }
  return [...byPath.values()]
})()

/**
 * What a request's method and path are routed to: the route and its `{…}` segment as sent; or,
 * for a path no route declares with that method, how the miss is answered: its kind (by the
 * path's prefix), the methods the path takes (empty: 404; else 405), and the API's `faults` and
 * `recorded` for a path outside /_sandbox/ and /checkout.
 */
export type Routed =
  | { route: Route; segment: string; faults: boolean; recorded: boolean }
  | {
      route: undefined
      kind: 'api' | 'control' | 'page'
      allowed: Method[]
      faults: boolean
      recorded: boolean
    }

export function routeOf(method: string, path: string): Routed {
  for (const { pattern, routes } of PATHS) {
    const match = pattern.exec(path)
    if (!match) continue
    const found = routes.find((candidate) => candidate.method === method)
    if (found)
      return { route: found, segment: match[1] ?? '', faults: found.faults, recorded: found.recorded }
    return missed(
      path,
      routes.map((candidate) => candidate.method),
    )
  }
  return missed(path, [])
}

function missed(path: string, allowed: Method[]): Routed {
  const kind = /^\/checkout(?:\/|$)/.test(path)
    ? 'page'
    : /^\/_sandbox(?:\/|$)/.test(path)
      ? 'control'
      : 'api'
  const api = kind === 'api'
  return { route: undefined, kind, allowed, faults: api, recorded: api }
}
