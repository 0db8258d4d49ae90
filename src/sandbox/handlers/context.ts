/**
 * What a handler is given. Each route of the table (http/routes.ts) gets the context its rules call
 * for: every route the request, the store and the payment transition; a route that needs a key
 * (`key`) also the request's body, id, addresses and time; a business-scoped one (`scoped`) also
 * the caller, the business whose records alone it may act on. The server adds what is its own
 * (http/context.ts: its test double, its notifier, its secret), and a handler that needs one of
 * them says so in the type it takes. A route of the service's whose body has fields in the
 * endpoint table gets them checked (`input`, CheckedContext): the router checks them before the
 * handler runs, and answers the 422 of those that fail. A route of the account's (the sign-in, and
 * what an access token opens: `account`) gets the account and its businesses (AccountContext).
 */
import type http from 'node:http'
import type { ENDPOINTS, EndpointName } from '../../shared/endpoints.js'
import type { BodyOf, Field } from '../../shared/fields.js'
import type { Account, AccountBusiness } from '../domain/account.js'
import type { Business } from '../domain/business.js'
import type { Payments } from '../domain/payment.js'
import type { RequestBody } from '../domain/rules.js'
import type { SandboxStore } from '../store/store.js'

export interface RequestContext {
  store: SandboxStore
  /** The customer's outcome on a link, with what subscribes to its attempts (the notifications). */
  payments: Payments
  request: http.IncomingMessage
  /** GET for HEAD. */
  method: string
  /** No query, no trailing slash, and without the `/api` it may have come under (`base`). */
  path: string
  /**
   * `/api` for a request under it (the base path the service's shop plugins use: every route but
   * the customer pages is served there too, with the same answer), else ''.
   */
  base: string
  query: URLSearchParams
  /** The `{id}` segment of the route's path (or its one `{…}`) as it was sent (percent-encoded); '' when it has none. */
  segment: string
}

/** The context of a route that needs a key (`key`). */
export interface KeyContext extends RequestContext {
  /** `segment` decoded (a segment that cannot be is answered 404 before the handler runs). */
  id: string
  /** The path's other parameters, decoded: `{business, integration}`. */
  params: Readonly<Record<string, string>>
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

/**
 * The context of a route of the account's: the sign-in, and the routes its access token opens
 * (`account`): the request as a key route has it, the account and its businesses (the sandbox's,
 * one per key), and the secret of the sandbox's directory, which signs its access tokens.
 */
export interface AccountContext extends Omit<KeyContext, 'checkoutOrigin'> {
  account: Account
  businesses: readonly AccountBusiness[]
  secret: Buffer
}

/**
 * The fields of endpoint N's body as the router checked them (domain/rules.ts): typed as the table
 * declares them (BodyOf), the amount as the number it spells.
 */
export type InputOf<N extends EndpointName> = (typeof ENDPOINTS)[N] extends {
  readonly body: infer F extends readonly Field[]
}
  ? { [K in keyof BodyOf<F>]: K extends 'amount' ? number : BodyOf<F>[K] }
  : Record<string, never>

/** The context of a route of the service's with a body (endpoint N's): its fields, checked by the router. */
export type CheckedContext<N extends EndpointName> = ScopedContext & { input: InputOf<N> }

/** The same for a route of the account's. */
export type CheckedAccountContext<N extends EndpointName> = AccountContext & { input: InputOf<N> }
