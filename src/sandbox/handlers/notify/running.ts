/**
 * The notifications of a running sandbox (http/server.ts): its notifier, the endpoints it starts
 * with, and what its caller may ask of them (the signature keys, the deliveries).
 */

import { type Business, businessOf } from '../../domain/business.js'
import type { SandboxStore } from '../../store/store.js'
import { addEndpoint, webhooksOf } from './endpoints.js'
import { WEBHOOK_EVENTS } from './notification.js'
import { type Attempted, type DeliveryLimits, Notifier, type NotifierOptions } from './notifier.js'
import { type DeliveryRecord, type EndpointRecord, listDeliveries } from './outbox.js'
import { webhookUrlProblem } from './url.js'

export interface WebhookOptions {
  /** Endpoint URLs (http or https) the first key's business is given, each unless it has it already. */
  endpoints?: string[]
  /**
   * `outbox` (default): attempt what this sandbox makes and whatever the outbox holds due, until
   * closed; `own`: only what it makes, once, waited for as it closes (a sandbox for one command).
   */
  deliver?: NotifierOptions['mode']
  /** Timeouts, backoff, leases (notifier.ts DEFAULT_DELIVERY). */
  limits?: Partial<DeliveryLimits>
  /** Told of each attempt this sandbox makes. */
  onAttempt?: (attempt: Attempted) => void
  /** An attempt that got no answer says only "unreachable" or "timed out" (a sandbox beyond loopback). */
  coarseErrors?: boolean
}

export interface RunningWebhooks {
  /** The signature key of each key's business, in the order of the keys. */
  signatureKeys: string[]
  /** The endpoints of the first key's business as it starts. */
  endpoints: EndpointRecord[]
  /** The newest deliveries (`limit`, default 1,000) of the business of `key` (default: the first key), newest last. */
  deliveries(options?: { key?: string; limit?: number }): DeliveryRecord[]
}

/** What http/server.ts needs to give notifications to a sandbox on `store`. */
export function openWebhooks(
  store: SandboxStore,
  keys: readonly string[],
  options: WebhookOptions,
  fault: NotifierOptions['fault'],
): { notifier: Notifier; running: RunningWebhooks; start(): void } {
  const wrong = options.endpoints?.find((url) => webhookUrlProblem(url) !== undefined)
  if (wrong !== undefined) {
    // A password is not repeated in the error.
    const shown = webhookUrlProblem(wrong) === 'credentials' ? 'one with them' : `"${wrong}"`
    throw new TypeError(
      `A webhook endpoint is an http:// or https:// URL with no user name or password, not ${shown}.`,
    )
  }
  const businesses = new Map<string, Business>(keys.map((key) => [key, businessOf(key)]))
  const business = (key = keys[0]) => businesses.get(key) ?? businessOf(key)
  const notifier = new Notifier(store, {
    mode: options.deliver ?? 'outbox',
    limits: options.limits,
    onAttempt: options.onAttempt,
    coarseErrors: options.coarseErrors,
    fault,
  })
  const first = business().keyHash
  for (const url of options.endpoints ?? []) {
    addEndpoint(store, first, { url, events: [...WEBHOOK_EVENTS], enabled: true })
  }
  return {
    notifier,
    running: {
      signatureKeys: keys.map((key) => webhooksOf(store, business(key).keyHash).signature_key),
      endpoints: webhooksOf(store, first).endpoints,
      deliveries: ({ key, limit = 1000 } = {}) => listDeliveries(store, business(key).keyHash, limit),
    },
    start: () => notifier.start(),
  }
}
