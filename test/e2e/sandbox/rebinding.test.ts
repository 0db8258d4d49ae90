import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  chromiumInstalled,
  chromiumRequired,
  launchChromium,
  MISSING_CHROMIUM,
  Screenshots,
} from '../../helpers/browser.js'
import { BIN, cleanEnv, tempDir } from '../../helpers/cli.js'
import { formFields } from '../../helpers/pages.js'
import { killStarted, type SandboxProcess, startSandboxProcess } from '../../helpers/processes.js'
import { type Client, clientFor, rawRequest, storeText } from '../../helpers/sandbox.js'

/**
 * A hostile web page in a real Chromium. DNS rebinding: a page the
 * developer visits at `http://rebind.test:PORT/` has its name re-resolved to 127.0.0.1, here by
 * Chromium's `--host-resolver-rules`, so that its scripts and forms reach the sandbox on PORT as
 * the page's own origin (no CORS stands in the way) with the well-known sandbox key. Every such
 * request reaches the sandbox (its answer is readable) and is refused 421; nothing changes in the
 * store. Then text that reorders itself: bidi controls in a reference are shown, not obeyed.
 */

let browser: Browser
let server: SandboxProcess
let dir: string
let api: Client
let screens: Screenshots

beforeAll(async () => {
  if (!chromiumInstalled) return
  dir = tempDir('pay-rebind-')
  server = await startSandboxProcess(
    [BIN, 'sandbox', 'start', '--port', '0', '--json'],
    cleanEnv({ PAY_SANDBOX_DIR: dir }),
  )
  api = clientFor(server.baseUrl, server.key)
  screens = new Screenshots(tempDir('pay-screens-'))
  browser = await launchChromium([
    '--host-resolver-rules=MAP rebind.test 127.0.0.1',
    // Chromium's own shield against this (Private/Local Network Access) is turned off: Firefox and
    // Safari have none, and the sandbox must stand on its own.
    '--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,LocalNetworkAccessChecks',
  ])
})

afterAll(async () => {
  await browser?.close()
  killStarted()
})

it.runIf(!chromiumInstalled && chromiumRequired)('Chromium is installed (CI requires it)', () => {
  throw new Error(MISSING_CHROMIUM)
})

/** The attacker's page: everything a rebound page would try, as the page's own origin. */
const ATTACK = `<!doctype html><title>Cute cats</title><h1>Cats</h1><script>
async function attempt(label, path, init) {
  try {
    const response = await fetch(path, init)
    return [label, response.status, await response.text()]
  } catch (error) {
    return [label, 'failed', String(error)]
  }
}
window.attack = async (key, id) => {
  const auth = { Authorization: 'Bearer ' + key }
  const json = { ...auth, 'Content-Type': 'application/json' }
  const link = JSON.stringify({ email: 'cat@example.com', currency: 'EUR', amount: '1', title: 'cat' })
  return [
    await attempt('read every link', '/payment-links', { headers: auth }),
    await attempt('create a link', '/payment-links', { method: 'POST', headers: json, body: link }),
    await attempt('pay a link', '/_sandbox/payment-links/' + id + '/pay', { method: 'POST', headers: auth }),
    await attempt('delete a link', '/payment-links/' + id, { method: 'DELETE', headers: auth }),
    await attempt('reset the store', '/_sandbox/reset', { method: 'POST', headers: auth }),
    await attempt('read the payment page', '/checkout/pay?id=' + id, {}),
  ]
}
window.post = (id, fields) => {
  const form = document.createElement('form')
  form.method = 'post'
  form.action = '/checkout/pay?id=' + id
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input')
    input.type = 'hidden'
    input.name = name
    input.value = value
    form.append(input)
  }
  document.body.append(form)
  form.submit()
}
</script>`

describe.runIf(chromiumInstalled)('a rebound web page in Chromium', () => {
  it('reaches the sandbox under its own name: every fetch and a form POST are refused 421; the store is unchanged', async () => {
    const link = (
      await api.call('POST', '/payment-links', {
        email: 'jane@example.com',
        currency: 'EUR',
        amount: '25.50',
        title: 'Invoice 1042',
      })
    ).json.data
    // The page token a real visit gets: the attacker's form carries a valid one.
    const fields = formFields(
      (await rawRequest(server.baseUrl, { path: `/checkout/pay?id=${link._id}` })).text,
    )
    const before = storeText(dir)
    // The log so far (its lines are written once each answer went out).
    await expect.poll(() => server.stderr()).toContain(`GET /checkout/pay?id=${link._id} 200`)
    const logged = server.stderr().length
    const port = new URL(server.baseUrl).port
    const origin = `http://rebind.test:${port}`
    const context = await browser.newContext()
    const page = await context.newPage()
    // The attacker's own server gave the page first; its scripts then run against 127.0.0.1.
    await page.route(`${origin}/`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: ATTACK }),
    )
    await page.goto(`${origin}/`)
    expect(await page.title()).toBe('Cute cats')
    const results = (await page.evaluate(
      ([key, id]) =>
        (globalThis as never as { attack: (k: string, i: string) => Promise<unknown> }).attack(key, id),
      // The sandbox's own key, as if the page knew it: the Host alone is what refuses it.
      [server.key, link._id],
    )) as [string, number | string, string][]
    const message = `{"message":"Misdirected request: this sandbox answers only requests addressed to it as 127.0.0.1, localhost or [::1], port ${port}."}`
    expect(results.filter(([label]) => label !== 'read the payment page')).toEqual([
      ['read every link', 421, message],
      ['create a link', 421, message],
      ['pay a link', 421, message],
      ['delete a link', 421, message],
      ['reset the store', 421, message],
    ])
    const [, status, html] = results.at(-1)!
    expect(status).toBe(421)
    expect(html).toContain('<title>Wrong address</title>')
    expect(html).not.toContain('page_token')

    // A form POST of the payment page, as the page's own origin, with a valid page token.
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      page.evaluate(
        ([id, form]) => (globalThis as never as { post: (i: string, f: unknown) => void }).post(id, form),
        [link._id, fields] as const,
      ),
    ])
    expect(answer?.status()).toBe(421)
    expect(answer?.url()).toBe(`${origin}/checkout/pay?id=${link._id}`)
    expect(await page.title()).toBe('Wrong address')
    await screens.take(page, 'rebound-form-refused')
    await context.close()

    // Its request log: every request of the page was answered 421, none ran (Chromium may send a
    // request refused 421 once more, on a new connection, as HTTP allows).
    const refusedLines = () => server.stderr().slice(logged).trim().split('\n').filter(Boolean)
    await expect.poll(() => refusedLines().length).toBeGreaterThanOrEqual(7)
    for (const line of refusedLines()) expect(line).toMatch(/^\d\d:\d\d:\d\d [A-Z]+ \S+ 421 \d+\.\d ms$/)
    expect(storeText(dir)).toBe(before)
    expect((await api.call('GET', `/payment-links/${link._id}`)).json.data.paid).toBe(false)
  })

  it('the same page at the sandbox’s own address still works: the refusal is the Host, not the browser', async () => {
    const link = (
      await api.call('POST', '/payment-links', {
        email: 'jane@example.com',
        currency: 'EUR',
        amount: '5',
        title: 'Own address',
      })
    ).json.data
    const context = await browser.newContext()
    const page = await context.newPage()
    const shown = await page.goto(`${server.baseUrl}/checkout/pay?id=${link._id}`)
    expect(shown?.status()).toBe(200)
    const [paid] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Pay 5.00 EUR' }).click(),
    ])
    expect(paid?.status()).toBe(200)
    expect((await api.call('GET', `/payment-links/${link._id}`)).json.data.paid).toBe(true)
    await context.close()
  })

  it('bidi controls in a reference and a title are shown by name, so "REF-<U+202E>evil" never reads "REF-live"', async () => {
    const link = (
      await api.call('POST', '/payment-links', {
        email: 'jane@example.com',
        currency: 'EUR',
        amount: '25.50',
        title: 'Invoice \u202Efdp.exe',
        reference: 'REF-\u202Eevil',
      })
    ).json.data
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${server.baseUrl}/checkout/pay?id=${link._id}`)
    const reference = await page.locator('.details dd').innerText()
    expect(reference).toBe('REF-<U+202E>evil')
    expect(await page.locator('h1').innerText()).toBe('Invoice <U+202E>fdp.exe')
    expect(await page.title()).toBe('Pay 25.50 EUR · Invoice <U+202E>fdp.exe')
    const text = await page.locator('body').innerText()
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/)
    await screens.take(page, 'bidi-reference')
    // The form still pays: the hidden fields carry the record's values as they are.
    const [paid] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Pay 25.50 EUR' }).click(),
    ])
    expect(paid?.status()).toBe(200)
    expect((await api.call('GET', `/payment-links/${link._id}`)).json.data.paid).toBe(true)
    await context.close()
  })
})
