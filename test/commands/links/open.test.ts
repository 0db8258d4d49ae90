import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../helpers/cli.js'
import { fakeBrowser, SHELL_LOOKING_URL, startOddUrlService } from '../../helpers/fake-browser.js'
import type { FakeServer } from '../../helpers/fake-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import { fakeEnv, type Json, seedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox, trustSandbox } from '../../helpers/sandbox.js'

describe('against a sandbox', () => {
  /** `links open`, `links create --open` and `links qr`, against a real sandbox (stdout piped). */

  let sandbox: TestSandbox
  let link: Json
  let fake: FakeServer
  const MISSING = '65a1f0c2e4b0a1b2c3d4e5f6'

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    link = await seedLink(sandbox, { title: 'Invoice 1042' })
    // A service that answers odd payment_urls: a shell-looking one, and one no browser should get.
    fake = await startOddUrlService()
  })

  afterAll(async () => {
    await sandbox.close()
    await fake.close()
  })

  const pay = (args: string[], env: Record<string, string> = {}) =>
    runInProcess(args, { env: { ...sandbox.env, ...env } })

  describe.concurrent('links open', () => {
    test('prints the payment_url on stdout and hands it to BROWSER', async () => {
      const browser = fakeBrowser()
      const result = await pay(['links', 'open', link._id], { BROWSER: browser.command })
      expect(result).toMatchObject({
        code: 0,
        stdout: `${link.payment_url}\n`,
        stderr: `Opening ${link.payment_url} in your browser.\n`,
      })
      expect(browser.opened()).toBe(`${link.payment_url}\n`)
    })

    test('BROWSER may carry its own arguments; the URL comes last', async () => {
      const browser = fakeBrowser()
      const result = await pay(['links', 'open', link._id], { BROWSER: `${browser.command} --new-window` })
      expect(result.code).toBe(0)
      expect(browser.opened()).toBe(`--new-window\n${link.payment_url}\n`)
    })

    test('--no-browser only prints the URL', async () => {
      const browser = fakeBrowser()
      const result = await pay(['links', 'open', link._id, '--no-browser'], { BROWSER: browser.command })
      expect(result).toMatchObject({ code: 0, stdout: `${link.payment_url}\n`, stderr: '' })
      expect(browser.opened()).toBeUndefined()
    })

    test('--json prints the id and URL as JSON', async () => {
      const result = await pay(['links', 'open', link._id, '--no-browser', '--json'])
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual({ _id: link._id, payment_url: link.payment_url })
      expect(result.stderr).toBe('')
    })

    test('a browser that cannot start is a warning: the URL is printed, exit 0', async () => {
      const result = await pay(['links', 'open', link._id], { BROWSER: 'no-such-browser-here' })
      expect(result).toMatchObject({
        code: 0,
        stdout: `${link.payment_url}\n`,
        stderr:
          `Opening ${link.payment_url} in your browser.\n` +
          'Warning: could not open a browser: BROWSER (no-such-browser-here) exited with 127 (command not found). ' +
          'Open the URL yourself, or set BROWSER.\n',
      })
    })

    test('an unknown id: exit 5, nothing printed or opened', async () => {
      const browser = fakeBrowser()
      const result = await pay(['links', 'open', MISSING], { BROWSER: browser.command })
      expect(result).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Payment link not found.\n' })
      expect(browser.opened()).toBeUndefined()
    })

    test('the URL reaches BROWSER as data: shell text in it runs nothing', async () => {
      const browser = fakeBrowser()
      const result = await runInProcess(['links', 'open', 'shell'], {
        env: { ...fakeEnv(fake), BROWSER: `cd ${browser.dir} && ${browser.command}` },
      })
      const url = SHELL_LOOKING_URL
      expect(result).toMatchObject({ code: 0, stdout: `${url}\n` })
      expect(browser.opened()).toBe(`${url}\n`)
      expect(fs.existsSync(path.join(browser.dir, 'pwned'))).toBe(false)
    })

    test.for(['script', 'pipe'])(
      'a payment_url that is no plain web address (%s) is refused: exit 1, no browser',
      async (id) => {
        const browser = fakeBrowser()
        const result = await runInProcess(['links', 'open', id], {
          env: { ...fakeEnv(fake), BROWSER: browser.command },
        })
        expect(result).toMatchObject({
          code: 1,
          stdout: '',
          stderr: `Error: The service gave no usable payment_url for payment link ${id}.\n`,
        })
        expect(browser.opened()).toBeUndefined()
      },
    )

    test('the browser starts without PAY_API_KEY or any other PAY_* variable', async () => {
      const browser = fakeBrowser()
      const envFile = path.join(browser.dir, 'env')
      const key = 'sk_live_NotForTheBrowser_93c1'
      const result = await runInProcess(['links', 'open', 'shell'], {
        env: {
          ...fakeEnv(fake),
          PAY_API_KEY: key,
          PAY_PROFILE: undefined,
          PAY_TIMEOUT: '9',
          BROWSER: `env > ${envFile}; ${browser.command}`,
        },
      })
      expect(result).toMatchObject({ code: 0, stdout: `${SHELL_LOOKING_URL}\n` })
      expect(browser.opened()).toBe(`${SHELL_LOOKING_URL}\n`)
      const seen = fs.readFileSync(envFile, 'utf8')
      expect(seen).toMatch(/^PATH=/m)
      expect(seen.split('\n').filter((line) => /^PAY_/i.test(line))).toEqual([])
      expect(seen).not.toContain(key)
    })
  })
})

describe('pages nothing serves', () => {
  /**
   * `links open` and `links qr` with the built-in profile and no sandbox running: the sandbox ran
   * inside the command, so nothing serves the page at the link's payment_url once it ends. They
   * say so (found trying the support flow), and say nothing of the kind when a server serves it.
   * So does every command that prints such an address.
   */

  const create = [
    '-p',
    'sandbox',
    'links',
    'create',
    '--email',
    'a@b.co',
    '--currency',
    'EUR',
    '--amount',
    '1',
    '--title',
    'x',
  ]

  const warning = (port: string) =>
    `Warning: No sandbox is running at http://127.0.0.1:${port}, so this page will not open: the sandbox ran inside this command. ` +
    'Serve it with `pay sandbox start` (PAY_SANDBOX_PORT sets the port).\n'

  describe('links open / links qr of a page nothing serves', () => {
    let served: TestSandbox
    beforeAll(async () => {
      served = await startTestSandbox({ ownKey: true })
    })
    afterAll(() => served.close())

    test('in-process sandbox: the URL, and a warning on how to serve the page (open, create --open, qr)', async () => {
      const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-'), PAY_SANDBOX_PORT: '4799' }
      const made = await runInProcess([...create, '--columns', '_id'], { env })
      expect(made.code).toBe(0)
      const id = made.stdout.trim()
      const open = await runInProcess(['-p', 'sandbox', 'links', 'open', id, '--no-browser'], { env })
      expect(open).toMatchObject({
        code: 0,
        stdout: `http://127.0.0.1:4799/checkout/pay?id=${id}\n`,
        stderr: warning('4799'),
      })
      const opened = await runInProcess([...create, '--open', '-q'], { env: { ...env, BROWSER: 'true' } })
      expect(opened).toMatchObject({ code: 0, stderr: warning('4799') })
      const file = path.join(tempDir(), 'qr.png')
      const qr = await runInProcess(['-p', 'sandbox', 'links', 'qr', id, '--output', file], { env })
      expect(qr).toMatchObject({
        code: 0,
        stderr: `${warning('4799')}Wrote the QR code of http://127.0.0.1:4799/checkout/pay?id=${id} to ${file}.\n`,
      })
    })

    test('in-process sandbox: every command that prints a payment_url or activation_url says once that nothing serves it; one that prints none says nothing', async () => {
      const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-'), PAY_SANDBOX_PORT: '4799' }
      const printed =
        'Warning: No sandbox is running at http://127.0.0.1:4799, so the page addresses printed will not open: the sandbox ran inside this command. ' +
        'Serve them with `pay sandbox start` (PAY_SANDBOX_PORT sets the port).\n'
      const id = (await runInProcess([...create, '-q'], { env })).stdout.trim()
      const token = ['token', 'create', '--email', 'a@b.co', '--title', 'T', '--description', 'D']
      for (const args of [
        [...create],
        [...create, '--json'],
        ['-p', 'sandbox', 'links', 'get', id],
        ['-p', 'sandbox', 'links', 'get', id, '--jq', '.payment_url'],
        ['-p', 'sandbox', 'links', 'list', '--json'],
        ['-p', 'sandbox', 'links', 'update', id, '--title', 'y'],
        ['-p', 'sandbox', ...token],
        ['-p', 'sandbox', ...token, '--json'],
      ]) {
        const result = await runInProcess(args, { env })
        expect([args, result.code, result.stderr]).toEqual([args, 0, printed])
        expect(result.stdout).toContain('http://127.0.0.1:4799/checkout/')
      }
      for (const args of [
        [...create, '-q'],
        ['-p', 'sandbox', 'links', 'get', id, '--columns', '_id,title'],
        ['-p', 'sandbox', 'links', 'list', '-q'],
        ['-p', 'sandbox', ...token, '-q'],
      ]) {
        const result = await runInProcess(args, { env })
        expect([args, result.code, result.stderr]).toEqual([args, 0, ''])
      }
    })

    test('a server at the profile’s port: no warning', async () => {
      const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-'), PAY_SANDBOX_PORT: new URL(served.baseUrl).port }
      trustSandbox(served.dir, env.PAY_SANDBOX_DIR)
      const made = await runInProcess([...create, '--columns', '_id'], { env })
      const id = made.stdout.trim()
      const open = await runInProcess(['-p', 'sandbox', 'links', 'open', id, '--no-browser'], { env })
      expect(open).toMatchObject({ code: 0, stdout: `${served.baseUrl}/checkout/pay?id=${id}\n`, stderr: '' })
    })
  })
})
