/**
 * The customer's outcomes of a payment link (issue 25 item 2): besides paying, in test mode the
 * customer may cancel, or make the payment fail. Both leave the link unpaid and send the customer
 * back to `redirect_url` with `id` and `status=cancelled|failed`, or show a page saying so. The
 * same three ways in as paying: the payment page's buttons (pages.ts), `POST
 * /_sandbox/payment-links/{id}/pay|cancel|fail` (double.ts) and `pay sandbox pay --outcome` on the
 * local store (settleLinkIn).
 */
import { OUTCOMES, type Outcome } from '../constants.js'
import {
  escapeHtml,
  keepDatesWhole,
  merchant,
  type PageReply,
  render,
  returnAddress,
  state,
  withQuery,
} from '../pages/html.js'
import type { PaymentLinkRecord } from '../service/records.js'
import { inStore } from '../store/local.js'
import type { BusinessKey, SandboxStore } from '../store/store.js'
import { payLink } from './control.js'

export { OUTCOMES, type Outcome } from '../constants.js'

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
export function returnTo(link: PaymentLinkRecord, outcome: Outcome): string | null {
  const back = returnAddress(link.redirect_url)
  return back ? withQuery(back, { id: link._id, status: outcome }) : null
}

/**
 * The customer's `outcome` on link `linkId` (of `business` when given, else of whichever business
 * owns it): paying sets `paid` once; cancelling or failing changes nothing. A link paid already
 * answers every action as paid: the shop is never told a paid link was cancelled. Undefined when
 * there is no such link.
 */
export function settleLink(
  store: SandboxStore,
  linkId: string,
  outcome: Outcome,
  business?: BusinessKey,
): Settled | undefined {
  const link =
    outcome === 'paid'
      ? payLink(store, linkId, business)
      : business
        ? store.get('payment_links', business, linkId)
        : store.findLink(linkId)
  if (!link) return undefined
  const got = link.paid ? 'paid' : outcome
  return { outcome: got, link, redirect_to: returnTo(link, got) }
}

/** settleLink on the store in `dir`, whichever business owns the link (`pay sandbox pay` with no server). */
export function settleLinkIn(dir: string, linkId: string, outcome: Outcome): Settled | undefined {
  return inStore(dir, (store) => settleLink(store, linkId, outcome))
}

/**
 * What the customer sees after cancelling, or after the payment failed, when the link has no
 * `redirect_url`: nothing was paid, and the way back to the page to try again.
 */
export function unpaidPage(
  link: PaymentLinkRecord,
  outcome: 'cancelled' | 'failed',
  pageUrl: string,
): PageReply {
  const cancelled = outcome === 'cancelled'
  const heading = cancelled ? 'Payment cancelled' : 'Payment failed'
  const again = `<a href="${escapeHtml(pageUrl)}">${cancelled ? 'Back to the payment page' : 'Try again'}</a>`
  return render({
    status: 200,
    title: `${heading} · ${link.title}`,
    body: [
      merchant(link.business_id),
      `<h1>${heading}</h1>`,
      `<p class="description">${cancelled ? 'You cancelled the payment for' : 'The payment for'} <bdi>${keepDatesWhole(escapeHtml(link.title))}</bdi>${cancelled ? '.' : ' did not go through.'}</p>`,
      cancelled
        ? state('warn', 'Nothing was paid.', `You can still pay this link. ${again}`)
        : state(
            'bad',
            'Nothing was paid.',
            `Test mode: this failure was chosen on the payment page. ${again}`,
          ),
      '<p class="fine">Test mode: no card was asked for and no money moved.</p>',
    ].join('\n'),
  })
}
