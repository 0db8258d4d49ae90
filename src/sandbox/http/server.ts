/**
 * A sandbox served: startSandbox assembles its parts around the store of its directory (the test
 * double and its fault rules, the notifications and their notifier, the payment transition with
 * the notifications subscribed to it, the customer pages' secret, the fixtures it starts with) and
 * listens (listener.ts: one request's way through it).
 */
import { sandboxKeyOf } from '../../shared/sandbox-key.js'
import type { Outcome } from '../constants.js'
import { type Account, accountOfSecret } from '../domain/account.js'
import { businessIdOf, businessOf, listPackages } from '../domain/business.js'
import { Payments, type Settled } from '../domain/payment.js'
import type { PackageRecord } from '../domain/records.js'
import { parseFaultRule } from '../handlers/double/faults.js'
import { FixturesInvalid, fixtureAccount, type Seeded, seedFixtures } from '../handlers/double/fixtures.js'
import type { RecordedRequest } from '../handlers/double/recorded-requests.js'
import { type FaultControl, TestDouble } from '../handlers/double/test-double.js'
import { notifyPayments } from '../handlers/notify/attempts.js'
import { openWebhooks, type RunningWebhooks, type WebhookOptions } from '../handlers/notify/running.js'
import { preparePages } from '../handlers/pages/customer-pages.js'
import { sandboxNow } from '../store/clock.js'
import { SERVER_CHECKPOINT_PAGES } from '../store/database.js'
import type { Notice } from '../store/legacy.js'
import { SandboxStore } from '../store/store.js'
import { DEFAULT_LIMITS, isLoopbackHost, type ServerLimits } from './guard.js'
import { type RequestLogEntry, SandboxServer } from './listener.js'
import { serverSecret } from './proof.js'

export type { RequestLogEntry }

export interface SandboxOptions {
  /** Directory of the store (created 0700 when missing). */
  dir: string
  /** API keys, each its own business. Default: the directory's own key (made for it when it has none). */
  keys?: string[]
  host?: string
  /** 0 picks a free port. */
  port?: number
  /**
   * Origin used in payment_url and activation_url instead of the address the client used:
   * the in-process sandbox listens on a throw-away port but names its well-known address.
   */
  checkoutOrigin?: string
  /** Called once per request, when its answer was sent (or its connection closed without one). */
  onRequest?: (entry: RequestLogEntry) => void
  /** How many connections it keeps and how long it waits for requests (DEFAULT_LIMITS). */
  limits?: Partial<ServerLimits>
  /**
   * Fixtures (handlers/double/fixtures.ts) seeded into the first key's business once bound, before
   * any request is answered; `once` skips the names seeded before. Invalid ones: FixturesInvalid,
   * nothing kept, the server closed.
   */
  seed?: { fixtures: unknown; once?: boolean }
  /**
   * Fault rules every business starts with (handlers/double/faults.ts; a bad one throws
   * FaultRuleError), and the seed of their `P%` draws (default: a random one, which
   * `faults.list().seed` tells).
   */
  faults?: { rules?: readonly string[]; seed?: number }
  /** Its notifications: endpoints to start with, how it delivers (handlers/notify/running.ts). */
  webhooks?: WebhookOptions
  /**
   * The account a shop signs in with (`POST /auth/sign-in`; its businesses are the keys'). Default:
   * the `account` of the `seed` fixtures, else one made from the directory's secret, the same on
   * every start (domain/account.ts).
   */
  account?: Account
}

export interface RunningSandbox {
  /** `http://host:port`, without a trailing slash. */
  baseUrl: string
  keys: string[]
  /** The seeded packages of each key's business. */
  packages: Record<string, PackageRecord[]>
  /** The database file. */
  database: string
  /** The account a shop signs in with. */
  account: Account
  /** What opening the store did that a person should hear of (an import of an old store). */
  notices: Notice[]
  /** What the `seed` option seeded. */
  seeded?: Seeded
  /** Fault rules, set, cleared and listed while it runs (handlers/double/test-double.ts). */
  faults: FaultControl
  /** What the business of `key` (default: the first key) sent, newest last (`GET /_sandbox/requests`). */
  requests(options?: { key?: string; after?: number; limit?: number }): RecordedRequest[]
  /** Signature keys, endpoints and deliveries (handlers/notify/). */
  webhooks: RunningWebhooks
  /** The customer's outcome on a link (whichever business owns it), notified through this sandbox (its faults). */
  settle(linkId: string, outcome: Outcome): Settled | undefined
  /** Stops accepting, closes idle keep-alive sockets, resolves once every connection is closed. */
  close(): Promise<void>
}

/** Serves the payment service API from the store in `dir` until `close()`. */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const { dir, host = '127.0.0.1', port = 0 } = options
  // No key given: the directory's own (src/shared/sandbox-key.ts), never the well-known one.
  const keys = [...new Set(options.keys ?? [sandboxKeyOf(dir)])]
  if (keys.length === 0) throw new TypeError('The sandbox needs at least one API key.')
  for (const key of keys) {
    if (!/^\S+$/.test(key))
      throw new TypeError('A sandbox API key must be non-empty and contain no whitespace.')
  }
  const rules = (options.faults?.rules ?? []).map(parseFaultRule)
  const secret = serverSecret(dir)
  const store = new SandboxStore(dir, SERVER_CHECKPOINT_PAGES)
  const limits = { ...DEFAULT_LIMITS, ...options.limits }
  const double = new TestDouble(keys, businessIdOf, rules, options.faults?.seed, limits.maxHeldRequests)
  let webhooks: ReturnType<typeof openWebhooks>
  try {
    // Listening beyond loopback, an endpoint may be anyone's: its attempts' errors say no more than
    // "unreachable" or "timed out", so that a registered URL cannot map the network.
    const coarseErrors = !isLoopbackHost(host)
    webhooks = openWebhooks(store, keys, { ...options.webhooks, coarseErrors }, (business) =>
      double.notificationFault(business),
    )
  } catch (error) {
    store.close()
    throw error
  }
  // Notify subscribes to the payment transition: what a payment attempt notifies is written with it.
  const payments = notifyPayments(new Payments(store, () => sandboxNow(store)), store, webhooks.notifier)
  preparePages(store)
  const account = options.account ?? fixtureAccount(options.seed?.fixtures) ?? accountOfSecret(secret)
  const parts = {
    store,
    keys,
    secret,
    payments,
    double,
    notifier: webhooks.notifier,
    account,
    checkoutOrigin: options.checkoutOrigin,
    onRequest: options.onRequest,
  }
  const sandbox = new SandboxServer(parts, limits)
  try {
    await sandbox.listen(host, port)
  } catch (error) {
    store.close()
    throw error
  }
  // No await between listening and seeding: no request is read before the fixtures are in.
  let seeded: Seeded | undefined
  if (options.seed) {
    const origin = options.checkoutOrigin ?? sandbox.baseUrl
    const done = seedFixtures(store, businessOf(keys[0]), options.seed.fixtures, {
      ...options.seed,
      origin,
    })
    if (!done.ok) {
      await sandbox.close()
      store.close()
      throw new FixturesInvalid(done.errors)
    }
    seeded = done.value
  }
  webhooks.start()
  return {
    baseUrl: sandbox.baseUrl,
    keys,
    packages: Object.fromEntries(keys.map((key) => [key, listPackages(key)])),
    database: store.file,
    account,
    notices: store.notices,
    seeded,
    faults: double.control(),
    requests: (options) => double.requests(options),
    webhooks: webhooks.running,
    settle: (linkId, outcome) => payments.settle(linkId, outcome),
    close: async () => {
      await sandbox.close()
      await webhooks.notifier.close()
      store.close()
    },
  }
}
