/**
 * The customer's outcomes of a payment link: besides paying, in test mode the customer may cancel,
 * or make the payment fail. Both leave the link unpaid and send the customer back to
 * `redirect_url` with `id` and `status=cancelled|failed`, or show a page saying so. The same three
 * ways in as paying: the payment page's buttons (pages/customer-pages.ts), `POST
 * /_sandbox/payment-links/{id}/pay|cancel|fail` (controls.ts) and `pay sandbox pay --outcome` on
 * the local store (settleLinkIn).
 *
 * Each payment attempt is told to the business's webhook endpoints in the transaction that makes
 * it (notify/outbox.ts): paying an unpaid link (`payment_status` 1) and a failed payment of one
 * (3). Cancelling is no attempt, and tells nothing: the customer left before paying, and the
 * service's plugins mark an order failed on any notification but paid or pending, while the
 * customer may still come back and pay. An action on a paid link changes nothing and tells nothing.
 */
import { OUTCOMES, type Outcome } from '../constants.js'
import type { BusinessKey } from '../domain/business.js'
import { laterIso, type PaymentLinkRecord } from '../domain/records.js'
import { type Dispatch, notifyAttempt } from '../notify/outbox.js'
import { returnAddress, withQuery } from '../pages/html.js'
import { sandboxNow } from '../store/clock.js'
import { inStore } from '../store/local.js'
import type { SandboxStore } from '../store/store.js'

export const isOutcome = (value: unknown): value is Outcome => OUTCOMES.includes(value as Outcome)

/** What the customer's action came to: the link after it, and where the customer is sent. */
export interface Settled {
  /** What the customer got: `paid` for any action on a link paid already. */
  outcome: Outcome
  link: PaymentLinkRecord
  /** `redirect_url` with `id` and `status` added; null when the link has none (a page says it). */
  redirect_to: string | null
}

/** Where the customer is sent after `outcome` on `link`; null when a page of the sandbox says it. */
function returnTo(link: PaymentLinkRecord, outcome: Outcome): string | null {
  const back = returnAddress(link.redirect_url)
  return back ? withQuery(back, { id: link._id, status: outcome }) : null
}

/**
 * The customer's `outcome` on link `linkId` (of `business` when given, else of whichever business
 * owns it): paying sets `paid` once; cancelling or failing changes nothing. A link paid already
 * answers every action as paid: the shop is never told a paid link was cancelled. The attempt's
 * notifications are written with it, and handed to `dispatch` (the process that attempts them)
 * once committed (also when a request's group commit holds the write); without one they wait in the outbox. Undefined when there is no such link.
 */
export function settleLink(
  store: SandboxStore,
  linkId: string,
  outcome: Outcome,
  business?: BusinessKey,
  dispatch?: Dispatch,
): Settled | undefined {
  const settled = store.write(() => {
    const now = sandboxNow(store)
    const paid = outcome === 'paid' ? pay(store, linkId, now, business) : undefined
    const link =
      paid?.after ?? (business ? store.get('payment_links', business, linkId) : store.findLink(linkId))
    if (!link) return undefined
    const attempted = paid ? !paid.before.paid : outcome === 'failed' && !link.paid
    if (attempted) {
      const claimed = notifyAttempt(
        store,
        { link, paid: outcome === 'paid', at: now },
        business?.keyHash ?? null,
        dispatch,
      )
      if (claimed.length > 0 && dispatch) store.afterCommit(() => dispatch.take(claimed))
    }
    const got = link.paid ? 'paid' : outcome
    return { outcome: got, link, redirect_to: returnTo(link, got) }
  })
  return settled
}

/**
 * Sets `paid` on link `linkId` and moves `updated_at` (sandbox time `now`): a link of `business`
 * when one is given (a request through HTTP acts on its caller's records only), else of whichever
 * business owns it (the public payment page, and the local store). A paid link is left as it is
 * (paying twice changes nothing). The link before and after, or undefined when there is none.
 */
function pay(store: SandboxStore, linkId: string, now: number, business?: BusinessKey) {
  return store.changeLink(
    linkId,
    (link) => (link.paid ? link : { ...link, paid: true, updated_at: laterIso(link.updated_at, now) }),
    business,
  )
}

/**
 * settleLink on the store in `dir`, whichever business owns the link; its notifications wait in
 * the outbox for a sandbox (the library's controls beside its server, and tests).
 */
export function settleLinkIn(dir: string, linkId: string, outcome: Outcome): Settled | undefined {
  return inStore(dir, (store) => settleLink(store, linkId, outcome))
}

/** Whether link `linkId` of the store in `dir` is paid (`pay sandbox pay` says when paying changes nothing). */
export function linkPaidIn(dir: string, linkId: string): boolean {
  return inStore(dir, (store) => store.findLink(linkId)?.paid === true)
}
