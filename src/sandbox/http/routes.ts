/**
 * Every route of the sandbox, declared once: the spec's API, the sandbox's own controls, the
 * customer pages and health. One line a route: its method, its path as the spec writes it, its
 * kind, its rules and its handler. The server (server.ts) does what the rules say: no rule of a
 * route is decided from its path anywhere else.
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
 * A path no route declares is answered by its prefix (routeOf): under /checkout a page (404, or
 * 405 for a page's path and another method), under /_sandbox/ JSON, anything else as the API
 * answers a path it does not know, which is kept among the recorded requests and may be faulted
 * like the API's routes: a client's mistyped path is what a test wants to see.
 */

import type { Answer } from '../domain/answers.js'
import { moveClock, showClock } from '../handlers/billing/controls.js'
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
  listLinks,
  listSubscriptions,
  updateLink,
  updateSubscription,
} from '../handlers/service/endpoints.js'
import type { ServedKey, ServedRequest, ServedScoped } from './context.js'
import { health } from './health.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

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
  method: Method
  /** As the spec writes it: `/payment-links/{id}`. */
  path: string
  kind: Kind
  /** The rules as the table writes them. */
  rules: string
  idempotent: boolean
  time: Time
  faults: boolean
  recorded: boolean
}

type Handler<C> = (context: C) => Answer

/**
 * One route of the table. The rules decide which context the handler gets, so that a handler
 * that needs the caller can only sit on a `key scoped` route; a rule misspelt, or one that needs
 * another (`scoped` without `key`, `idempotent` on anything but a POST with a key), fails as the
 * table is built.
 */
export function route(
  m: Method,
  p: string,
  k: Kind,
  r: `key scoped${string}`,
  h: Handler<ServedScoped>,
): Route
export function route(m: Method, p: string, k: Kind, r: `key${string}`, h: Handler<ServedKey>): Route
export function route(m: Method, p: string, k: Kind, r: '', h: Handler<ServedRequest>): Route
export function route(
  method: Method,
  path: string,
  kind: Kind,
  rules: string,
  handler: Handler<never>,
): Route {
  const words = rules === '' ? [] : rules.split(' ')
  const wrong = words.find((word) => !RULES.includes(word as Rule))
  if (wrong !== undefined) throw new TypeError(`${method} ${path}: "${wrong}" is no rule of a route.`)
  const has = (rule: Rule) => words.includes(rule)
  const key = has('key')
  const needsKey = (['scoped', 'idempotent', 'bills', 'real-time'] as const).find((rule) => has(rule))
  if (!key && needsKey) throw new TypeError(`${method} ${path}: "${needsKey}" needs "key".`)
  if (has('idempotent') && method !== 'POST')
    throw new TypeError(`${method} ${path}: only a POST is idempotent.`)
  if (has('bills') && has('real-time'))
    throw new TypeError(`${method} ${path}: "bills" or "real-time", not both.`)
  // The overloads above tie each handler's context to the rules given with it.
  const handling = { key, scoped: has('scoped'), handler } as Handling
  return {
    ...handling,
    method,
    path,
    kind,
    rules,
    idempotent: has('idempotent'),
    time: has('bills') ? 'bills' : has('real-time') ? 'real-time' : 'clock',
    faults: has('faults'),
    recorded: has('recorded'),
  }
}

// biome-ignore format: one route a line, its parts in columns
export const ROUTES: readonly Route[] = [
  route('POST',   '/tokenizations/create-token',         'api',     'key scoped idempotent bills faults recorded', createTokenization),
  route('GET',    '/payment-links',                      'api',     'key scoped bills faults recorded',            listLinks),
  route('POST',   '/payment-links',                      'api',     'key scoped idempotent bills faults recorded', createLink),
  route('GET',    '/payment-links/{id}',                 'api',     'key scoped bills faults recorded',            getLink),
  route('PUT',    '/payment-links/{id}',                 'api',     'key scoped bills faults recorded',            updateLink),
  route('DELETE', '/payment-links/{id}',                 'api',     'key scoped bills faults recorded',            deleteLink),
  route('GET',    '/subscriptions',                      'api',     'key scoped bills faults recorded',            listSubscriptions),
  route('POST',   '/subscriptions',                      'api',     'key scoped idempotent bills faults recorded', createSubscription),
  route('GET',    '/subscriptions/{id}',                 'api',     'key scoped bills faults recorded',            getSubscription),
  route('PUT',    '/subscriptions/{id}',                 'api',     'key scoped bills faults recorded',            updateSubscription),
  route('DELETE', '/subscriptions/{id}',                 'api',     'key scoped bills faults recorded',            deleteSubscription),
  route('POST',   '/_sandbox/reset',                     'control', 'key scoped real-time',                        resetBusiness),
  route('GET',    '/_sandbox/clock',                     'control', 'key',                                         showClock),
  route('POST',   '/_sandbox/clock',                     'control', 'key',                                         moveClock),
  route('POST',   '/_sandbox/seed',                      'control', 'key scoped',                                  seed),
  route('GET',    '/_sandbox/faults',                    'control', 'key scoped',                                  listFaults),
  route('POST',   '/_sandbox/faults',                    'control', 'key scoped',                                  setFaults),
  route('DELETE', '/_sandbox/faults',                    'control', 'key scoped',                                  clearFaults),
  route('GET',    '/_sandbox/requests',                  'control', 'key scoped',                                  listRequests),
  route('POST',   '/_sandbox/payment-links/{id}/pay',    'control', 'key scoped',                                  payLink),
  route('POST',   '/_sandbox/payment-links/{id}/cancel', 'control', 'key scoped',                                  cancelLink),
  route('POST',   '/_sandbox/payment-links/{id}/fail',   'control', 'key scoped',                                  failLink),
  route('GET',    '/_sandbox/webhooks',                  'control', 'key scoped',                                  listWebhooks),
  route('POST',   '/_sandbox/webhooks',                  'control', 'key scoped',                                  addWebhook),
  // Before /_sandbox/webhooks/{id}, whose pattern it also matches.
  route('GET',    '/_sandbox/webhooks/deliveries',       'control', 'key scoped',                                  listDeliveries),
  route('POST',   '/_sandbox/webhooks/deliveries/{id}/resend', 'control', 'key scoped',                            resendDelivery),
  route('DELETE', '/_sandbox/webhooks/{id}',             'control', 'key scoped',                                  removeWebhook),
  route('GET',    '/checkout/pay',                       'page',    '',                                            servePaymentPage),
  route('POST',   '/checkout/pay',                       'page',    '',                                            servePaymentPage),
  route('GET',    '/checkout/tokens/{token}/activate',   'page',    '',                                            serveActivationPage),
  route('POST',   '/checkout/tokens/{token}/activate',   'page',    '',                                            serveActivationPage),
  route('GET',    '/_sandbox/health',                    'health',  '',                                            health),
]

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
