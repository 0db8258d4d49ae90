/**
 * The payment transition: the customer's outcome on a payment link. Besides paying, in test mode
 * the customer may leave the payment pending, cancel, or make the payment fail. All three leave
 * the link unpaid (and payable) and send the customer back to `redirect_url` with `id` and
 * `status=pending|cancelled|failed`, or show a page saying so. Paying sets `paid` once; a link
 * paid already answers every action as paid (the shop is never told a paid link was cancelled),
 * and changes nothing. The same three ways in: the payment page's buttons (handlers/pages/),
 * `POST /_sandbox/payment-links/{id}/pay|pending|cancel|fail` (handlers/double/controls.ts) and
 * `pay sandbox pay` on the local store (handlers/notify/local.ts).
 *
 * A payment attempt is paying an unpaid link, a pending payment of one, or a failed one; what it
 * tells (domain/attempt.ts) the notification carries, and so does the return to `redirect_url`:
 * beside `id` and `status`, the attempt's fields that the plugins read there (two of them do), each
 * added only under a name the `redirect_url` does not use already (GiveWP's own `payment_id` is its
 * donation's, and PHP keeps the last of two: docs/choices.md). Cancelling is no attempt: the
 * customer left before paying. What follows an attempt subscribes to it (onAttempt)
 * and runs in the transaction that makes it: the notifications are written there
 * (handlers/notify/attempts.ts), so that no attempt goes untold and an attempt undone tells
 * nothing. This module imports none of them.
 */
import { OUTCOMES, type Outcome } from '../constants.js'
import { type AttemptData, attemptData, returnFields } from './attempt.js'
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
  /** What it tells: its notification's data (but the hash), and its return's query. */
  data: AttemptData
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

/**
 * Where the customer is sent after `outcome` on `link`, with what the attempt told (none for a
 * cancel, or an action on a link paid already); null when a page of the sandbox says it.
 */
function returnTo(link: PaymentLinkRecord, outcome: Outcome, told?: AttemptData): string | null {
  const back = returnAddress(link.redirect_url)
  if (!back) return null
  const own = new Set(back.searchParams.keys())
  const fields = Object.entries(told ? returnFields(told) : {}).filter(([name]) => !own.has(name))
  return withQuery(back, { id: link._id, status: outcome, ...Object.fromEntries(fields) })
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
      let told: AttemptData | undefined
      if (!changed.before.paid && outcome !== 'cancelled') {
        told = attemptData(link, outcome, at)
        const attempt = { link, paid: outcome === 'paid', at, data: told }
        for (const listener of this.listeners) listener(attempt, business)
      }
      const got = link.paid ? 'paid' : outcome
      return { outcome: got, link, redirect_to: returnTo(link, got, told) }
    })
  }
}
