import { PayError } from '../errors.js'
import {
  type Field,
  field,
  LINK_FIELDS,
  type Method,
  SUBSCRIPTION_FIELDS,
  SUBSCRIPTION_UPDATE_FIELDS,
  TOKEN_FIELDS,
} from './types.js'

/**
 * Every endpoint pay's client calls, each declared once: the service's eleven
 * (docs/spec/payment-service-api.md section 4) and the sandbox's own controls. PayApi's methods
 * send them (client.ts, sandbox.ts), `pay history` names a change by its endpoint's `kind`, and
 * the tests take from here which commands and requests they must cover. The sandbox keeps its
 * own route table: test/unit/api/endpoints.test.ts checks that both hold the same endpoints.
 */

interface EndpointBase {
  readonly method: Method
  /** The path under the base URL, a record's id as `{id}`: `/payment-links/{id}`. */
  readonly path: string
  /** What it acts on, as the journal's `resource` and the answer's reader name it: `payment link`. */
  readonly noun: string
  /** What it does to it: `create`, `get`, `list`, `update`, `delete`, `pay`. */
  readonly verb: string
  /** A list the service answers page by page (next_page_url). */
  readonly list: boolean
  /** The sandbox's own (`/_sandbox/…`, not in the spec): only a sandbox answers it. */
  readonly sandbox: boolean
  /** The request body's fields; none for a request without a body. */
  readonly body?: readonly Field[]
  /** The query's fields. */
  readonly query?: readonly Field[]
  /** The commands that call it, as typed (`links create`): the command map. */
  readonly commands: readonly string[]
  /**
   * The same request with a fixed body, made by commands of their own: `subs cancel` sends
   * Update Subscription with `{"status": "cancel"}`, a cancel in the journal.
   */
  readonly presets?: readonly Preset[]
  /** One of the sandbox's own that `pay mcp` offers as a tool on the sandbox profile (as every service one). */
  readonly agent?: boolean
}

export interface Preset {
  readonly verb: string
  readonly kind: string
  readonly body: Readonly<Record<string, string>>
  readonly commands: readonly string[]
}

/**
 * One endpoint. One that changes state is journaled (before it is sent, and with its outcome),
 * under `kind`: what `pay history` calls the change, two words that fit an 80-column table.
 */
export type Endpoint = EndpointBase &
  (
    | { readonly changesState: true; readonly kind: string }
    | { readonly changesState: false; readonly kind?: never }
  )

const service = { list: false, sandbox: false } as const
const own = { list: false, sandbox: true } as const
const LINK = { ...service, noun: 'payment link' } as const
const SUB = { ...service, noun: 'subscription' } as const

/** What each outcome of `sandbox pay` asks of the sandbox: the customer pays, cancels, or fails. */
const settle = (verb: 'pay' | 'cancel' | 'fail') =>
  ({
    ...own,
    method: 'POST',
    path: `/_sandbox/payment-links/{id}/${verb}`,
    noun: 'sandbox payment',
    verb,
    changesState: true,
    kind: 'create sandbox payment',
    commands: ['sandbox pay'],
    agent: true,
  }) as const

/** The sandbox's notifications: its webhook endpoints (`/_sandbox/webhooks`) and their deliveries. */
const hooks = (method: Method, path: string, noun: string, verb: string, commands: string[]) =>
  ({ ...own, method, path: `/_sandbox/webhooks${path}`, noun, verb, commands }) as const
const LISTEN = 'sandbox listen'

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
    commands: ['token create'],
  },
  createLink: {
    ...LINK,
    method: 'POST',
    path: '/payment-links',
    verb: 'create',
    changesState: true,
    kind: 'create link',
    body: LINK_FIELDS,
    commands: ['links create'],
  },
  updateLink: {
    ...LINK,
    method: 'PUT',
    path: '/payment-links/{id}',
    verb: 'update',
    changesState: true,
    kind: 'update link',
    body: LINK_FIELDS,
    commands: ['links update'],
  },
  getLink: {
    ...LINK,
    method: 'GET',
    path: '/payment-links/{id}',
    verb: 'get',
    changesState: false,
    commands: [
      'links get',
      'links update',
      'links delete',
      'links open',
      'links qr',
      'links wait',
      'sandbox pay',
    ],
  },
  listLinks: {
    ...LINK,
    list: true,
    method: 'GET',
    path: '/payment-links',
    verb: 'list',
    changesState: false,
    // `login` reads one page to check the key.
    commands: ['links list', 'login'],
  },
  deleteLink: {
    ...LINK,
    method: 'DELETE',
    path: '/payment-links/{id}',
    verb: 'delete',
    changesState: true,
    kind: 'delete link',
    commands: ['links delete'],
  },
  createSubscription: {
    ...SUB,
    method: 'POST',
    path: '/subscriptions',
    verb: 'create',
    changesState: true,
    kind: 'create sub',
    body: SUBSCRIPTION_FIELDS,
    commands: ['subs create'],
  },
  getSubscription: {
    ...SUB,
    method: 'GET',
    path: '/subscriptions/{id}',
    verb: 'get',
    changesState: false,
    commands: ['subs get', 'subs cancel', 'subs delete'],
  },
  updateSubscription: {
    ...SUB,
    method: 'PUT',
    path: '/subscriptions/{id}',
    verb: 'update',
    changesState: true,
    kind: 'update sub',
    body: SUBSCRIPTION_UPDATE_FIELDS,
    commands: ['subs update'],
    presets: [{ verb: 'cancel', kind: 'cancel sub', body: { status: 'cancel' }, commands: ['subs cancel'] }],
  },
  deleteSubscription: {
    ...SUB,
    method: 'DELETE',
    path: '/subscriptions/{id}',
    verb: 'delete',
    changesState: true,
    kind: 'delete sub',
    commands: ['subs delete'],
  },
  listSubscriptions: {
    ...SUB,
    list: true,
    method: 'GET',
    path: '/subscriptions',
    verb: 'list',
    changesState: false,
    commands: ['subs list'],
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
    commands: ['sandbox reset'],
  },
  sandboxClock: {
    ...own,
    method: 'GET',
    path: '/_sandbox/clock',
    noun: 'sandbox clock',
    verb: 'get',
    changesState: false,
    commands: ['sandbox clock'],
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
    commands: ['sandbox clock advance', 'sandbox clock set'],
    agent: true,
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
    commands: ['sandbox seed'],
  },
  sandboxFaults: {
    ...own,
    method: 'GET',
    path: '/_sandbox/faults',
    noun: 'sandbox faults',
    verb: 'list',
    changesState: false,
    commands: ['sandbox faults list'],
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
    commands: ['sandbox faults set'],
  },
  clearSandboxFaults: {
    ...own,
    method: 'DELETE',
    path: '/_sandbox/faults',
    noun: 'sandbox faults',
    verb: 'clear',
    changesState: true,
    kind: 'delete sandbox faults',
    commands: ['sandbox faults clear'],
  },
  sandboxRequests: {
    ...own,
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
    commands: ['sandbox requests'],
    agent: true,
  },
  sandboxPay: settle('pay'),
  sandboxCancel: settle('cancel'),
  sandboxFail: settle('fail'),
  // `{signature_key, endpoints}`; adding a URL there already answers its endpoint; `lease_seconds`: listen's.
  sandboxWebhooks: {
    ...hooks('GET', '', 'sandbox webhooks', 'list', ['sandbox webhooks list', LISTEN]),
    changesState: false,
  },
  addSandboxWebhook: {
    ...hooks('POST', '', 'sandbox webhook', 'add', ['sandbox webhooks add', LISTEN]),
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
    ...hooks('DELETE', '/{id}', 'sandbox webhook', 'remove', ['sandbox webhooks remove', LISTEN]),
    changesState: true,
    kind: 'delete sandbox webhook',
  },
  sandboxDeliveries: {
    ...hooks('GET', '/deliveries', 'sandbox deliveries', 'list', ['sandbox webhooks deliveries']),
    changesState: false,
    query: [field('limit', 'integer', false)],
  },
  resendSandboxDelivery: {
    ...hooks('POST', '/deliveries/{id}/resend', 'sandbox delivery', 'resend', ['sandbox webhooks resend']),
    changesState: true,
    kind: 'create sandbox delivery',
  },
} as const satisfies Record<string, Endpoint>

export type EndpointName = keyof typeof ENDPOINTS

/** Every endpoint, in the order declared. */
export const ENDPOINT_LIST: readonly Endpoint[] = Object.values(ENDPOINTS)

/** `pay mcp` has a tool of it (src/agent): every endpoint of the service, and those of the sandbox that say so. */
export const offeredToAgents = (endpoint: Endpoint) => !endpoint.sandbox || endpoint.agent === true

/** The command that serves the tools (`pay mcp`): it calls each endpoint offered to agents. */
export const AGENT_COMMAND = 'mcp'

/** The command map: each command (as typed) and the endpoints it calls, presets included. */
export function commandMap(): Map<string, Endpoint[]> {
  const map = new Map<string, Endpoint[]>()
  for (const endpoint of ENDPOINT_LIST) {
    const presets = (endpoint.presets ?? []).flatMap((preset) => preset.commands)
    const commands = [...endpoint.commands, ...presets, ...(offeredToAgents(endpoint) ? [AGENT_COMMAND] : [])]
    for (const command of commands) map.set(command, [...(map.get(command) ?? []), endpoint])
  }
  return map
}

const patterns = new Map(
  ENDPOINT_LIST.map((endpoint) => [
    endpoint,
    new RegExp(`^${endpoint.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace('{id}', '[^/]+')}$`),
  ]),
)

/** The endpoint a request went to: its method and path as sent (`/payment-links/ID?x=1`), if declared. */
export function endpointAt(method: string, path: string): Endpoint | undefined {
  const pathname = path.split(/[?#]/)[0]
  return ENDPOINT_LIST.find(
    (endpoint) => endpoint.method === method && patterns.get(endpoint)?.test(pathname),
  )
}

/** The service's creates: sent once with an Idempotency-Key, which the service honours. */
export const takesIdempotencyKey = (endpoint: Endpoint) => endpoint.method === 'POST' && !endpoint.sandbox

/**
 * The path of a request: `{id}` as one path segment, then the query's given values. "", "." and
 * ".." cannot be one: URL resolution would turn DELETE /payment-links/.. into DELETE / (and "" or
 * "." into the collection).
 */
export function pathOf(
  endpoint: Endpoint,
  id?: string,
  query: Record<string, string | number | boolean | undefined> = {},
): string {
  let path = endpoint.path
  if (id !== undefined) {
    if (id === '' || id === '.' || id === '..') {
      throw new PayError(`${JSON.stringify(id)} is not a valid id.`, { kind: 'usage' })
    }
    path = path.replace('{id}', encodeURIComponent(id))
  }
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value))
  return search.size > 0 ? `${path}?${search}` : path
}
