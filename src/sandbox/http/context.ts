/**
 * What the server gives a route's handler: the context of its rules (handlers/context.ts), and what
 * is the server's own, which the handler of a route may take besides.
 */
import type { AccountContext, KeyContext, RequestContext, ScopedContext } from '../handlers/context.js'
import type { TestDouble } from '../handlers/double/test-double.js'
import type { Notifier } from '../handlers/notify/notifier.js'

/** What is the server's own. */
export interface Served {
  /** Fault rules, the recorded requests, and whether the server is stopping (handlers/double/). */
  double: TestDouble
  /** Attempts the notifications the request makes (handlers/notify/). */
  notifier: Notifier
  /** The secret of the sandbox's directory, with which it proves it is the user's own (proof.ts). */
  secret: Buffer
}

/** Every route's context, as the server makes it. */
export interface ServedRequest extends RequestContext, Served {}
/** A `key` route's. */
export interface ServedKey extends KeyContext, Served {}
/** A `key scoped` route's. */
export interface ServedScoped extends ScopedContext, Served {}
/** A route of the account's (the sign-in, and `account`). */
export interface ServedAccount extends AccountContext, Served {}
