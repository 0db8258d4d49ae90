/**
 * The HTML of each customer page (customer-pages.ts serves them): the payment page, its receipt,
 * what the customer sees after cancelling, a pending payment or a failed one, the activation page, and the pages
 * that say what went wrong. Built on html.ts.
 */

import { amountText } from '../../../shared/money.js'
import type { PaymentLinkRecord, TokenizationRecord } from '../../domain/records.js'
import { returnAddress } from '../../domain/redirect.js'
import type { ChargeOfLink } from '../billing/billing.js'
import {
  amountHtml,
  amountLabel,
  escapeHtml,
  escapeValue,
  ICONS,
  keepDatesWhole,
  linkDetails,
  linkHeading,
  maskEmail,
  merchant,
  messagePage,
  type PageReply,
  render,
  state,
} from './html.js'

/** The field of the forms that carries the page token. */
export const PAGE_TOKEN_FIELD = 'page_token'

/** The page of a link not paid yet: what is due and one button to pay it. */
export function paymentPage(
  link: PaymentLinkRecord,
  token: string,
  status = 200,
  notice = '',
  charge?: ChargeOfLink,
): PageReply {
  const action = `/checkout/pay?id=${encodeURIComponent(link._id)}`
  return render({
    status,
    title: `Pay ${amountLabel(link)} · ${link.title}`,
    formTo: returnAddress(link.redirect_url),
    body: [
      linkHeading(link),
      notice,
      '<p class="label">Amount due</p>',
      `<p class="amount">${amountHtml(link)}</p>`,
      linkDetails(link, charge),
      `<form method="post" action="${escapeHtml(action)}">`,
      `<input type="hidden" name="${PAGE_TOKEN_FIELD}" value="${escapeHtml(token)}">`,
      `<input type="hidden" name="amount" value="${escapeHtml(String(link.amount))}">`,
      `<input type="hidden" name="currency" value="${escapeValue(link.currency)}">`,
      `<button type="submit" name="outcome" value="paid">Pay ${escapeHtml(amountText(link.amount, link.currency))} <bdi>${escapeHtml(link.currency)}</bdi></button>`,
      '<p class="fine">Test mode: paying marks this link paid. No card is asked for and no money moves.</p>',
      // The outcomes an app must handle besides a payment (domain/payment.ts): the link stays unpaid.
      '<fieldset class="others">',
      '<legend>Test mode: the customer’s other outcomes</legend>',
      '<div class="row"><button type="submit" name="outcome" value="pending">Pending</button><button type="submit" name="outcome" value="cancelled">Cancel payment</button><button type="submit" name="outcome" value="failed">Fail payment</button></div>',
      '</fieldset>',
      '</form>',
    ]
      .filter(Boolean)
      .join('\n'),
  })
}

/** A paid link's page, as seen again later: no button. */
export function paidPage(link: PaymentLinkRecord, charge?: ChargeOfLink): PageReply {
  return render({
    status: 200,
    title: `Paid · ${link.title}`,
    body: [
      linkHeading(link),
      state('ok', 'This payment link is already paid.', 'There is nothing more to pay.'),
      '<p class="label">Amount paid</p>',
      `<p class="amount">${amountHtml(link)}</p>`,
      linkDetails(link, charge),
    ]
      .filter(Boolean)
      .join('\n'),
  })
}

/** What the customer sees once they paid, when the link has no redirect_url. */
export function receiptPage(link: PaymentLinkRecord, charge?: ChargeOfLink): PageReply {
  return render({
    status: 200,
    title: `Payment received · ${link.title}`,
    body: [
      merchant(link.business_id),
      `<div class="done">${ICONS.bigOk}</div>`,
      '<h1 class="center">Payment received</h1>',
      `<p class="description center">Thank you. Your payment for <bdi>${keepDatesWhole(escapeHtml(link.title))}</bdi> was received.</p>`,
      '<p class="label center">Amount paid</p>',
      `<p class="amount center">${amountHtml(link)}</p>`,
      linkDetails(link, charge),
      '<p class="fine">You can close this page.</p>',
    ]
      .filter(Boolean)
      .join('\n'),
  })
}

/** The activation page of a token not active yet. */
export function activationPage(record: TokenizationRecord, businessId: number, token: string): PageReply {
  const action = `/checkout/tokens/${encodeURIComponent(record.token)}/activate`
  return render({
    status: 200,
    title: `Activate · ${record.title}`,
    formTo: returnAddress(record.redirect_url),
    body: [
      tokenHeading(record, businessId),
      `<form method="post" action="${escapeHtml(action)}">`,
      `<input type="hidden" name="${PAGE_TOKEN_FIELD}" value="${escapeHtml(token)}">`,
      '<button type="submit">Activate</button>',
      '</form>',
      '<p class="fine">Test mode: activating marks this token active. No card is asked for.</p>',
    ]
      .filter(Boolean)
      .join('\n'),
  })
}

function tokenHeading(record: TokenizationRecord, businessId: number): string {
  return [
    merchant(businessId),
    `<h1 dir="auto">${escapeHtml(record.title)}</h1>`,
    `<p class="description" dir="auto">${escapeHtml(record.description)}</p>`,
    `<dl class="details"><dt>Email</dt><dd>${escapeHtml(maskEmail(record.email))}</dd></dl>`,
  ]
    .filter(Boolean)
    .join('\n')
}

export function activePage(record: TokenizationRecord, businessId: number): PageReply {
  return render({
    status: 200,
    title: `Active · ${record.title}`,
    body: [
      tokenHeading(record, businessId),
      state('ok', 'This token is already active.', 'There is nothing more to do.'),
    ].join('\n'),
  })
}

export function activatedPage(record: TokenizationRecord, businessId: number): PageReply {
  return render({
    status: 200,
    title: `Activated · ${record.title}`,
    body: [
      merchant(businessId),
      `<div class="done">${ICONS.bigOk}</div>`,
      '<h1 class="center">Token activated</h1>',
      `<p class="description center">Thank you. <bdi>${escapeHtml(record.title)}</bdi> is active.</p>`,
      '<p class="fine">You can close this page.</p>',
    ]
      .filter(Boolean)
      .join('\n'),
  })
}

export const linkNotFound = () =>
  messagePage(404, 'Payment link not found', [
    'This payment link does not exist or was deleted.',
    'Check the address, or ask the business for a new link.',
  ])

/**
 * The answer to a request that names another host than the sandbox's own (a page of a rebound
 * name): 421, before anything is looked up.
 */
export const misdirectedPage = (accepted: string): PageReply =>
  messagePage(
    421,
    'Wrong address',
    [
      'This page was asked for under another name than the sandbox’s own.',
      `Nothing was shown or done. The sandbox answers only as ${escapeHtml(accepted)}.`,
    ],
    { Connection: 'close' },
  )

/** A path under /checkout that no route of the pages' declares (http/routes.ts). */
export const pageNotFound = () => messagePage(404, 'Page not found', ['There is no page at this address.'])

/** A page's path with another method than the pages take (GET, POST); `allow` the Allow header's value. */
export const pageMethodNotAllowed = (allow: string) =>
  messagePage(405, 'Method not allowed', ['This page can only be viewed or submitted.'], { Allow: allow })

export const tokenNotFound = () =>
  messagePage(404, 'Activation link not found', [
    'This activation link does not exist.',
    'Check the address, or ask the business for a new link.',
  ])

/** A POST from another site, or one without this page's token: refused, nothing done. */
export const refused = (pageUrl: string) =>
  messagePage(403, 'This form was not accepted', [
    'Nothing was done.',
    `The form did not come from its own page: it was sent from another site, or its page token is missing or wrong. <a href="${escapeHtml(pageUrl)}">Open the page again</a> to continue.`,
  ])

/** What each unpaid outcome's page says: its heading, the sentence about the link, the way back. */
const UNPAID = {
  cancelled: {
    heading: 'Payment cancelled',
    said: ['You cancelled the payment for', '.'],
    back: 'Back to the payment page',
  },
  pending: {
    heading: 'Payment pending',
    said: ['The payment for', ' is pending.'],
    back: 'Back to the payment page',
  },
  failed: { heading: 'Payment failed', said: ['The payment for', ' did not go through.'], back: 'Try again' },
} as const

/**
 * What the customer sees after cancelling, a pending payment or a failed one, when the link has
 * no `redirect_url`: nothing was paid, and the way back to the page to try again.
 */
export function unpaidPage(
  link: PaymentLinkRecord,
  outcome: 'pending' | 'cancelled' | 'failed',
  pageUrl: string,
): PageReply {
  const { heading, said, back } = UNPAID[outcome]
  const again = `<a href="${escapeHtml(pageUrl)}">${back}</a>`
  return render({
    status: 200,
    title: `${heading} · ${link.title}`,
    body: [
      merchant(link.business_id),
      `<h1>${heading}</h1>`,
      `<p class="description">${said[0]} <bdi>${keepDatesWhole(escapeHtml(link.title))}</bdi>${said[1]}</p>`,
      outcome === 'failed'
        ? state(
            'bad',
            'Nothing was paid.',
            `Test mode: this failure was chosen on the payment page. ${again}`,
          )
        : outcome === 'pending'
          ? state(
              'warn',
              'Nothing was paid yet.',
              `Test mode: a pending payment was chosen on the payment page; the link can still be paid. ${again}`,
            )
          : state('warn', 'Nothing was paid.', `You can still pay this link. ${again}`),
      '<p class="fine">Test mode: no card was asked for and no money moved.</p>',
    ].join('\n'),
  })
}
