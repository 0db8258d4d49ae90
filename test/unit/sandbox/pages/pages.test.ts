import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { businessIdOf, keyHash } from '../../../../src/sandbox/domain/business.js'
import { withQuery } from '../../../../src/sandbox/domain/redirect.js'
import { fromThisOrigin } from '../../../../src/sandbox/handlers/pages/customer-pages.js'
import { escapeHtml, maskEmail } from '../../../../src/sandbox/handlers/pages/html.js'
import { inStore } from '../../../../src/sandbox/store/local.js'
import { SandboxStore } from '../../../../src/sandbox/store/store.js'
import { amountText } from '../../../../src/shared/money.js'
import { BUSINESS_A } from '../../../helpers/billing.js'
import {
  BROWSER_SAME_ORIGIN,
  card,
  expectPageHeaders,
  formFields,
  get,
  pageToken,
  post,
  titleOf,
} from '../../../helpers/pages.js'
import { startReceiver } from '../../../helpers/receiver.js'
import {
  rawRequest,
  readStore,
  startTestSandbox,
  storeText,
  type TestSandbox,
} from '../../../helpers/sandbox.js'

/**
 * The customer's pages: the payment page at payment_url and the activation page at
 * activation_url, over HTTP as a browser uses them. Chromium itself drives them in
 * test/e2e/sandbox/browser.test.ts.
 */

let t: TestSandbox
let host: string
beforeAll(async () => {
  t = await startTestSandbox()
  host = new URL(t.baseUrl).host
})
afterAll(() => t.sandbox.close())

const LINK = { email: 'jane@example.com', currency: 'EUR', amount: '25.50', title: 'Invoice 1042' }

async function createLink(fields: Record<string, unknown> = {}) {
  const answer = await t.a.call('POST', '/payment-links', { ...LINK, ...fields })
  expect(answer.status).toBe(200)
  return answer.json.data
}

async function createToken(fields: Record<string, unknown> = {}) {
  const answer = await t.a.call('POST', '/tokenizations/create-token', {
    email: 'jane@example.com',
    title: 'Card on file',
    description: 'Monthly billing',
    ...fields,
  })
  expect(answer.status).toBe(200)
  return answer.json.data
}

const linkNow = async (id: string) => (await t.a.call('GET', `/payment-links/${id}`)).json.data

/** The path of a payment_url or activation_url (the sandbox names its own origin in them). */
const pathOf = (url: string, sandbox: TestSandbox = t) => {
  const parsed = new URL(url)
  expect(parsed.origin).toBe(sandbox.baseUrl)
  return `${parsed.pathname}${parsed.search}`
}

const activatedAt = (token: string) => {
  const store = new SandboxStore(t.dir)
  try {
    return store.findTokenization(token)?.activatedAt
  } finally {
    store.close()
  }
}

const MERCHANT = (business: number | string) =>
  `<p class="merchant"><span class="logo" aria-hidden="true">${String(business).slice(0, 1)}</span><span class="name">${business}</span><span class="badge">Test mode</span></p>`

const SANDBOX_MERCHANT =
  '<p class="merchant"><span class="logo" aria-hidden="true">P</span><span class="name">pay sandbox</span><span class="badge">Test mode</span></p>'

const OK_ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="11" fill="#0f6b4c"/><path d="M7 12.5l3.2 3.2L17 9" fill="none" stroke="#fff" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/></svg>'
const BAD_ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="11" fill="#9b1c1c"/><path d="M8 8l8 8M16 8l-8 8" stroke="#fff" stroke-width="2.4" stroke-linecap="round"/></svg>'
const WARN_ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="11" fill="#b7791f"/><path d="M12 6.5v7" stroke="#fff" stroke-width="2.4" stroke-linecap="round"/><circle cx="12" cy="17.3" r="1.5" fill="#fff"/></svg>'
const BIG_OK =
  '<div class="done"><svg viewBox="0 0 56 56" aria-hidden="true"><circle cx="28" cy="28" r="27" fill="#e7f6ef"/><circle cx="28" cy="28" r="20" fill="#0f6b4c"/><path d="M19 28.5l6.5 6.5L37.5 22" fill="none" stroke="#fff" stroke-width="3.6" stroke-linecap="round" stroke-linejoin="round"/></svg></div>'

const refusedCard = (pagePath: string) =>
  [
    SANDBOX_MERCHANT,
    '<h1>This form was not accepted</h1>',
    `<p class="state bad" role="status">${BAD_ICON}<span><strong>Nothing was done.</strong> The form did not come from its own page: it was sent from another site, or its page token is missing or wrong. <a href="${pagePath.replace(/&/g, '&amp;')}">Open the page again</a> to continue.</span></p>`,
  ].join('\n')

const LINK_NOT_FOUND_CARD = [
  SANDBOX_MERCHANT,
  '<h1>Payment link not found</h1>',
  `<p class="state bad" role="status">${BAD_ICON}<span><strong>This payment link does not exist or was deleted.</strong> Check the address, or ask the business for a new link.</span></p>`,
].join('\n')

describe('the payment page (GET payment_url)', () => {
  it('shows business, title, description, amount and one "Pay" button, and changes nothing', async () => {
    const link = await createLink({ description: 'March\nconsulting', reference: 'INV-1042' })
    const before = storeText(t.dir)
    const page = await get(t.baseUrl, pathOf(link.payment_url))
    expect(page.status).toBe(200)
    expectPageHeaders(page)
    expect(page.text.startsWith('<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n')).toBe(
      true,
    )
    expect(page.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">')
    expect(titleOf(page.text)).toBe('Pay 25.50 EUR · Invoice 1042')
    const token = pageToken(page.text)
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(card(page.text)).toBe(
      [
        MERCHANT(`Business ${link.business_id}`),
        '<h1 dir="auto">Invoice 1042</h1>',
        '<p class="description" dir="auto">March\nconsulting</p>',
        '<p class="label">Amount due</p>',
        '<p class="amount">25.50<span class="currency"><bdi>EUR</bdi></span></p>',
        '<dl class="details"><dt>Reference</dt><dd dir="auto">INV-1042</dd></dl>',
        `<form method="post" action="/checkout/pay?id=${link._id}">`,
        `<input type="hidden" name="page_token" value="${token}">`,
        '<input type="hidden" name="amount" value="25.5">',
        '<input type="hidden" name="currency" value="EUR">',
        '<button type="submit" name="outcome" value="paid">Pay 25.50 <bdi>EUR</bdi></button>',
        '<p class="fine">Test mode: paying marks this link paid. No card is asked for and no money moves.</p>',
        // Test mode's other outcomes: the same form, another button.
        '<fieldset class="others">',
        '<legend>Test mode: the customer’s other outcomes</legend>',
        '<div class="row"><button type="submit" name="outcome" value="pending">Pending</button><button type="submit" name="outcome" value="cancelled">Cancel payment</button><button type="submit" name="outcome" value="failed">Fail payment</button></div>',
        '</fieldset>',
        '</form>',
      ].join('\n'),
    )
    expect(page.text).toContain('<footer>Served by the pay sandbox</footer>')
    // Viewing twice gives the same page and leaves the store as it was.
    expect((await get(t.baseUrl, pathOf(link.payment_url))).text).toBe(page.text)
    expect(storeText(t.dir)).toBe(before)
  })

  it('pads the amount to the currency, never rounds it, never writes an exponent', async () => {
    const cases: [string, string, string][] = [
      ['1000', 'JPY', '1000'],
      ['1.5', 'BHD', '1.500'],
      ['0.001', 'EUR', '0.001'],
      ['0.0000001', 'BTC', '0.0000001'],
      ['1250.5', 'USD', '1250.50'],
    ]
    for (const [amount, currency, shown] of cases) {
      const link = await createLink({ amount, currency })
      const page = await get(t.baseUrl, pathOf(link.payment_url))
      expect(page.text).toContain(
        `<button type="submit" name="outcome" value="paid">Pay ${shown} <bdi>${currency}</bdi></button>`,
      )
      expect(page.text).toContain(
        `<p class="amount">${shown}<span class="currency"><bdi>${currency}</bdi></span></p>`,
      )
    }
  })

  it('escapes every text of the link: a hostile title is text, not markup', async () => {
    const hostile = {
      title: '<img src=x onerror="alert(1)">',
      description: `"quoted" & 'single' </p><script>alert(2)</script>\u001b[31m`,
      reference: '<a href=x>ref</a>',
    }
    const link = await createLink(hostile)
    // The API takes three letters only, but a page shows whatever the store holds (a link made by
    // an earlier version, a hand-edited store): a currency holding markup is written in directly.
    inStore(t.dir, (store) =>
      store.write(() => store.replace('payment_links', BUSINESS_A, { ...link, currency: 'E<b>' })),
    )
    const page = await get(t.baseUrl, pathOf(link.payment_url))
    expect(page.status).toBe(200)
    expectPageHeaders(page)
    expect(titleOf(page.text)).toBe('Pay 25.5 E&lt;b&gt; · &lt;img src=x onerror=&quot;alert(1)&quot;&gt;')
    const html = card(page.text)
    expect(html).toContain('<h1 dir="auto">&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</h1>')
    expect(html).toContain(
      '<p class="description" dir="auto">&quot;quoted&quot; &amp; &#39;single&#39; &lt;/p&gt;&lt;script&gt;alert(2)&lt;/script&gt;^[[31m</p>',
    )
    expect(html).toContain(
      '<button type="submit" name="outcome" value="paid">Pay 25.5 <bdi>E&lt;b&gt;</bdi></button>',
    )
    expect(html).toContain('<input type="hidden" name="currency" value="E&lt;b&gt;">')
    expect(html).toContain('<dd dir="auto">&lt;a href=x&gt;ref&lt;/a&gt;</dd>')
    // The form still pays: the page token covers the currency as the page showed it.
    const paid = await post(t.baseUrl, pathOf(link.payment_url), formFields(page.text))
    expect(paid.status).toBe(200)
    expect((await linkNow(link._id)).paid).toBe(true)
  })

  it('allows the form to be redirected to the origin of redirect_url, and only there', async () => {
    const link = await createLink({ redirect_url: 'https://shop.example:8443/back?order=42' })
    const page = await get(t.baseUrl, pathOf(link.payment_url))
    expectPageHeaders(page, 'https://shop.example:8443')
    // A redirect_url that is not an http(s) address is never redirected to, so it allows nothing.
    const script = await createLink({ redirect_url: 'javascript:alert(1)' })
    expectPageHeaders(await get(t.baseUrl, pathOf(script.payment_url)))
  })

  it('answers HEAD with the headers of GET and no body', async () => {
    const link = await createLink()
    const head = await get(t.baseUrl, pathOf(link.payment_url), 'HEAD')
    expect(head.status).toBe(200)
    expect(head.text).toBe('')
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(head.headers['referrer-policy']).toBe('no-referrer')
  })

  it('answers 404 pages for an unknown, a missing, an empty or a deleted id, and for other /checkout paths', async () => {
    const link = await createLink()
    expect((await t.a.call('DELETE', `/payment-links/${link._id}`)).status).toBe(200)
    for (const path of [
      '/checkout/pay?id=000000000000000000000000',
      '/checkout/pay',
      '/checkout/pay?id=',
      `/checkout/pay?id=${link._id}`,
    ]) {
      const page = await get(t.baseUrl, path)
      expect({ path, status: page.status }).toEqual({ path, status: 404 })
      expectPageHeaders(page)
      expect(titleOf(page.text)).toBe('Payment link not found')
      expect(card(page.text)).toBe(LINK_NOT_FOUND_CARD)
    }
    // Paying a deleted link: 404 too, and nothing comes back.
    const deleted = await post(t.baseUrl, `/checkout/pay?id=${link._id}`, { page_token: 'x' })
    expect(deleted.status).toBe(404)
    expect(card(deleted.text)).toBe(LINK_NOT_FOUND_CARD)
    const other = await get(t.baseUrl, '/checkout/elsewhere')
    expect(other.status).toBe(404)
    expectPageHeaders(other)
    expect(card(other.text)).toBe(
      [
        SANDBOX_MERCHANT,
        '<h1>Page not found</h1>',
        `<p class="state bad" role="status">${BAD_ICON}<span><strong>There is no page at this address.</strong></span></p>`,
      ].join('\n'),
    )
  })

  it('answers 405 with Allow to other methods', async () => {
    const link = await createLink()
    const put = await rawRequest(t.baseUrl, { method: 'PUT', path: pathOf(link.payment_url) })
    expect(put.status).toBe(405)
    expect(put.headers.allow).toBe('GET, HEAD, POST')
    expectPageHeaders(put)
    expect(titleOf(put.text)).toBe('Method not allowed')
  })
})

describe('paying (the page form POST)', () => {
  it('without redirect_url: sets paid and updated_at once, answers a receipt; paying again changes nothing', async () => {
    const link = await createLink({ reference: 'INV-7' })
    const page = await get(t.baseUrl, pathOf(link.payment_url))
    const paid = await post(t.baseUrl, pathOf(link.payment_url), formFields(page.text))
    expect(paid.status).toBe(200)
    expectPageHeaders(paid)
    expect(titleOf(paid.text)).toBe('Payment received · Invoice 1042')
    expect(card(paid.text)).toBe(
      [
        MERCHANT(`Business ${link.business_id}`),
        BIG_OK,
        '<h1 class="center">Payment received</h1>',
        '<p class="description center">Thank you. Your payment for <bdi>Invoice 1042</bdi> was received.</p>',
        '<p class="label center">Amount paid</p>',
        '<p class="amount center">25.50<span class="currency"><bdi>EUR</bdi></span></p>',
        '<dl class="details"><dt>Reference</dt><dd dir="auto">INV-7</dd></dl>',
        '<p class="fine">You can close this page.</p>',
      ].join('\n'),
    )
    const after = await linkNow(link._id)
    expect(after).toEqual({ ...link, paid: true, updated_at: after.updated_at })
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(link.updated_at))

    // The same form again (a double click, the back button): the same answer, nothing changed.
    const before = storeText(t.dir)
    const again = await post(t.baseUrl, pathOf(link.payment_url), formFields(page.text))
    expect(again.status).toBe(200)
    expect(again.text).toBe(paid.text)
    expect(storeText(t.dir)).toBe(before)
  })

  it('a paid link: the page says so and has no button', async () => {
    const link = await createLink()
    await t.markPaid(link._id)
    const page = await get(t.baseUrl, pathOf(link.payment_url))
    expect(page.status).toBe(200)
    expectPageHeaders(page)
    expect(titleOf(page.text)).toBe('Paid · Invoice 1042')
    expect(card(page.text)).toBe(
      [
        MERCHANT(`Business ${link.business_id}`),
        '<h1 dir="auto">Invoice 1042</h1>',
        `<p class="state" role="status">${OK_ICON}<span><strong>This payment link is already paid.</strong> There is nothing more to pay.</span></p>`,
        '<p class="label">Amount paid</p>',
        '<p class="amount">25.50<span class="currency"><bdi>EUR</bdi></span></p>',
      ].join('\n'),
    )
    expect(page.text).not.toMatch(/<form|<button/)
  })

  it('with redirect_url: 303 to it with id, status=paid and the attempt added, its own query and fragment kept', async () => {
    const link = await createLink({
      redirect_url: 'https://shop.example/back?order=42&status=pending&x=a%20b&id=old&payment_id=501#receipt',
    })
    const page = await get(t.baseUrl, pathOf(link.payment_url))
    const paid = await post(t.baseUrl, pathOf(link.payment_url), formFields(page.text))
    expect(paid.status).toBe(303)
    const location = String(paid.headers.location)
    const back = `https://shop.example/back?order=42&x=a%20b&payment_id=501&id=${link._id}&status=paid`
    expect(location.startsWith(`${back}&attempt_id=`)).toBe(true)
    expect(location.endsWith('&payment_currency=EUR#receipt')).toBe(true)
    // The redirect_url's own payment_id (GiveWP's donation) is kept, never a second one added.
    expect(new URL(location).searchParams.getAll('payment_id')).toEqual(['501'])
    expect(new URL(location).searchParams.get('payment_status')).toBe('1')
    expect(paid.headers['cache-control']).toBe('no-store')
    expect(paid.text).toBe('')
    expect((await linkNow(link._id)).paid).toBe(true)
    // Posting again sends the customer back to the same page, and changes nothing: no attempt this time.
    const before = storeText(t.dir)
    const again = await post(t.baseUrl, pathOf(link.payment_url), formFields(page.text))
    expect(again.status).toBe(303)
    expect(again.headers.location).toBe(`${back}#receipt`)
    expect(storeText(t.dir)).toBe(before)
  })

  it('the Pending button (outcome=pending): back to redirect_url with status=pending, notified 2; the link unpaid and payable, a later payment told 1', async ({
    onTestFinished,
  }) => {
    // A sandbox of its own: the receiver's deliveries would change the store the other tests compare.
    const own = await startTestSandbox()
    const receiver = await startReceiver(200)
    onTestFinished(async () => {
      await receiver.close()
      await own.close()
    })
    await own.a.call('POST', '/_sandbox/webhooks', { url: receiver.url })
    const link = (
      await own.a.call('POST', '/payment-links', {
        ...LINK,
        reference: 'INV-7',
        redirect_url: 'https://shop.example/back?order=7',
      })
    ).json.data
    const path = pathOf(link.payment_url, own)
    const fields = formFields((await get(own.baseUrl, path)).text)
    const pending = await post(own.baseUrl, path, { ...fields, outcome: 'pending' })
    expect(pending.status).toBe(303)
    const back = new URL(String(pending.headers.location))
    expect([...back.searchParams.keys()]).toEqual([
      'order',
      'id',
      'status',
      'attempt_id',
      'payment_id',
      'payment_time',
      'payment_amount',
      'payment_status',
      'payment_link_id',
      'payment_link_reference',
      'payment_link_reference_2',
      'payment_message',
      'payment_currency',
    ])
    expect(Object.fromEntries(back.searchParams)).toMatchObject({
      id: link._id,
      status: 'pending',
      payment_amount: '2550',
      payment_status: '2',
      payment_link_id: link._id,
      payment_link_reference: 'INV-7',
      payment_message: 'Payment pending',
      payment_currency: 'EUR',
    })
    await expect.poll(() => receiver.received.length).toBe(1)
    const told = receiver.notifications()[0].data
    expect(told).toMatchObject({ payment_status: 2, payment_message: 'Payment pending' })
    // The return carries the very values of the notification, as text.
    expect(back.searchParams.get('attempt_id')).toBe(told.attempt_id)
    expect(back.searchParams.get('payment_time')).toBe(told.payment_time)
    expect((await own.a.call('GET', `/payment-links/${link._id}`)).json.data.paid).toBe(false)

    // Still payable from the same page: a payment of its own, told 1.
    const page = await get(own.baseUrl, path)
    expect(titleOf(page.text)).toBe('Pay 25.50 EUR · Invoice 1042')
    const paid = await post(own.baseUrl, path, formFields(page.text))
    expect(paid.status).toBe(303)
    expect(new URL(String(paid.headers.location)).searchParams.get('payment_status')).toBe('1')
    await expect.poll(() => receiver.received.length).toBe(2)
    expect(receiver.notifications()[1].data).toMatchObject({ payment_status: 1 })
    expect(receiver.notifications()[1].data.attempt_id).not.toBe(told.attempt_id)
    expect((await own.a.call('GET', `/payment-links/${link._id}`)).json.data.paid).toBe(true)
  })

  it('a redirect_url that is no http(s) address is never followed: the receipt instead', async () => {
    for (const redirect_url of [
      'javascript:alert(1)',
      'not a url',
      '//shop.example/back',
      'data:text/html,x',
    ]) {
      const link = await createLink({ redirect_url })
      const page = await get(t.baseUrl, pathOf(link.payment_url))
      const paid = await post(t.baseUrl, pathOf(link.payment_url), formFields(page.text))
      expect({ redirect_url, status: paid.status, location: paid.headers.location }).toEqual({
        redirect_url,
        status: 200,
        location: undefined,
      })
      expect(titleOf(paid.text)).toBe('Payment received · Invoice 1042')
    }
  })

  it('accepts the same-origin POST of a browser, and one from a client that names no origin', async () => {
    const accepted: Record<string, string>[] = [
      BROWSER_SAME_ORIGIN,
      { Origin: `http://${host}`, 'Sec-Fetch-Site': 'same-origin' },
      { Origin: `http://${host}` },
      {},
    ]
    for (const headers of accepted) {
      const link = await createLink()
      const page = await get(t.baseUrl, pathOf(link.payment_url))
      const paid = await post(t.baseUrl, pathOf(link.payment_url), formFields(page.text), headers)
      expect({ headers, status: paid.status }).toEqual({ headers, status: 200 })
      expect((await linkNow(link._id)).paid).toBe(true)
    }
  })

  it('refuses 403, changing nothing: another origin, another site, a bare null origin, no token, a wrong token', async () => {
    const link = await createLink()
    const other = await createLink()
    const path = pathOf(link.payment_url)
    const fields = formFields((await get(t.baseUrl, path)).text)
    const otherFields = formFields((await get(t.baseUrl, pathOf(other.payment_url))).text)
    const before = storeText(t.dir)
    const cases: [string, Record<string, string>, Record<string, string>][] = [
      ['a page of another origin', fields, { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' }],
      ['another port of the same host', fields, { Origin: `http://${host.replace(/:\d+$/, ':1')}` }],
      ['another site, Origin hidden', fields, { Origin: 'null', 'Sec-Fetch-Site': 'cross-site' }],
      ['a same-site page', fields, { 'Sec-Fetch-Site': 'same-site' }],
      ['Origin null alone', fields, { Origin: 'null' }],
      ['no page token', { amount: fields.amount, currency: fields.currency }, BROWSER_SAME_ORIGIN],
      ['a wrong page token', { ...fields, page_token: 'A'.repeat(43) }, BROWSER_SAME_ORIGIN],
      ["another link's page token", { ...otherFields }, BROWSER_SAME_ORIGIN],
      ['an amount the page did not show', { ...fields, amount: '0.01' }, BROWSER_SAME_ORIGIN],
    ]
    for (const [label, body, headers] of cases) {
      const answer = await post(t.baseUrl, path, body, headers)
      expect({ label, status: answer.status }).toEqual({ label, status: 403 })
      expectPageHeaders(answer)
      expect(titleOf(answer.text)).toBe('This form was not accepted')
      expect(card(answer.text)).toBe(refusedCard(path))
    }
    expect(storeText(t.dir)).toBe(before)
  })

  it('a form that is not a form, or too large: 415 and 413 pages, nothing paid', async () => {
    const link = await createLink()
    const path = pathOf(link.payment_url)
    const before = storeText(t.dir)
    const text = await rawRequest(t.baseUrl, {
      method: 'POST',
      path,
      headers: { 'Content-Type': 'text/plain', ...BROWSER_SAME_ORIGIN },
      body: 'page_token=x',
    })
    expect(text.status).toBe(415)
    expectPageHeaders(text)
    expect(titleOf(text.text)).toBe('This form could not be read')
    const large = await post(t.baseUrl, path, { page_token: 'x'.repeat(20_000) })
    expect(large.status).toBe(413)
    expect(titleOf(large.text)).toBe('This form is too large')
    expect(storeText(t.dir)).toBe(before)
  })

  it('a page shown before the amount changed: 409 with the page as it is now, nothing paid; then it pays', async () => {
    const link = await createLink()
    const path = pathOf(link.payment_url)
    const stale = formFields((await get(t.baseUrl, path)).text)
    const changed = await t.a.call('PUT', `/payment-links/${link._id}`, { ...LINK, amount: '30' })
    expect(changed.status).toBe(200)
    const answer = await post(t.baseUrl, path, stale)
    expect(answer.status).toBe(409)
    expectPageHeaders(answer)
    expect(titleOf(answer.text)).toBe('Pay 30.00 EUR · Invoice 1042')
    const html = card(answer.text)
    expect(html).toContain(
      `<p class="state warn" role="status">${WARN_ICON}<span><strong>The amount changed after this page was opened.</strong> Nothing was paid: check the amount and pay again.</span></p>`,
    )
    expect(html).toContain(
      '<button type="submit" name="outcome" value="paid">Pay 30.00 <bdi>EUR</bdi></button>',
    )
    expect((await linkNow(link._id)).paid).toBe(false)
    const paid = await post(t.baseUrl, path, formFields(answer.text))
    expect(paid.status).toBe(200)
    expect((await linkNow(link._id)).paid).toBe(true)
  })
})

describe('the activation page (activation_url)', () => {
  it('shows title, description, a masked email and one "Activate" button, and changes nothing', async () => {
    const token = await createToken()
    const path = pathOf(token.activation_url)
    expect(path).toBe(`/checkout/tokens/${token.token}/activate?test=true`)
    const before = storeText(t.dir)
    const page = await get(t.baseUrl, path)
    expect(page.status).toBe(200)
    expectPageHeaders(page)
    expect(titleOf(page.text)).toBe('Activate · Card on file')
    // The business is named as on its payment pages, not "pay sandbox".
    expect(card(page.text)).toBe(
      [
        MERCHANT(`Business ${businessIdOf(t.key)}`),
        '<h1 dir="auto">Card on file</h1>',
        '<p class="description" dir="auto">Monthly billing</p>',
        '<dl class="details"><dt>Email</dt><dd>j•••@example.com</dd></dl>',
        `<form method="post" action="/checkout/tokens/${token.token}/activate">`,
        `<input type="hidden" name="page_token" value="${pageToken(page.text)}">`,
        '<button type="submit">Activate</button>',
        '</form>',
        '<p class="fine">Test mode: activating marks this token active. No card is asked for.</p>',
      ].join('\n'),
    )
    expect(page.text).not.toContain('jane@example.com')
    expect(storeText(t.dir)).toBe(before)
    expect(activatedAt(token.token)).toBeNull()
  })

  it('without redirect_url: records the activation once and confirms; then says it is already active', async () => {
    const token = await createToken()
    const path = pathOf(token.activation_url)
    const fields = formFields((await get(t.baseUrl, path)).text)
    const done = await post(t.baseUrl, `/checkout/tokens/${token.token}/activate`, fields)
    expect(done.status).toBe(200)
    expectPageHeaders(done)
    expect(titleOf(done.text)).toBe('Activated · Card on file')
    expect(card(done.text)).toBe(
      [
        MERCHANT(`Business ${businessIdOf(t.key)}`),
        BIG_OK,
        '<h1 class="center">Token activated</h1>',
        '<p class="description center">Thank you. <bdi>Card on file</bdi> is active.</p>',
        '<p class="fine">You can close this page.</p>',
      ].join('\n'),
    )
    const at = activatedAt(token.token)
    expect(at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    // The API's record has no new field: docs/spec/payment-service-api.md 2.2 lists them.
    const again = await post(t.baseUrl, `/checkout/tokens/${token.token}/activate`, fields)
    expect(again.text).toBe(done.text)
    expect(activatedAt(token.token)).toBe(at)
    const page = await get(t.baseUrl, path)
    expect(page.status).toBe(200)
    expect(titleOf(page.text)).toBe('Active · Card on file')
    expect(card(page.text)).toContain(
      `<p class="state" role="status">${OK_ICON}<span><strong>This token is already active.</strong> There is nothing more to do.</span></p>`,
    )
    expect(page.text).not.toMatch(/<form|<button/)
  })

  it('with redirect_url: 303 to it with token and status=active added', async () => {
    const token = await createToken({ redirect_url: 'http://127.0.0.1:9/done?cart=7' })
    const page = await get(t.baseUrl, pathOf(token.activation_url))
    expectPageHeaders(page, 'http://127.0.0.1:9')
    const done = await post(t.baseUrl, `/checkout/tokens/${token.token}/activate`, formFields(page.text))
    expect(done.status).toBe(303)
    expect(done.headers.location).toBe(`http://127.0.0.1:9/done?cart=7&token=${token.token}&status=active`)
  })

  it('refuses cross-origin posts and wrong page tokens (403), and unknown tokens (404)', async () => {
    const token = await createToken()
    const path = `/checkout/tokens/${token.token}/activate`
    const fields = formFields((await get(t.baseUrl, path)).text)
    for (const [body, headers] of [
      [fields, { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' }],
      [{ page_token: 'nope' }, BROWSER_SAME_ORIGIN],
    ] as const) {
      const answer = await post(t.baseUrl, path, body, headers)
      expect(answer.status).toBe(403)
      expect(card(answer.text)).toBe(refusedCard(path))
    }
    expect(activatedAt(token.token)).toBeNull()
    for (const unknown of ['/checkout/tokens/0000/activate', '/checkout/tokens/%E0%A4%A/activate']) {
      const page = await get(t.baseUrl, unknown)
      expect(page.status).toBe(404)
      expectPageHeaders(page)
      expect(titleOf(page.text)).toBe('Activation link not found')
    }
  })
})

describe('the sandbox control routes (pay sandbox pay / reset through a server)', () => {
  it('POST /_sandbox/payment-links/{id}/pay pays a link of the caller’s business only; 401 without a key', async () => {
    const link = await createLink()
    const anonymous = await rawRequest(t.baseUrl, {
      method: 'POST',
      path: `/_sandbox/payment-links/${link._id}/pay`,
    })
    expect(anonymous.status).toBe(401)
    expect(JSON.parse(anonymous.text)).toEqual({ message: 'Unauthenticated.' })
    // Business B neither reads nor pays business A's link through HTTP.
    const other = await t.b.call('POST', `/_sandbox/payment-links/${link._id}/pay`)
    expect(other.status).toBe(404)
    expect(other.json).toEqual({ message: 'Payment link not found.' })
    expect(await linkNow(link._id)).toEqual(link)
    const paid = await t.a.call('POST', `/_sandbox/payment-links/${link._id}/pay`)
    expect(paid.status).toBe(200)
    expect(paid.json.data).toEqual({ ...link, paid: true, updated_at: paid.json.data.updated_at })
    expect(await linkNow(link._id)).toEqual(paid.json.data)
    const again = await t.a.call('POST', `/_sandbox/payment-links/${link._id}/pay`)
    expect(again.json.data).toEqual(paid.json.data)
    const unknown = await t.a.call('POST', '/_sandbox/payment-links/000000000000000000000000/pay')
    expect(unknown.status).toBe(404)
    expect(unknown.json).toEqual({ message: 'Payment link not found.' })
    const get = await t.a.call('GET', `/_sandbox/payment-links/${link._id}/pay`)
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
  })

  it('POST /_sandbox/reset empties the caller’s business only, and its answer names no local path', async () => {
    const dedicated = await startTestSandbox()
    try {
      await dedicated.a.call('POST', '/payment-links', LINK)
      await dedicated.a.call('POST', '/payment-links', LINK, { 'Idempotency-Key': 'k-1' })
      await dedicated.a.call('POST', '/tokenizations/create-token', {
        email: 'a@example.com',
        title: 'T',
        description: 'D',
      })
      const packageId = dedicated.packageIds[0]
      await dedicated.a.call('POST', '/subscriptions', { package_id: packageId, email: 'a@example.com' })
      const kept = (await dedicated.b.call('POST', '/payment-links', LINK)).json.data
      const refused = await clientWithout(dedicated.baseUrl)
      expect(refused.status).toBe(401)
      const reset = await dedicated.a.call('POST', '/_sandbox/reset')
      expect(reset.status).toBe(200)
      expect(reset.json.data).toEqual({ reset: true, business_id: businessIdOf(dedicated.key) })
      expect(reset.text).not.toContain(dedicated.dir)
      expect((await dedicated.a.call('GET', '/payment-links')).json.data.total).toBe(0)
      expect((await dedicated.a.call('GET', '/subscriptions')).json.data.total).toBe(0)
      // The other business's records stay, and so does its count.
      expect((await dedicated.b.call('GET', '/payment-links')).json.data).toMatchObject({
        total: 1,
        data: [kept],
      })
      const store = readStore(dedicated.dir).businesses
      const a = store[keyHash(dedicated.key)]
      expect([a.tokenizations, a.payment_links, a.subscriptions]).toEqual([{}, {}, {}])
      // Its idempotency keys went too: the same key makes a new link.
      const fresh = await dedicated.a.call('POST', '/payment-links', LINK, { 'Idempotency-Key': 'k-1' })
      expect(fresh.headers.get('idempotent-replayed')).toBeNull()
      expect((await dedicated.a.call('GET', '/payment-links')).json.data.total).toBe(1)
    } finally {
      await dedicated.close()
    }
  })
})

const clientWithout = (baseUrl: string) =>
  rawRequest(baseUrl, { method: 'POST', path: '/_sandbox/reset', headers: { Authorization: 'Bearer nope' } })

describe('page helpers', () => {
  it('escapeHtml escapes markup and shows control characters in caret notation', () => {
    expect(escapeHtml(`<a href="x">'&'</a>\u0007\u009b\ttab\nline`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;^GM-^[\ttab\nline',
    )
  })

  it('escapeHtml shows every bidi control by name, so none reorders the text around it', () => {
    const controls = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]
    for (const code of controls) {
      const name = `U+${code.toString(16).toUpperCase()}`
      expect(escapeHtml(`REF-${String.fromCharCode(code)}evil`)).toBe(`REF-&lt;${name}&gt;evil`)
    }
    // Letters of right-to-left scripts are text, not controls: kept.
    expect(escapeHtml('שלום')).toBe('שלום')
  })

  it('withQuery keeps the own query and fragment, replacing only the parameters it adds', () => {
    const add = { id: 'L1', status: 'paid' }
    const cases: [string, string][] = [
      ['https://shop.example/back', 'https://shop.example/back?id=L1&status=paid'],
      ['https://shop.example/back?', 'https://shop.example/back?id=L1&status=paid'],
      ['https://shop.example/back?a=1&b', 'https://shop.example/back?a=1&b&id=L1&status=paid'],
      ['https://shop.example/back?q=a+b&%69d=x&status', 'https://shop.example/back?q=a+b&id=L1&status=paid'],
      ['https://shop.example/b?x=%ZZ#frag', 'https://shop.example/b?x=%ZZ&id=L1&status=paid#frag'],
      ['http://127.0.0.1:3000/?next=/a?b=c', 'http://127.0.0.1:3000/?next=/a?b=c&id=L1&status=paid'],
    ]
    for (const [url, expected] of cases)
      expect({ url, got: withQuery(new URL(url), add) }).toEqual({ url, got: expected })
  })

  it('maskEmail keeps the first character and the domain', () => {
    expect(maskEmail('jane@example.com')).toBe('j•••@example.com')
    expect(maskEmail('a@b.co')).toBe('a•••@b.co')
    expect(maskEmail('"a@b"@c.example')).toBe('"•••@c.example')
  })

  it('amountText pads to the currency, never rounds, never writes an exponent', () => {
    expect(amountText(25.5, 'EUR')).toBe('25.50')
    expect(amountText(25.5, 'eur')).toBe('25.50')
    expect(amountText(300, 'JPY')).toBe('300')
    expect(amountText(0.001, 'EUR')).toBe('0.001')
    expect(amountText(1e-7, 'BTC')).toBe('0.0000001')
    expect(amountText(1e21, 'USD')).toBe('1000000000000000000000')
    expect(amountText(2, 'XYZ')).toBe('2')
  })

  it('fromThisOrigin: a browser must say same-origin; a client that says nothing is judged by the token', () => {
    const h = 'localhost:4010'
    expect(fromThisOrigin({ host: h })).toBe(true)
    expect(fromThisOrigin({ host: h, origin: 'http://localhost:4010' })).toBe(true)
    expect(
      fromThisOrigin({ host: h, origin: 'http://LOCALHOST:4010', 'sec-fetch-site': 'same-origin' }),
    ).toBe(true)
    expect(fromThisOrigin({ host: h, origin: 'null', 'sec-fetch-site': 'same-origin' })).toBe(true)
    expect(fromThisOrigin({ host: h, origin: 'null' })).toBe(false)
    expect(fromThisOrigin({ host: h, origin: 'https://localhost:4010' })).toBe(false)
    expect(fromThisOrigin({ host: h, 'sec-fetch-site': 'none' })).toBe(false)
    expect(fromThisOrigin({ origin: 'http://localhost:4010' })).toBe(false)
  })
})
