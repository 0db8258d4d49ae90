/**
 * What one endpoint of the table (endpoints.ts) is: its method and path, what it acts on and
 * answers, what authorises it, its fields; and what is read from one alone (its path filled, its
 * parameters, whether it takes an Idempotency-Key).
 */
import type { Field, Method } from './fields.js'

/**
 * What an endpoint answers, as the client reads it: `record` one record (the envelope's data),
 * `list` a list the service answers page by page (next_page_url), `items` a list answered at once,
 * `none` nothing pay needs (a delete: any body, or 204).
 */
export type AnswerKind = 'record' | 'list' | 'items' | 'none'

interface EndpointBase {
  readonly method: Method
  /** The path under the base URL, a record's id as `{id}`: `/payment-links/{id}`. */
  readonly path: string
  /** What it acts on, as the journal's `resource` and the answer's reader name it: `payment link`. */
  readonly noun: string
  /** What it does to it: `create`, `get`, `list`, `update`, `delete`, `pay`. */
  readonly verb: string
  readonly answer: AnswerKind
  /** The sandbox's own (`/_sandbox/…`, not in the spec): only a sandbox answers it. */
  readonly sandbox: boolean
  /**
   * What authorises it: `key` an API key (the API, and the sandbox's controls), `account` the
   * access token a sign-in gives (a business's integration: its businesses and webhook events,
   * as the service's shop plugins call them), `none` nothing (the sign-in itself).
   */
  readonly auth?: 'key' | 'account' | 'none'
  /** Its body or answer holds a credential (a password, an access token): never a tool of `pay mcp`. */
  readonly secret?: boolean
  /** The request body's fields; none for a request without a body. */
  readonly body?: readonly Field[]
  /** The query's fields. */
  readonly query?: readonly Field[]
  /**
   * The same request with a fixed body, a change of its own: Update Subscription with
   * `{"status": "cancel"}` is a cancel (`pay subs cancel`, the journal's `cancel sub`).
   */
  readonly presets?: readonly Preset[]
}

export interface Preset {
  readonly verb: string
  readonly kind: string
  readonly body: Readonly<Record<string, string | boolean>>
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

/** How an endpoint is authorised (`key` unless it says). */
export const authOf = (endpoint: Endpoint) => endpoint.auth ?? 'key'

/** The service's creates: sent once with an Idempotency-Key, which the service honours. */
export const takesIdempotencyKey = (endpoint: Endpoint) =>
  endpoint.method === 'POST' && !endpoint.sandbox && authOf(endpoint) === 'key'

/** The names of its path's parameters other than `{id}`: `business`, `integration`. */
export const paramsOf = (endpoint: Endpoint): string[] =>
  [...endpoint.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name).filter((name) => name !== 'id')

/** Its path names one record: `{id}`. */
export const takesId = (endpoint: Endpoint) => endpoint.path.includes('{id}')

/**
 * The path with `{id}` and each other parameter (`{business}`) as one path segment
 * (percent-encoded), and no query: a request's. Undefined for a value of "", "." or "..", which
 * cannot be one (URL resolution would turn DELETE /payment-links/.. into DELETE /, and "" or "."
 * into the collection), and for a parameter with no value.
 */
export function fillPath(
  endpoint: Endpoint,
  id?: string,
  params: Record<string, string> = {},
): string | undefined {
  const values: Record<string, string | undefined> = { ...params, id }
  let bad = false
  const path = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name]
    if (value === undefined || value === '' || value === '.' || value === '..') bad = true
    return encodeURIComponent(value ?? '')
  })
  return bad ? undefined : path
}
