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
 *   business (`GET /_sandbox/requests`);
 * - `account`: needs an access token of the sandbox's account (401 without, and for an API key, as
 *   the API's routes refuse an access token); the handler gets the account and its businesses
 *   (AccountContext). The sign-in, which gives the token, is the account's route with no rule.
 * What authorises each endpoint is the table's (`auth`): a line's rules must say the same. A route
 * without `key` or `account` that serves no endpoint is public and gets the bare RequestContext.
 * Any handler may also take what is the server's own (context.ts: its test double, its notifier,
 * its secret).
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

import { authOf, ENDPOINT_NAMES, ENDPOINTS, type EndpointName } from '../../shared/endpoints.js'
import type { Field, Method } from '../../shared/fields.js'
import { type Answer, valid } from '../domain/answers.js'
import { CHECKED_TYPES, checkBody, type FieldCheck } from '../domain/rules.js'
import {
  addWebhookEvent,
  approvedBusinesses,
  eventFound,
  integrationFound,
  knownEvent,
  listWebhookEvents,
  removeWebhookEvent,
  updateWebhookEvent,
  webhookUrl,
} from '../handlers/account/integration.js'
import { signIn } from '../handlers/account/sign-in.js'
import { moveClock, showClock } from '../handlers/billing/controls.js'
import type { CheckedAccountContext, CheckedContext } from '../handlers/context.js'
import {
  cancelLink,
  clearFaults,
  failLink,
  listFaults,
  listRequests,
  payLink,
  pendingLink,
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
import type { ServedAccount, ServedKey, ServedRequest, ServedScoped } from './context.js'
import { health } from './health.js'

/** `api`: the spec's endpoints; `control`: the sandbox's own (`/_sandbox/…`); `page`: the customer's; `health`. */
export type Kind = 'api' | 'control' | 'page' | 'health'

export type Rule = 'key' | 'scoped' | 'idempotent' | 'bills' | 'real-time' | 'faults' | 'recorded' | 'account'

const RULES: readonly Rule[] = [
  'key',
  'scoped',
  'idempotent',
  'bills',
  'real-time',
  'faults',
  'recorded',
  'account',
]

/** Whose time a route's handler gets (`now`): see the rules above. */
export type Time = 'bills' | 'real-time' | 'clock'

/** How a route's handler is called: the context its rules give it. */
export type Handling =
  | { key: false; scoped: false; account: false; handler: (context: ServedRequest) => Answer }
  | { key: true; scoped: false; account: false; handler: (context: ServedKey) => Answer }
  | { key: true; scoped: true; account: false; handler: (context: ServedScoped) => Answer }
  | {
      key: false
      scoped: false
      /** A route of the account's: `token` says whether it needs the access token (all but the sign-in). */
      account: true
      token: boolean
      handler: (context: ServedAccount) => Answer
    }

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
  /** Its request's body is read: a POST, PUT or PATCH, or a request whose endpoint declares one (the plugins' DELETE). */
  readsBody: boolean
}

type Handler<C> = (context: C) => Answer

/** What the handler of a `key scoped` route of endpoint N gets: the checked fields of an `api` route's body. */
export type ServedOf<N extends EndpointName> = (typeof ENDPOINTS)[N] extends {
  readonly sandbox: false
  readonly body: readonly Field[]
}
  ? ServedScoped & CheckedContext<N>
  : ServedScoped

/** What the handler of a route of the account's for endpoint N gets: the checked fields of its body. */
export type ServedAccountOf<N extends EndpointName> = (typeof ENDPOINTS)[N] extends {
  readonly body: readonly Field[]
}
  ? ServedAccount & CheckedAccountContext<N>
  : ServedAccount

/** What a line adds to the table's checks of an `api` route's request, before its handler runs. */
export interface RouteChecks<C = ServedScoped> {
  /** The record the path names, found before the body is checked (throws its 404). */
  found?: (context: C) => void
  /** Checks of fields beyond the table's rules (FieldCheck), with the request's context. */
  fields?: Readonly<Record<string, (value: unknown, context: C) => string | undefined>>
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
  if (has('account') && words.length > 1) throw new TypeError(`${label}: "account" goes alone.`)
  if (has('idempotent') && method !== 'POST') throw new TypeError(`${label}: only a POST is idempotent.`)
  if (has('bills') && has('real-time')) throw new TypeError(`${label}: "bills" or "real-time", not both.`)
  const endpoint = declared.endpoint === undefined ? undefined : ENDPOINTS[declared.endpoint]
  const account = endpoint !== undefined && authOf(endpoint) !== 'key'
  // The overloads of serve and own tie each handler's context to the rules given with it.
  const handling = (
    account
      ? { key: false, scoped: false, account: true, token: has('account'), handler }
      : { key, scoped: has('scoped'), account: false, handler }
  ) as Handling
  return {
    ...handling,
    ...declared,
    rules,
    idempotent: has('idempotent'),
    time: has('bills') ? 'bills' : has('real-time') ? 'real-time' : 'clock',
    faults: has('faults'),
    recorded: has('recorded'),
    readsBody: ['POST', 'PUT', 'PATCH'].includes(method) || (endpoint !== undefined && 'body' in endpoint),
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
export function serve<N extends EndpointName>(
  name: N,
  rules: 'account' | '',
  handler: Handler<ServedAccountOf<N>>,
  checks?: RouteChecks<ServedAccount>,
): Route
export function serve(
  name: EndpointName,
  rules: string,
  handler: Handler<never>,
  checks: RouteChecks<never> = {},
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
  const auth = authOf(endpoint)
  const words = rules.split(' ')
  const says = words.includes('key') ? 'key' : words.includes('account') ? 'account' : 'none'
  if (says !== auth) {
    throw new TypeError(`${name}: the table says it is authorised by ${auth}, its rules by ${says}.`)
  }
  const body: readonly Field[] | undefined = 'body' in endpoint ? endpoint.body : undefined
  if (kind === 'control') {
    if (checks.found || checks.fields) throw new TypeError(`${name}: a control checks its own request.`)
    return route
  }
  if (!route.scoped && !route.account)
    throw new TypeError(`${name}: a route of the service's is "key scoped".`)
  for (const field of body ?? []) {
    if (!CHECKED_TYPES.includes(field.type))
      throw new TypeError(`${name}: the sandbox checks no field of type ${field.type} (${field.name}).`)
  }
  const unknown = Object.keys(checks.fields ?? {}).find((field) => !body?.some((f) => f.name === field))
  if (unknown !== undefined) throw new TypeError(`${name}: its body has no field ${unknown} to check.`)
  if (!body && !checks.found) return route
  return {
    ...route,
    handler: checked(
      route.handler as Handler<ServedScoped & { input: unknown }>,
      body,
      checks as RouteChecks<ServedScoped>,
    ),
  } as Route
}

/** The handler behind the router's checks: the record found, the body's fields checked (their 422), then the handler. */
function checked<C extends { body: Record<string, unknown> }>(
  handler: Handler<C & { input: unknown }>,
  body: readonly Field[] | undefined,
  { found, fields }: RouteChecks<C>,
): Handler<C> {
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
  serve('signIn',                '',                                            signIn),
  serve('approvedBusinesses',    'account',                                     approvedBusinesses),
  serve('listWebhookEvents',     'account',                                     listWebhookEvents, { found: integrationFound }),
  serve('addWebhookEvent',       'account',                                     addWebhookEvent, { found: integrationFound, fields: { name: knownEvent, url: webhookUrl } }),
  serve('updateWebhookEvent',    'account',                                     updateWebhookEvent, { found: eventFound, fields: { url: webhookUrl } }),
  serve('removeWebhookEvent',    'account',                                     removeWebhookEvent, { found: eventFound }),
  serve('sandboxReset',          'key scoped real-time',                        resetBusiness),
  serve('sandboxClock',          'key',                                         showClock),
  serve('sandboxMoveClock',      'key',                                         moveClock),
  serve('sandboxSeed',           'key scoped',                                  seed),
  serve('sandboxFaults',         'key scoped',                                  listFaults),
  serve('setSandboxFaults',      'key scoped',                                  setFaults),
  serve('clearSandboxFaults',    'key scoped',                                  clearFaults),
  serve('sandboxRequests',       'key scoped',                                  listRequests),
  serve('sandboxPay',            'key scoped',                                  payLink),
  serve('sandboxPending',        'key scoped',                                  pendingLink),
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
