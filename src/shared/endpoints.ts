import type { Endpoint } from './endpoint.js'
import {
  field,
  LINK_FIELDS,
  SIGN_IN_FIELDS,
  SUBSCRIPTION_FIELDS,
  SUBSCRIPTION_UPDATE_FIELDS,
  TOKEN_FIELDS,
  WEBHOOK_EVENT_CHANGE_FIELDS,
  WEBHOOK_EVENT_FIELDS,
} from './fields.js'

export {
  type AnswerKind,
  authOf,
  type Endpoint,
  fillPath,
  type Preset,
  paramsOf,
  takesId,
  takesIdempotencyKey,
} from './endpoint.js'

/**
 * Every endpoint of the service (docs/spec/payment-service-api.md section 4) and of the sandbox's
 * own controls, each declared once: its method and path, its body and query fields with their
 * rules (fields.ts), and what it answers. This is the one place a path is written. The client
 * sends them by name (src/api/client.ts), the sandbox's router serves them by name
 * (src/sandbox/http/routes.ts), `pay mcp` makes its tools of them (src/agent/tools.ts), the
 * commands name those they call (`static calls`), and the tests take their lists from here;
 * test/unit/api/endpoints.test.ts checks the table against the spec.
 */

const service = { sandbox: false, answer: 'record' } as const
/** An endpoint of a business's integration, as the shop plugins call it: with the access token. */
const integration = { ...service, auth: 'account' } as const
const WEBHOOK_EVENTS = '/integrations/businesses/{business}/integrations/{integration}/webhook-events'
const own = { sandbox: true, answer: 'record' } as const
const LINK = { ...service, noun: 'payment link' } as const
const SUB = { ...service, noun: 'subscription' } as const

/** Each outcome of a customer's payment attempt, played by the sandbox. */
const settle = (verb: 'pay' | 'pending' | 'cancel' | 'fail') =>
  ({
    ...own,
    method: 'POST',
    path: `/_sandbox/payment-links/{id}/${verb}`,
    noun: 'sandbox payment',
    verb,
    changesState: true,
    kind: 'create sandbox payment',
  }) as const

export const ENDPOINTS = {
  createToken: {
    ...service,
    method: 'POST',
    path: '/tokenizations/create-token',
    noun: 'token',
    verb: 'create',
    changesState: true,
    kind: 'create token',
    body: TOKEN_FIELDS,
  },
  createLink: {
    ...LINK,
    method: 'POST',
    path: '/payment-links',
    verb: 'create',
    changesState: true,
    kind: 'create link',
    body: LINK_FIELDS,
  },
  updateLink: {
    ...LINK,
    method: 'PUT',
    path: '/payment-links/{id}',
    verb: 'update',
    changesState: true,
    kind: 'update link',
    body: LINK_FIELDS,
  },
  getLink: { ...LINK, method: 'GET', path: '/payment-links/{id}', verb: 'get', changesState: false },
  listLinks: {
    ...LINK,
    answer: 'list',
    method: 'GET',
    path: '/payment-links',
    verb: 'list',
    changesState: false,
  },
  deleteLink: {
    ...LINK,
    answer: 'none',
    method: 'DELETE',
    path: '/payment-links/{id}',
    verb: 'delete',
    changesState: true,
    kind: 'delete link',
  },
  createSubscription: {
    ...SUB,
    method: 'POST',
    path: '/subscriptions',
    verb: 'create',
    changesState: true,
    kind: 'create sub',
    body: SUBSCRIPTION_FIELDS,
  },
  getSubscription: { ...SUB, method: 'GET', path: '/subscriptions/{id}', verb: 'get', changesState: false },
  updateSubscription: {
    ...SUB,
    method: 'PUT',
    path: '/subscriptions/{id}',
    verb: 'update',
    changesState: true,
    kind: 'update sub',
    body: SUBSCRIPTION_UPDATE_FIELDS,
    presets: [{ verb: 'cancel', kind: 'cancel sub', body: { status: 'cancel' } }],
  },
  deleteSubscription: {
    ...SUB,
    answer: 'none',
    method: 'DELETE',
    path: '/subscriptions/{id}',
    verb: 'delete',
    changesState: true,
    kind: 'delete sub',
  },
  listSubscriptions: {
    ...SUB,
    answer: 'list',
    method: 'GET',
    path: '/subscriptions',
    verb: 'list',
    changesState: false,
  },
  // The account and its businesses' integrations, as the service's shop plugins call them
  // (docs/choices.md): a sign-in gives the access token the others take.
  signIn: {
    ...service,
    auth: 'none',
    secret: true,
    method: 'POST',
    path: '/auth/sign-in',
    noun: 'access token',
    verb: 'sign-in',
    changesState: true,
    kind: 'sign in',
    body: SIGN_IN_FIELDS,
  },
  approvedBusinesses: {
    ...integration,
    answer: 'items',
    method: 'GET',
    path: '/approved-businesses',
    noun: 'business',
    verb: 'list',
    changesState: false,
  },
  listWebhookEvents: {
    ...integration,
    answer: 'items',
    method: 'GET',
    path: WEBHOOK_EVENTS,
    noun: 'webhook event',
    verb: 'list',
    changesState: false,
  },
  addWebhookEvent: {
    ...integration,
    method: 'POST',
    path: WEBHOOK_EVENTS,
    noun: 'webhook event',
    verb: 'add',
    changesState: true,
    kind: 'add webhook',
    body: WEBHOOK_EVENT_FIELDS,
  },
  updateWebhookEvent: {
    ...integration,
    method: 'PATCH',
    path: `${WEBHOOK_EVENTS}/{id}`,
    noun: 'webhook event',
    verb: 'update',
    changesState: true,
    kind: 'update webhook',
    body: WEBHOOK_EVENT_CHANGE_FIELDS,
    presets: [
      { verb: 'enable', kind: 'enable webhook', body: { enabled: true } },
      { verb: 'disable', kind: 'disable webhook', body: { enabled: false } },
    ],
  },
  removeWebhookEvent: {
    ...integration,
    answer: 'none',
    method: 'DELETE',
    path: `${WEBHOOK_EVENTS}/{id}`,
    noun: 'webhook event',
    verb: 'remove',
    changesState: true,
    kind: 'delete webhook',
    // The plugins send `{"enabled": true}` with it; nothing of it is read.
    body: [field('enabled', 'boolean', false)],
  },
  // The sandbox's own: each acts on the business of the key only. Their kinds are the ones
  // `pay history` has always printed for them (the method's verb and the noun).
  sandboxReset: {
    ...own,
    method: 'POST',
    path: '/_sandbox/reset',
    noun: 'sandbox store',
    verb: 'reset',
    changesState: true,
    kind: 'create sandbox store',
  },
  sandboxClock: {
    ...own,
    method: 'GET',
    path: '/_sandbox/clock',
    noun: 'sandbox clock',
    verb: 'get',
    changesState: false,
  },
  sandboxMoveClock: {
    ...own,
    method: 'POST',
    path: '/_sandbox/clock',
    noun: 'sandbox clock',
    verb: 'move',
    changesState: true,
    kind: 'create sandbox clock',
    // One of the two: `30d` (a duration) or `2027-01-01` (a later date or date-time).
    body: [field('advance', 'string', false), field('to', 'string', false)],
  },
  sandboxSeed: {
    ...own,
    method: 'POST',
    path: '/_sandbox/seed',
    noun: 'sandbox fixtures',
    verb: 'seed',
    changesState: true,
    kind: 'create sandbox fixtures',
    // A fixture file: each entry the API's request fields plus its `name` (docs/sandbox.md).
    body: [
      field('tokenizations', 'object[]', false),
      field('links', 'object[]', false),
      field('subscriptions', 'object[]', false),
    ],
    // Skips the names seeded before.
    query: [field('once', 'boolean', false)],
  },
  sandboxFaults: {
    ...own,
    method: 'GET',
    path: '/_sandbox/faults',
    noun: 'sandbox faults',
    verb: 'list',
    changesState: false,
  },
  setSandboxFaults: {
    ...own,
    method: 'POST',
    path: '/_sandbox/faults',
    noun: 'sandbox faults',
    verb: 'set',
    changesState: true,
    kind: 'create sandbox faults',
    // Each rule `METHOD PATH EFFECT [xN|P%] [after]`; `seed` for their P% draws.
    body: [field('rules', 'string[]', true), field('seed', 'integer', false)],
  },
  clearSandboxFaults: {
    ...own,
    method: 'DELETE',
    path: '/_sandbox/faults',
    noun: 'sandbox faults',
    verb: 'clear',
    changesState: true,
    kind: 'delete sandbox faults',
  },
  sandboxRequests: {
    ...own,
    answer: 'items',
    method: 'GET',
    path: '/_sandbox/requests',
    noun: 'sandbox requests',
    verb: 'list',
    changesState: false,
    // After a seq, the newest `limit`; `wait` seconds for one to come.
    query: [
      field('after', 'integer', false),
      field('limit', 'integer', false),
      field('wait', 'integer', false),
    ],
  },
  sandboxPay: settle('pay'),
  sandboxPending: settle('pending'),
  sandboxCancel: settle('cancel'),
  sandboxFail: settle('fail'),
  // `{signature_key, endpoints}`; adding a URL there already answers its endpoint; `lease_seconds`: listen's.
  sandboxWebhooks: {
    ...own,
    method: 'GET',
    path: '/_sandbox/webhooks',
    noun: 'sandbox webhooks',
    verb: 'list',
    changesState: false,
  },
  addSandboxWebhook: {
    ...own,
    method: 'POST',
    path: '/_sandbox/webhooks',
    noun: 'sandbox webhook',
    verb: 'add',
    changesState: true,
    kind: 'create sandbox webhook',
    body: [
      field('url', 'string', true),
      field('events', 'string[]', false),
      field('enabled', 'boolean', false),
      field('lease_seconds', 'integer', false),
    ],
  },
  removeSandboxWebhook: {
    ...own,
    method: 'DELETE',
    path: '/_sandbox/webhooks/{id}',
    noun: 'sandbox webhook',
    verb: 'remove',
    changesState: true,
    kind: 'delete sandbox webhook',
  },
  sandboxDeliveries: {
    ...own,
    answer: 'items',
    method: 'GET',
    path: '/_sandbox/webhooks/deliveries',
    noun: 'sandbox deliveries',
    verb: 'list',
    changesState: false,
    query: [field('limit', 'integer', false)],
  },
  resendSandboxDelivery: {
    ...own,
    method: 'POST',
    path: '/_sandbox/webhooks/deliveries/{id}/resend',
    noun: 'sandbox delivery',
    verb: 'resend',
    changesState: true,
    kind: 'create sandbox delivery',
  },
} as const satisfies Record<string, Endpoint>

export type EndpointName = keyof typeof ENDPOINTS

/** Every endpoint's name, in the order declared. */
export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[]

/** Every endpoint, in the order declared. */
export const ENDPOINT_LIST: readonly Endpoint[] = Object.values(ENDPOINTS)

/** The endpoint of a name, or of a declaration a test makes (a new endpoint tried before it is in the table). */
export const endpointOf = (endpoint: EndpointName | Endpoint): Endpoint =>
  typeof endpoint === 'string' ? ENDPOINTS[endpoint] : endpoint

/** The name of a declared endpoint. */
export const nameOf = (endpoint: Endpoint): EndpointName | undefined =>
  ENDPOINT_NAMES.find((name) => ENDPOINTS[name] === endpoint)

const escaped = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&')

const patterns = new Map(
  ENDPOINT_LIST.map((endpoint) => [
    endpoint,
    new RegExp(`^${escaped(endpoint.path).replace(/\{\w+\}/g, '[^/]+')}$`),
  ]),
)

/** The endpoint a request went to: its method and path as sent (`/payment-links/ID?x=1`), if declared. */
export function endpointAt(method: string, path: string): Endpoint | undefined {
  const pathname = path.split(/[?#]/)[0]
  return ENDPOINT_LIST.find(
    (endpoint) => endpoint.method === method && patterns.get(endpoint)?.test(pathname),
  )
}
