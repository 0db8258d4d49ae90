/**
 * The payment transition: the customer's outcome on a payment link. Besides paying, in test mode
 * the customer may cancel, or make the payment fail. Both leave the link unpaid and send the
 * customer back to `redirect_url` with `id` and `status=cancelled|failed`, or show a page saying
 * so. Paying sets `paid` once; a link paid already answers every action as paid (the shop is never
 * told a paid link was cancelled), and changes nothing. The same three ways in: the payment page's
 * buttons (handlers/pages/), `POST /_sandbox/payment-links/{id}/pay|cancel|fail`
 * (handlers/double/controls.ts) and `pay sandbox pay` on the local store (handlers/notify/local.ts).
 *
 * A payment attempt is paying an unpaid link, or a failed payment of one. Cancelling is no
 * attempt: the customer left before paying. What follows an attempt subscribes to it (onAttempt)
 * and runs in the transaction that makes it: the notifications are written there
 * (handlers/notify/attempts.ts), so that no attempt goes untold and an attempt undone tells
 * nothing. This module imports none of them.
 */
import { OUTCOMES, type Outcome } from '../constants.js'
import type { BusinessKey } from './business.js'
import { laterIso, type PaymentLinkRecord } from './records.js'
import { returnAddress, withQuery } from './redirect.js'

export const isOutcome = (value: unknown): value is Outcome => OUTCOMES.includes(value as Outcome)

/** What the customer's action came to: the link after it, and where the customer is sent. */
export interface Settled {
  /** What the customer got: `paid` for any action on a link paid already. */
  outcome: Outcome
  link: PaymentLinkRecord
  /** `redirect_url` with `id` and `status` added; null when the link has none (a page says it). */
  redirect_to: string | null
}

/** What the customer's attempt came to, and when (sandbox time, milliseconds since the epoch). */
export interface PaymentAttempt {
  link: PaymentLinkRecord
  paid: boolean
  at: number
}

/**
 * What follows a payment attempt, run inside the transaction that makes it: `business` is the
 * caller's when the attempt came through the API (it acts on its own links only), undefined when
 * the link was found by id alone (the payment page, the local store).
 */
export type AttemptListener = (attempt: PaymentAttempt, business: BusinessKey | undefined) => void

/** What the transition needs of where links are kept (the store, store/store.ts, is one). */
export interface PaymentLedger {
  /** Runs `body` as one write transaction: all of it is kept, or none of it. */
  write<T>(body: () => T): T
  /**
   * Changes link `id` (of `business` when given, else of whichever business owns it): `change`
   * gets the current record and returns the new one, or the same object to change nothing.
   */
  changeLink(
    id: string,
    change: (link: PaymentLinkRecord) => PaymentLinkRecord,
    business?: BusinessKey,
  ): { before: PaymentLinkRecord; after: PaymentLinkRecord } | undefined
}

/** The link after the customer's `outcome` at sandbox time `at`: paid once, else as it was. */
export function afterOutcome(link: PaymentLinkRecord, outcome: Outcome, at: number): PaymentLinkRecord {
  if (outcome !== 'paid' || link.paid) return link
  return { ...link, paid: true, updated_at: laterIso(link.updated_at, at) }
}

/** Where the customer is sent after `outcome` on `link`; null when a page of the sandbox says it. */
function returnTo(link: PaymentLinkRecord, outcome: Outcome): string | null {
  const back = returnAddress(link.redirect_url)
  return back ? withQuery(back, { id: link._id, status: outcome }) : null
}

/**
 * The payment transition on the links of `ledger`, at the sandbox time `now` gives, with what
 * subscribes to its attempts.
 */
export class Payments {
  private readonly listeners: AttemptListener[] = []

  constructor(
    private readonly ledger: PaymentLedger,
    /** Sandbox time (store/clock.ts), read inside the transaction. */
    private readonly now: () => number,
  ) {}

  /** Runs `listener` on every payment attempt, inside its transaction, in the order they subscribed. */
  onAttempt(listener: AttemptListener): this {
    this.listeners.push(listener)
    return this
  }

  /**
   * The customer's `outcome` on link `linkId` (of `business` when given, else of whichever business
   * owns it), in one write transaction with what its attempt sets off. Undefined when there is no
   * such link.
   */
  settle(linkId: string, outcome: Outcome, business?: BusinessKey): Settled | undefined {
    return this.ledger.write(() => {
      const at = this.now()
      const changed = this.ledger.changeLink(linkId, (link) => afterOutcome(link, outcome, at), business)
      if (!changed) return undefined
      const link = changed.after
      if (!changed.before.paid && outcome !== 'cancelled') {
        const attempt = { link, paid: outcome === 'paid', at }
        for (const listener of this.listeners) listener(attempt, business)
      }
      const got = link.paid ? 'paid' : outcome
      return { outcome: got, link, redirect_to: returnTo(link, got) }
    })
  }
}
