/**
 * Notifications on a sandbox directory with no server: what `pay sandbox webhooks …` and `pay
 * sandbox pay` do when no sandbox of the user's runs. Each opens the store of `dir` for the
 * business of `key`, acts, and closes it; what makes a notification (paying, failing, a resend)
 * also makes its first attempt before it returns, and tells what came of it: what is left waits
 * in the outbox for the next sandbox on the directory. Paying here is the payment transition
 * (domain/payment.ts) with notify subscribed to it (attempts.ts), as in a server.
 */
import type { Outcome } from '../../constants.js'
import { keyHash } from '../../domain/business.js'
import { linkAt } from '../../domain/page-address.js'
import { Payments, type Settled } from '../../domain/payment.js'
import type { Checked, RequestBody } from '../../domain/rules.js'
import { sandboxNow } from '../../store/clock.js'
import { inStore } from '../../store/local.js'
import { SandboxStore } from '../../store/store.js'
import { notifyPayments } from './attempts.js'
import { addEndpoint, checkEndpoint, removeEndpoint, type Webhooks, webhooksOf } from './endpoints.js'
import { type Attempted, Notifier } from './notifier.js'
import {
  type DeliveryFilter,
  type DeliveryRecord,
  type Dispatch,
  deliveryOf,
  type EndpointRecord,
  listDeliveries,
  resendDelivery,
} from './outbox.js'

/** What an operation gave, and the first attempts of the notifications it made. */
export interface Notified<T> {
  result: T
  attempted: Attempted[]
}

/** Runs `act` on the store in `dir` with a notifier of its own, and waits for the attempts it starts. */
async function withNotifier<T>(
  dir: string,
  act: (store: SandboxStore, notifier: Notifier) => T,
): Promise<Notified<T>> {
  const store = new SandboxStore(dir)
  const attempted: Attempted[] = []
  const notifier = new Notifier(store, { mode: 'own', onAttempt: (attempt) => attempted.push(attempt) })
  try {
    const result = act(store, notifier)
    return { result, attempted }
  } finally {
    await notifier.close()
    store.close()
  }
}

/** The payment transition on `store`, its attempts notified (handed to `dispatch` when there is one). */
const notifyingPayments = (store: SandboxStore, dispatch?: Dispatch) =>
  notifyPayments(new Payments(store, () => sandboxNow(store)), store, dispatch)

/**
 * The customer's outcome on link `linkId` of the store in `dir` (whichever business owns it),
 * notified; the link's page named under `origin`, the address that serves the store's pages.
 */
export const settleNotifyingIn = (
  dir: string,
  linkId: string,
  outcome: Outcome,
  origin: string,
): Promise<Notified<Settled | undefined>> =>
  withNotifier(dir, (store, notifier) => {
    const settled = notifyingPayments(store, notifier).settle(linkId, outcome)
    return settled && { ...settled, link: linkAt(settled.link, origin) }
  })

/**
 * The customer's outcome on link `linkId` of the store in `dir`, whichever business owns it; its
 * notifications wait in the outbox for a sandbox (the library's controls beside its server, and tests).
 */
export function settleLinkIn(dir: string, linkId: string, outcome: Outcome): Settled | undefined {
  return inStore(dir, (store) => notifyingPayments(store).settle(linkId, outcome))
}

export const webhooksIn = (dir: string, key: string): Webhooks =>
  inStore(dir, (store) => webhooksOf(store, keyHash(key)))

export function addWebhookIn(dir: string, key: string, body: RequestBody): Checked<EndpointRecord> {
  const checked = checkEndpoint(body)
  if (!checked.ok) return checked
  return { ok: true, value: inStore(dir, (store) => addEndpoint(store, keyHash(key), checked.value)) }
}

export const removeWebhookIn = (dir: string, key: string, id: string): EndpointRecord | undefined =>
  inStore(dir, (store) => removeEndpoint(store, keyHash(key), id))

export const deliveriesIn = (
  dir: string,
  key: string,
  limit: number,
  filter: DeliveryFilter = {},
): DeliveryRecord[] => inStore(dir, (store) => listDeliveries(store, keyHash(key), limit, filter))

/**
 * Delivery `id` sent again, as it is once its first attempt was made; undefined when there is
 * none, `busy` while a sandbox attempts it.
 */
export async function resendIn(dir: string, key: string, id: string) {
  const hash = keyHash(key)
  const resent = await withNotifier(dir, (store, notifier) => resendDelivery(store, hash, id, notifier))
  if (resent.result === undefined || resent.result === 'busy') return { ...resent, result: resent.result }
  return { ...resent, result: inStore(dir, (store) => deliveryOf(store, hash, id)) }
}
