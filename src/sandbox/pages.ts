/**
 * The customer's side of the sandbox: the payment page at a link's `payment_url`
 * (`/checkout/pay?id=<_id>`) and the activation page at a token's `activation_url`
 * (`/checkout/tokens/<token>/activate`). Public like a real checkout (no API key), plain HTML
 * rendered here (no framework, no script, no external asset), one inline style sheet allowed by
 * its hash in the Content-Security-Policy.
 *
 * GET shows a page and changes nothing. POST (the page's own form) acts, once it has passed:
 * - an origin check: a browser's `Sec-Fetch-Site` must be `same-origin`, and its `Origin` this
 *   server's (or `null`, which is what a same-origin POST carries under `Referrer-Policy:
 *   no-referrer`, only together with `Sec-Fetch-Site: same-origin`). A client that sends neither
 *   (curl) is judged by the page token alone;
 * - the page token: an HMAC, under a secret kept in the store, of what the page showed (the
 *   link's id, amount and currency; the token). A page shown before the amount changed is
 *   answered 409 with the page as it is now, to be paid again.
 * Then paying sets `paid` (and `updated_at`) once, activating records the activation once; a
 * second POST changes nothing and is answered as the first: 303 to the record's `redirect_url`
 * with `id=<_id>&status=paid` (`token=<token>&status=active`) in its query, or a receipt.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type http from 'node:http'
import { type ChargeOfLink, chargeOfLink, sandboxNow } from './billing.js'
import { isOutcome, settleLink, unpaidPage } from './outcomes.js'
import {
  amountHtml,
  amountLabel,
  amountText,
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
  returnAddress,
  seeOther,
  state,
  withQuery,
} from './page-html.js'
import { nowIso, type PaymentLinkRecord, type TokenizationRecord } from './records.js'
import { type SandboxStore, StoreBusyError } from './store.js'

export { amountText, escapeHtml, maskEmail, type PageReply, withQuery } from './page-html.js'

/** What a page handler needs of the request. */
export interface PageRequest {
  /** GET (HEAD too) or POST; anything else is answered 405. */
  method: string
  query: URLSearchParams
  request: http.IncomingMessage
}

type PageHandler = (page: PageRequest) => Promise<PageReply>

/** The largest form a page accepts: its three hidden fields fit in far less. */
const MAX_FORM_BYTES = 16 * 1024

/** The field of the forms that carries the page token. */
export const PAGE_TOKEN_FIELD = 'page_token'

/** The page of a link not paid yet: what is due and one button to pay it. */
function paymentPage(
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
      // The outcomes an app must handle besides a payment (outcomes.ts): the link stays unpaid.
      '<fieldset class="others">',
      '<legend>Test mode: the customer’s other outcomes</legend>',
      '<div class="row"><button type="submit" name="outcome" value="cancelled">Cancel payment</button><button type="submit" name="outcome" value="failed">Fail payment</button></div>',
      '</fieldset>',
      '</form>',
    ]
      .filter(Boolean)
      .join('\n'),
  })
}

/** A paid link's page, as seen again later: no button. */
function paidPage(link: PaymentLinkRecord, charge?: ChargeOfLink): PageReply {
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
function receiptPage(link: PaymentLinkRecord, charge?: ChargeOfLink): PageReply {
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
function activationPage(record: TokenizationRecord, businessId: number, token: string): PageReply {
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

function activePage(record: TokenizationRecord, businessId: number): PageReply {
  return render({
    status: 200,
    title: `Active · ${record.title}`,
    body: [
      tokenHeading(record, businessId),
      state('ok', 'This token is already active.', 'There is nothing more to do.'),
    ].join('\n'),
  })
}

function activatedPage(record: TokenizationRecord, businessId: number): PageReply {
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

const linkNotFound = () =>
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

const tokenNotFound = () =>
  messagePage(404, 'Activation link not found', [
    'This activation link does not exist.',
    'Check the address, or ask the business for a new link.',
  ])

/** A POST from another site, or one without this page's token: refused, nothing done. */
const refused = (pageUrl: string) =>
  messagePage(403, 'This form was not accepted', [
    'Nothing was done.',
    `The form did not come from its own page: it was sent from another site, or its page token is missing or wrong. <a href="${escapeHtml(pageUrl)}">Open the page again</a> to continue.`,
  ])

// --- Requests ------------------------------------------------------------------------------------

class RefusedForm extends Error {
  constructor(
    readonly status: number,
    readonly heading: string,
  ) {
    super(heading)
  }
}

/** The form of a POST: `application/x-www-form-urlencoded`, at most MAX_FORM_BYTES. */
async function readForm(request: http.IncomingMessage): Promise<URLSearchParams> {
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') throw new RefusedForm(415, 'This form could not be read')
  if (Number(request.headers['content-length'] ?? 0) > MAX_FORM_BYTES) {
    throw new RefusedForm(413, 'This form is too large')
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_FORM_BYTES) throw new RefusedForm(413, 'This form is too large')
    chunks.push(chunk)
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
}

/**
 * Whether a POST comes from a page of this server. Browsers say where a request comes from in
 * `Sec-Fetch-Site` and `Origin`; a same-origin POST from a page served with `Referrer-Policy:
 * no-referrer` carries `Origin: null`, which is accepted only beside `Sec-Fetch-Site:
 * same-origin`. A client that sends neither header is no browser: the page token decides.
 */
export function fromThisOrigin(headers: http.IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin') return false
  const origin = headers.origin
  if (origin === undefined) return true
  if (origin === 'null') return site === 'same-origin'
  const host = headers.host
  return host !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`
}

function sameToken(given: string | null, expected: string): boolean {
  if (given === null) return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The payment and activation pages, on one store. */
export class CustomerPages {
  constructor(private readonly store: SandboxStore) {
    // Made now, so that showing a page never writes anything.
    store.secret('pages')
  }

  /** The handler of a path under /checkout/, or undefined for a path that is none of the pages'. */
  match(path: string): PageHandler | undefined {
    if (path === '/checkout/pay') return (page) => this.guard(page, () => this.payment(page))
    const activation = /^\/checkout\/tokens\/([^/]+)\/activate$/.exec(path)
    if (activation) {
      return (page) => this.guard(page, () => this.activation(page, activation[1]))
    }
    if (path === '/checkout' || path.startsWith('/checkout/')) {
      return async () => messagePage(404, 'Page not found', ['There is no page at this address.'])
    }
    return undefined
  }

  /** A page token: what the page showed, signed with the store's secret. */
  private sign(fields: unknown[]): string {
    return createHmac('sha256', this.store.secret('pages')).update(JSON.stringify(fields)).digest('base64url')
  }

  /** Methods other than GET and POST, forms that cannot be read, and a store that cannot answer, as pages. */
  private async guard(page: PageRequest, handle: () => Promise<PageReply>): Promise<PageReply> {
    if (page.method !== 'GET' && page.method !== 'POST') {
      return messagePage(405, 'Method not allowed', ['This page can only be viewed or submitted.'], {
        Allow: 'GET, HEAD, POST',
      })
    }
    try {
      return await handle()
    } catch (error) {
      if (error instanceof RefusedForm) {
        return messagePage(error.status, error.heading, [
          'Nothing was done.',
          'Open the page again to continue.',
        ])
      }
      if (error instanceof StoreBusyError) {
        return messagePage(503, 'Try again in a moment', ['The sandbox is busy.', 'Nothing was done.'], {
          'Retry-After': '1',
        })
      }
      return messagePage(500, 'Something went wrong', [
        'The sandbox could not answer.',
        escapeHtml(String((error as Error)?.message ?? error)),
      ])
    }
  }

  private async payment({ method, query, request }: PageRequest): Promise<PageReply> {
    const id = query.get('id') ?? ''
    const pageUrl = `/checkout/pay?id=${encodeURIComponent(id)}`
    const form = method === 'POST' ? await readForm(request) : undefined
    if (form && !fromThisOrigin(request.headers)) return refused(pageUrl)
    const link = id === '' ? undefined : this.store.findLink(id)
    if (!link) return linkNotFound()
    const current = this.sign(['pay', link._id, String(link.amount), link.currency])
    const charge = chargeOfLink(this.store, link._id)
    if (!form) return link.paid ? paidPage(link, charge) : paymentPage(link, current, 200, '', charge)

    // The button pressed: Pay (also a form without one, as before the other outcomes), Cancel, Fail.
    const outcome = form.get('outcome') ?? 'paid'
    if (!isOutcome(outcome)) throw new RefusedForm(400, 'This form could not be read')
    const shown = [form.get('amount'), form.get('currency')]
    if (!sameToken(form.get(PAGE_TOKEN_FIELD), this.sign(['pay', link._id, ...shown])))
      return refused(pageUrl)
    if (
      outcome === 'paid' &&
      !link.paid &&
      (shown[0] !== String(link.amount) || shown[1] !== link.currency)
    ) {
      const notice = state(
        'warn',
        'The amount changed after this page was opened.',
        'Nothing was paid: check the amount and pay again.',
      )
      return paymentPage(link, current, 409, notice, charge)
    }
    const settled = settleLink(this.store, link._id, outcome)
    if (!settled) return linkNotFound()
    if (settled.redirect_to !== null) return seeOther(settled.redirect_to)
    return settled.outcome === 'paid'
      ? receiptPage(settled.link, charge)
      : unpaidPage(settled.link, settled.outcome, pageUrl)
  }

  private async activation({ method, request }: PageRequest, rawToken: string): Promise<PageReply> {
    let token: string
    try {
      token = decodeURIComponent(rawToken)
    } catch {
      return tokenNotFound()
    }
    const pageUrl = `/checkout/tokens/${encodeURIComponent(token)}/activate`
    const form = method === 'POST' ? await readForm(request) : undefined
    if (form && !fromThisOrigin(request.headers)) return refused(pageUrl)
    const found = this.store.findTokenization(token)
    if (!found) return tokenNotFound()
    const { record, businessId } = found
    const expected = this.sign(['activate', record.token])
    if (!form) {
      return found.activatedAt === null
        ? activationPage(record, businessId, expected)
        : activePage(record, businessId)
    }

    if (!sameToken(form.get(PAGE_TOKEN_FIELD), expected)) return refused(pageUrl)
    if (this.store.activate(record.token, nowIso(sandboxNow(this.store))) === undefined)
      return tokenNotFound()
    const back = returnAddress(record.redirect_url)
    return back
      ? seeOther(withQuery(back, { token: record.token, status: 'active' }))
      : activatedPage(record, businessId)
  }
}
