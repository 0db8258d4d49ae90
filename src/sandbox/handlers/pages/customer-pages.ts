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
import { isOutcome } from '../../domain/payment.js'
import { nowIso } from '../../domain/records.js'
import { returnAddress, withQuery } from '../../domain/redirect.js'
import { sandboxNow } from '../../store/clock.js'
import { StoreBusyError } from '../../store/errors.js'
import type { SandboxStore } from '../../store/store.js'
import { chargeOfLink } from '../billing/billing.js'
import { readCapped } from '../body.js'
import type { RequestContext } from '../context.js'
import { escapeHtml, messagePage, type PageReply, seeOther, state } from './html.js'
import {
  activatedPage,
  activationPage,
  activePage,
  linkNotFound,
  PAGE_TOKEN_FIELD,
  paidPage,
  paymentPage,
  receiptPage,
  refused,
  tokenNotFound,
  unpaidPage,
} from './templates.js'

/** The largest form a page accepts: its three hidden fields fit in far less. */
const MAX_FORM_BYTES = 16 * 1024

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
  const body = await readCapped(request, MAX_FORM_BYTES, () => new RefusedForm(413, 'This form is too large'))
  return new URLSearchParams(body.toString('utf8'))
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

/**
 * Makes the secret the page tokens are signed with, when the server starts: showing a page must
 * never write anything.
 */
export const preparePages = (store: SandboxStore) => void store.secret('pages')

/** A page token: what the page showed, signed with the store's secret. */
const sign = (store: SandboxStore, fields: unknown[]): string =>
  createHmac('sha256', store.secret('pages')).update(JSON.stringify(fields)).digest('base64url')

/** Forms that cannot be read, and a store that cannot answer, as pages. */
async function guarded(handle: () => Promise<PageReply>): Promise<PageReply> {
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

/** `GET|POST /checkout/pay?id=…`: the payment page, and its buttons (pay, pending, cancel, fail). */
export const servePaymentPage = (context: RequestContext) => guarded(() => payment(context))

/** `GET|POST /checkout/tokens/{token}/activate`: the activation page, and its button. */
export const serveActivationPage = (context: RequestContext) => guarded(() => activation(context))

async function payment({ store, payments, method, query, request }: RequestContext): Promise<PageReply> {
  const id = query.get('id') ?? ''
  const pageUrl = `/checkout/pay?id=${encodeURIComponent(id)}`
  const form = method === 'POST' ? await readForm(request) : undefined
  if (form && !fromThisOrigin(request.headers)) return refused(pageUrl)
  const link = id === '' ? undefined : store.findLink(id)
  if (!link) return linkNotFound()
  const current = sign(store, ['pay', link._id, String(link.amount), link.currency])
  const charge = chargeOfLink(store, link._id)
  if (!form) return link.paid ? paidPage(link, charge) : paymentPage(link, current, 200, '', charge)

  // The button pressed: Pay (also a form without one, as before the other outcomes), Pending, Cancel, Fail.
  const outcome = form.get('outcome') ?? 'paid'
  if (!isOutcome(outcome)) throw new RefusedForm(400, 'This form could not be read')
  const shown = [form.get('amount'), form.get('currency')]
  if (!sameToken(form.get(PAGE_TOKEN_FIELD), sign(store, ['pay', link._id, ...shown])))
    return refused(pageUrl)
  if (outcome === 'paid' && !link.paid && (shown[0] !== String(link.amount) || shown[1] !== link.currency)) {
    const notice = state(
      'warn',
      'The amount changed after this page was opened.',
      'Nothing was paid: check the amount and pay again.',
    )
    return paymentPage(link, current, 409, notice, charge)
  }
  const settled = payments.settle(link._id, outcome)
  if (!settled) return linkNotFound()
  if (settled.redirect_to !== null) return seeOther(settled.redirect_to)
  return settled.outcome === 'paid'
    ? receiptPage(settled.link, charge)
    : unpaidPage(settled.link, settled.outcome, pageUrl)
}

async function activation({ store, method, request, segment }: RequestContext): Promise<PageReply> {
  let token: string
  try {
    token = decodeURIComponent(segment)
  } catch {
    return tokenNotFound()
  }
  const pageUrl = `/checkout/tokens/${encodeURIComponent(token)}/activate`
  const form = method === 'POST' ? await readForm(request) : undefined
  if (form && !fromThisOrigin(request.headers)) return refused(pageUrl)
  const found = store.findTokenization(token)
  if (!found) return tokenNotFound()
  const { record, businessId } = found
  const expected = sign(store, ['activate', record.token])
  if (!form) {
    return found.activatedAt === null
      ? activationPage(record, businessId, expected)
      : activePage(record, businessId)
  }

  if (!sameToken(form.get(PAGE_TOKEN_FIELD), expected)) return refused(pageUrl)
  if (store.activate(record.token, nowIso(sandboxNow(store))) === undefined) return tokenNotFound()
  const back = returnAddress(record.redirect_url)
  return back
    ? seeOther(withQuery(back, { token: record.token, status: 'active' }))
    : activatedPage(record, businessId)
}
