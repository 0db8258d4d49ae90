/**
 * The notifications of a payment attempt: what notify does on the payment transition
 * (domain/payment.ts), to which it subscribes (notifyPayments). In the transaction of the attempt,
 * one delivery per live endpoint of the business is written to the outbox (outbox.ts); once that
 * transaction is committed, and only then, the process that attempts them (notifier.ts) is handed
 * those leased to it. An attempt undone (its request failed after it) leaves no delivery and sends
 * nothing.
 */
import type { Payments } from '../../domain/payment.js'
import { newObjectId, nowIso } from '../../domain/records.js'
import type { SandboxStore } from '../../store/store.js'
import { notificationText, PAYMENT_CREATED } from './notification.js'
import {
  type Claimed,
  claimedOf,
  type Dispatch,
  endpointRows,
  get,
  OUTBOX,
  signatureKeyOf,
} from './outbox.js'

/**
 * Subscribes notify to the payment transition of `payments`, on `store`: each attempt's
 * notifications written in its transaction, and handed to `dispatch` (the process that attempts
 * them) once committed, also when a request's group commit holds the write; without one they wait
 * in the outbox for a sandbox's next look.
 */
export function notifyPayments(payments: Payments, store: SandboxStore, dispatch?: Dispatch): Payments {
  return payments.onAttempt((attempt, business) => {
    const claimed = notifyAttempt(store, attempt, business?.keyHash ?? null, dispatch)
    if (claimed.length > 0 && dispatch) store.afterCommit(() => dispatch.take(claimed))
  })
}

/**
 * Writes the notifications of a payment attempt on a link of the business of `keyHash` (null: the
 * business that owns the link), one delivery per live endpoint that takes `payment.created`, in
 * the transaction under way. Deliveries due now are leased to `how.owner` (and returned), unless a
 * fault delays or drops them; `duplicate` writes the same body twice. Without `how` they wait,
 * unleased, for a sandbox's next look at the outbox.
 */
export function notifyAttempt(
  store: SandboxStore,
  attempt: Parameters<typeof notificationText>[0],
  keyHash: string | null,
  how?: Dispatch,
): Claimed[] {
  const owner =
    keyHash ??
    (get(store, OUTBOX.ownerOfLink, attempt.link._id, attempt.link.business_id)?.key_hash as string)
  if (owner === undefined) return []
  const now = Date.now()
  const endpoints = endpointRows(store, owner, now).filter(
    (row) => row.enabled === 1 && (JSON.parse(row.events) as string[]).includes(PAYMENT_CREATED),
  )
  if (endpoints.length === 0) return []
  const body = notificationText(attempt, signatureKeyOf(store, owner))
  const created = nowIso(now)
  const claimed: Claimed[] = []
  for (const endpoint of endpoints) {
    const fault = how?.fault?.(attempt.link.business_id)
    const effect = fault?.effect
    const dropped = effect?.kind === 'drop'
    const due = dropped ? null : now + (effect?.kind === 'delay' ? effect.ms : 0)
    const leased = how !== undefined && due === now && (how.leasing?.() ?? true)
    const attempts = dropped
      ? [
          {
            time: created,
            status: null,
            error: `not sent: a fault of the pay sandbox [WEBHOOK ${fault?.label}]`,
          },
        ]
      : []
    for (let copy = effect?.kind === 'duplicate' ? 2 : 1; copy > 0; copy--) {
      const row = get(
        store,
        OUTBOX.addDelivery,
        owner,
        newObjectId(),
        endpoint.id,
        endpoint.url,
        PAYMENT_CREATED,
        attempt.link._id,
        body,
        dropped ? 'failed' : 'pending',
        JSON.stringify(attempts),
        due,
        leased ? now + (how?.leaseMs ?? 0) : null,
        leased ? how?.owner : null,
        created,
      )
      if (leased && row) claimed.push(claimedOf(row))
    }
  }
  return claimed
}
