import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import type { Browser, BrowserContext, Page, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  chromiumInstalled,
  chromiumRequired,
  launchChromium,
  MISSING_CHROMIUM,
  Screenshots,
} from '../../helpers/browser.js'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { type FakeServer, startFakeServer } from '../../helpers/fake-server.js'
import { formFields } from '../../helpers/pages.js'
import { killStarted, type SandboxProcess, startSandboxProcess } from '../../helpers/processes.js'
import { decodePng } from '../../helpers/qr.js'

/**
 * The customer's side in a real browser: Debian's Chromium, driven by
 * playwright-core, against `pay sandbox start` (the built bin/run.js, in a process of its own);
 * links and tokens made with pay as support staff would. A local server stands for the shop the
 * customer is sent back to. Each page is screenshotted under the test's temp dir (and copied to
 * $PAY_SCREENSHOTS_DIR when set).
 */

let browser: Browser
let server: SandboxProcess
let shop: FakeServer
let env: Record<string, string>
let screens: Screenshots

beforeAll(async () => {
  if (!chromiumInstalled) return
  const dir = tempDir('pay-browser-store-')
  server = await startSandboxProcess(
    [BIN, 'sandbox', 'start', '--port', '0', '--json'],
    cleanEnv({ PAY_SANDBOX_DIR: dir }),
  )
  // The support person's pay: the built-in profile, which finds that server at its port (and
  // trusts it: the same PAY_SANDBOX_DIR, whose secret it proves it holds).
  env = {
    PAY_SANDBOX_PORT: new URL(server.baseUrl).port,
    PAY_SANDBOX_DIR: dir,
    PAY_CONFIG_DIR: tempDir('pay-browser-config-'),
  }
  shop = await startFakeServer((request, response) => {
    const body = `<!doctype html><title>Shop</title><h1>Back at the shop</h1><p>${request.method} ${request.path.replace(/[<&]/g, '')}</p>`
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
    response.end(body)
  })
  screens = new Screenshots(tempDir('pay-screens-'))
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await shop?.close()
  killStarted()
})

/** `pay -p sandbox …` against the running server; the JSON record it prints. */
async function pay(args: string[]) {
  const result = await runCli(['-p', 'sandbox', ...args, '--json'], { env })
  expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' })
  return JSON.parse(result.stdout)
}

const createLink = (flags: string[] = []) =>
  pay([
    'links',
    'create',
    '--email',
    'jane@example.com',
    '--currency',
    'EUR',
    '--amount',
    '25.50',
    '--title',
    'Invoice 1042',
    '--description',
    'Consulting, March 2026',
    '--reference',
    'INV-1042',
    ...flags,
  ])

const createToken = (flags: string[] = []) =>
  pay([
    'token',
    'create',
    '--email',
    'jane@example.com',
    '--title',
    'Card for monthly billing',
    '--description',
    'Keeps your card on file for the monthly invoice.',
    ...flags,
  ])

async function newPage(viewport = { width: 1024, height: 768 }, javaScriptEnabled = true) {
  const context: BrowserContext = await browser.newContext({ viewport, javaScriptEnabled })
  const page = await context.newPage()
  const dialogs: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  return { page, context, dialogs }
}

/** Clicks the button named `name` and waits for the page the form's answer leads to. */
async function submit(page: Page, name: string): Promise<Response | null> {
  const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name }).click()])
  return response
}

const text = async (page: Page, selector: string) => (await page.locator(selector).allInnerTexts()).join('\n')

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Where an attempt sends the customer back (paid, pending, failed): `back` with the sandbox's
 * `id` and `status`, then what the attempt's notification told, in its order (the attempt's and
 * payment's ids and its time the sandbox's own; the rest exact, for a link of createLink()).
 */
function attemptReturn(back: string, id: string, status: 'paid' | 'pending' | 'failed'): RegExp {
  const [code, message] = { paid: [1, 'successful'], pending: [2, 'pending'], failed: [3, 'failed'] }[status]
  return new RegExp(
    `^${escapeRegExp(`${back}&id=${id}&status=${status}`)}&attempt_id=[0-9a-f]{24}&payment_id=[0-9a-f]{24}` +
      '&payment_time=\\d{2}-\\d{2}-\\d{4}\\+\\d{2}%3A\\d{2}%3A\\d{2}\\+[ap]m&payment_amount=2550' +
      `&payment_status=${code}&payment_link_id=${id}&payment_link_reference=INV-1042&payment_link_reference_2=` +
      `&payment_message=Payment\\+${message}&payment_currency=EUR$`,
  )
}

it.runIf(!chromiumInstalled && chromiumRequired)('Chromium is installed (CI requires it)', () => {
  throw new Error(MISSING_CHROMIUM)
})

describe.runIf(chromiumInstalled)('the customer pages in Chromium', () => {
  it('support: scan the QR code, view, pay, see the receipt and the paid page; pay links get says paid', async () => {
    const link = await createLink()
    // The QR code support shows the customer decodes to the payment page.
    const png = path.join(screens.dir, 'qr.png')
    const qr = await runCli(['-p', 'sandbox', 'links', 'qr', link._id, '--output', png], { env })
    expect(qr.code).toBe(0)
    const url = String(decodePng(png))
    expect(url).toBe(link.payment_url)

    const { page, context, dialogs } = await newPage()
    const shown = await page.goto(url)
    expect(shown?.status()).toBe(200)
    expect(await page.title()).toBe('Pay 25.50 EUR · Invoice 1042')
    expect(await text(page, 'h1')).toBe('Invoice 1042')
    expect(await text(page, '.merchant')).toBe(`B\nBusiness ${link.business_id}\nTEST MODE`)
    expect(await text(page, '.description')).toBe('Consulting, March 2026')
    expect(await text(page, '.amount')).toBe('25.50EUR')
    expect(await page.getByRole('button').allInnerTexts()).toEqual([
      'Pay 25.50 EUR',
      'Pending',
      'Cancel payment',
      'Fail payment',
    ])
    expect((await screens.take(page, 'payment')).width).toBe(1024)
    // Viewing changed nothing.
    expect((await pay(['links', 'get', link._id])).paid).toBe(false)

    const receipt = await submit(page, 'Pay 25.50 EUR')
    expect(receipt?.status()).toBe(200)
    expect(page.url()).toBe(link.payment_url)
    expect(await text(page, 'h1')).toBe('Payment received')
    expect(await text(page, '.description')).toBe('Thank you. Your payment for Invoice 1042 was received.')
    expect(await page.getByRole('button').count()).toBe(0)
    await screens.take(page, 'receipt')
    const paid = await pay(['links', 'get', link._id])
    expect(paid).toEqual({ ...link, paid: true, updated_at: paid.updated_at })

    // Back to the link later: already paid, nothing to click.
    await page.goto(url)
    expect(await page.title()).toBe('Paid · Invoice 1042')
    expect(await text(page, '.state')).toBe(
      'This payment link is already paid. There is nothing more to pay.',
    )
    expect(await page.getByRole('button').count()).toBe(0)
    await screens.take(page, 'paid')
    expect(dialogs).toEqual([])
    await context.close()
  })

  it('developer: after paying, the customer lands on redirect_url with id and status=paid, its query kept', async () => {
    const back = `${shop.baseUrl}/orders/42/return?order=42&lang=en`
    const link = await createLink(['--redirect-url', back])
    const { page, context } = await newPage()
    await page.goto(link.payment_url)
    const landed = await submit(page, 'Pay 25.50 EUR')
    const expected = attemptReturn(back, link._id, 'paid')
    expect(landed?.status()).toBe(200)
    expect(page.url()).toMatch(expected)
    expect(await text(page, 'h1')).toBe('Back at the shop')
    const received = shop.requests.filter((r) => r.path.startsWith('/orders/42/'))
    expect(received.map((r) => [r.method, `${shop.baseUrl}${r.path}`])).toEqual([['GET', page.url()]])
    // Referrer-Policy: no-referrer: the shop is not told the payment page's address.
    expect(received[0].headers.referer).toBeUndefined()
    expect((await pay(['links', 'get', link._id])).paid).toBe(true)
    await context.close()
  })

  it.each([
    ['Pending', 'pending'],
    ['Cancel payment', 'cancelled'],
    ['Fail payment', 'failed'],
  ] as const)(
    'developer: %s leaves the link unpaid and sends the customer back with id and status=%s',
    async (button, status) => {
      const back = `${shop.baseUrl}/orders/43/return?order=43`
      const link = await createLink(['--redirect-url', back])
      const { page, context, dialogs } = await newPage()
      await page.goto(link.payment_url)
      const landed = await submit(page, button)
      expect(landed?.status()).toBe(200)
      // A cancel is no attempt: id and status alone. Pending and failed tell their attempt too.
      if (status === 'cancelled') expect(page.url()).toBe(`${back}&id=${link._id}&status=cancelled`)
      else expect(page.url()).toMatch(attemptReturn(back, link._id, status))
      expect(await text(page, 'h1')).toBe('Back at the shop')
      expect(
        shop.requests
          .filter((r) => r.path.startsWith('/orders/43/') && r.path.includes(link._id))
          .map((r) => `${shop.baseUrl}${r.path}`),
      ).toEqual([page.url()])
      const after = await pay(['links', 'get', link._id])
      expect(after).toEqual({ ...link, updated_at: after.updated_at })
      // The customer may come back and pay after all.
      await page.goto(link.payment_url)
      await submit(page, 'Pay 25.50 EUR')
      expect(page.url()).toMatch(attemptReturn(back, link._id, 'paid'))
      expect((await pay(['links', 'get', link._id])).paid).toBe(true)
      expect(dialogs).toEqual([])
      await context.close()
    },
  )

  it.each([
    [
      'Pending',
      'pending',
      'Payment pending',
      'Nothing was paid yet. Test mode: a pending payment was chosen on the payment page; the link can still be paid. Back to the payment page',
      'Back to the payment page',
    ],
    [
      'Cancel payment',
      'cancelled',
      'Payment cancelled',
      'Nothing was paid. You can still pay this link. Back to the payment page',
      'Back to the payment page',
    ],
    [
      'Fail payment',
      'failed',
      'Payment failed',
      'Nothing was paid. Test mode: this failure was chosen on the payment page. Try again',
      'Try again',
    ],
  ])(
    'without redirect_url, %s shows a page saying so, with a way back to pay',
    async (button, status, heading, said, again) => {
      const link = await createLink()
      const { page, context } = await newPage()
      await page.goto(link.payment_url)
      const shown = await submit(page, button)
      expect(shown?.status()).toBe(200)
      expect(page.url()).toBe(link.payment_url)
      expect(await text(page, 'h1')).toBe(heading)
      expect(await text(page, '.state')).toBe(said)
      expect(await page.getByRole('button').count()).toBe(0)
      await screens.take(page, `outcome-${status}`)
      expect((await pay(['links', 'get', link._id])).paid).toBe(false)
      await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: again }).click()])
      expect(page.url()).toBe(link.payment_url)
      expect(await page.getByRole('button').allInnerTexts()).toEqual([
        'Pay 25.50 EUR',
        'Pending',
        'Cancel payment',
        'Fail payment',
      ])
      await context.close()
    },
  )

  it('works without JavaScript, and at phone width with nothing cut off', async () => {
    const link = await createLink()
    const { page, context } = await newPage({ width: 360, height: 740 }, false)
    await page.goto(link.payment_url)
    // Expressions as text: the tests are compiled without the DOM's types.
    const widths = await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')
    expect(widths).toEqual([360, 360])
    const button = await page.getByRole('button', { name: 'Pay 25.50 EUR' }).boundingBox()
    expect(button !== null && button.x >= 0 && button.x + button.width <= 360).toBe(true)
    expect((await screens.take(page, 'payment-phone')).width).toBe(360)
    await submit(page, 'Pay 25.50 EUR')
    expect(await text(page, 'h1')).toBe('Payment received')
    await screens.take(page, 'receipt-phone')
    expect((await pay(['links', 'get', link._id])).paid).toBe(true)
    await context.close()
  })

  it('the keyboard reaches the button and shows where focus is', async () => {
    const link = await createLink()
    const { page, context } = await newPage()
    await page.goto(link.payment_url)
    await page.keyboard.press('Tab')
    const focused = await page.evaluate(`(() => {
      const element = document.activeElement
      const style = getComputedStyle(element)
      return [element.tagName, element.textContent, style.outlineStyle, style.outlineWidth]
    })()`)
    expect(focused).toEqual(['BUTTON', 'Pay 25.50 EUR', 'solid', '3px'])
    await screens.take(page, 'payment-focus')
    // Enter on the focused button pays, as a click does.
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')])
    expect(await text(page, 'h1')).toBe('Payment received')
    await context.close()
  })

  it('a hostile title is shown as text and never runs', async () => {
    // At most 50 characters: a title the service takes.
    const hostile = '<img src=x onerror="window.__pwned=1;alert(1)">'
    const link = await pay([
      'links',
      'create',
      '--email',
      'jane@example.com',
      '--currency',
      'EUR',
      '--amount',
      '9.99',
      '--title',
      hostile,
      '--description',
      '<script>window.__pwned=2</script><b>bold?</b>',
    ])
    const { page, context, dialogs } = await newPage()
    const violations: string[] = []
    page.on('console', (message) => violations.push(message.text()))
    await page.goto(link.payment_url)
    expect(await text(page, 'h1')).toBe(hostile)
    expect(await text(page, '.description')).toBe('<script>window.__pwned=2</script><b>bold?</b>')
    const dom = await page.evaluate(
      `[window.__pwned ?? null, document.querySelectorAll('img, script, b').length]`,
    )
    expect(dom).toEqual([null, 0])
    await screens.take(page, 'hostile')
    await submit(page, 'Pay 9.99 EUR')
    expect(await text(page, '.description')).toBe(`Thank you. Your payment for ${hostile} was received.`)
    expect(dialogs).toEqual([])
    expect(violations).toEqual([])
    await context.close()
  })

  it('unknown and deleted links, unknown tokens and other paths: 404 pages', async () => {
    const deleted = await createLink()
    const removed = await runCli(['-p', 'sandbox', 'links', 'delete', deleted._id, '--yes'], { env })
    expect(removed.code).toBe(0)
    const { page, context } = await newPage()
    const cases: [string, string, string][] = [
      ['404-link', `${server.baseUrl}/checkout/pay?id=000000000000000000000000`, 'Payment link not found'],
      ['404-deleted', deleted.payment_url, 'Payment link not found'],
      ['404-token', `${server.baseUrl}/checkout/tokens/0000/activate?test=true`, 'Activation link not found'],
      ['404-page', `${server.baseUrl}/checkout/receipts`, 'Page not found'],
    ]
    for (const [name, url, heading] of cases) {
      const response = await page.goto(url)
      expect({ name, status: response?.status(), heading: await text(page, 'h1') }).toEqual({
        name,
        status: 404,
        heading,
      })
      expect(await page.getByRole('button').count()).toBe(0)
      await screens.take(page, name)
    }
    await context.close()
  })

  it('a form posted from another origin is refused (403), even with a valid page token, and pays nothing', async () => {
    const link = await createLink()
    // The attacker even has the page's token: the origin check alone refuses the post.
    const fields = formFields(await (await fetch(link.payment_url)).text())
    const inputs = Object.entries(fields)
      .map(([name, value]) => `<input type="hidden" name="${name}" value="${value.replace(/"/g, '&quot;')}">`)
      .join('')
    const evil = http.createServer((_, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' })
      response.end(
        `<!doctype html><title>Win a prize</title><form method="post" action="${link.payment_url}">${inputs}<button>Claim</button></form>`,
      )
    })
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve))
    try {
      const { page, context } = await newPage()
      await page.goto(`http://127.0.0.1:${(evil.address() as { port: number }).port}/`)
      const answer = await submit(page, 'Claim')
      expect(answer?.status()).toBe(403)
      expect(await text(page, 'h1')).toBe('This form was not accepted')
      await screens.take(page, '403-cross-origin')
      expect((await pay(['links', 'get', link._id])).paid).toBe(false)
      // The link offered on the refusal page opens the real payment page.
      await Promise.all([
        page.waitForNavigation(),
        page.getByRole('link', { name: 'Open the page again' }).click(),
      ])
      expect(page.url()).toBe(link.payment_url)
      expect(await page.getByRole('button').allInnerTexts()).toEqual([
        'Pay 25.50 EUR',
        'Pending',
        'Cancel payment',
        'Fail payment',
      ])
      await context.close()
    } finally {
      await new Promise((resolve) => evil.close(resolve))
    }
  })

  it('activation: masked email, Activate, back to the shop with token and status=active; then already active', async () => {
    const token = await createToken(['--redirect-url', `${shop.baseUrl}/cards/return?card=1`])
    const { page, context } = await newPage()
    const shown = await page.goto(token.activation_url)
    expect(shown?.status()).toBe(200)
    expect(await page.title()).toBe('Activate · Card for monthly billing')
    expect(await text(page, 'h1')).toBe('Card for monthly billing')
    expect(await text(page, '.details')).toBe('Email\nj•••@example.com')
    expect(await page.content()).not.toContain('jane@example.com')
    expect(await page.getByRole('button').allInnerTexts()).toEqual(['Activate'])
    await screens.take(page, 'activation')
    await submit(page, 'Activate')
    expect(page.url()).toBe(`${shop.baseUrl}/cards/return?card=1&token=${token.token}&status=active`)
    expect(shop.requests.filter((r) => r.path.startsWith('/cards/')).map((r) => r.path)).toEqual([
      `/cards/return?card=1&token=${token.token}&status=active`,
    ])
    await page.goto(token.activation_url)
    expect(await text(page, '.state')).toBe('This token is already active. There is nothing more to do.')
    expect(await page.getByRole('button').count()).toBe(0)
    await screens.take(page, 'active')

    // Without redirect_url: a confirmation page.
    const plain = await createToken()
    await page.goto(plain.activation_url)
    await submit(page, 'Activate')
    expect(await text(page, 'h1')).toBe('Token activated')
    await screens.take(page, 'activated')
    await context.close()
  })

  it('every page was screenshotted', () => {
    expect(screens.taken.map((file) => path.basename(file)).sort()).toEqual(
      [
        '403-cross-origin',
        '404-deleted',
        '404-link',
        '404-page',
        '404-token',
        'activated',
        'activation',
        'active',
        'hostile',
        'outcome-cancelled',
        'outcome-failed',
        'outcome-pending',
        'paid',
        'payment',
        'payment-focus',
        'payment-phone',
        'receipt',
        'receipt-phone',
      ]
        .map((name) => `${name}.png`)
        .sort(),
    )
    for (const file of screens.taken) expect(fs.statSync(file).size).toBeGreaterThan(1000)
  })
})
