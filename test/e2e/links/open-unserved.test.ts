import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli, tempDir } from '../../helpers/cli.js'
import { startTestSandbox, type TestSandbox, trustSandbox } from '../../helpers/sandbox.js'

/**
 * `links open` and `links qr` with the built-in profile and no sandbox running: the sandbox ran
 * inside the command, so nothing serves the page at the link's payment_url once it ends. They
 * say so (found trying the support flow), and say nothing of the kind when a server serves it.
 * So does every command that prints such an address (issue 23 item 4).
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
    served = await startTestSandbox()
  })
  afterAll(() => served.close())

  test('in-process sandbox: the URL, and a warning on how to serve the page (open, create --open, qr)', async () => {
    const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-'), PAY_SANDBOX_PORT: '4799' }
    const made = await runCli([...create, '--columns', '_id'], { env })
    expect(made.code).toBe(0)
    const id = made.stdout.trim()
    const open = await runCli(['-p', 'sandbox', 'links', 'open', id, '--no-browser'], { env })
    expect(open).toMatchObject({
      code: 0,
      stdout: `http://127.0.0.1:4799/checkout/pay?id=${id}\n`,
      stderr: warning('4799'),
    })
    const opened = await runCli([...create, '--open', '-q'], { env: { ...env, BROWSER: 'true' } })
    expect(opened).toMatchObject({ code: 0, stderr: warning('4799') })
    const file = path.join(tempDir(), 'qr.png')
    const qr = await runCli(['-p', 'sandbox', 'links', 'qr', id, '--output', file], { env })
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
    const id = (await runCli([...create, '-q'], { env })).stdout.trim()
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
      const result = await runCli(args, { env })
      expect([args, result.code, result.stderr]).toEqual([args, 0, printed])
      expect(result.stdout).toContain('http://127.0.0.1:4799/checkout/')
    }
    for (const args of [
      [...create, '-q'],
      ['-p', 'sandbox', 'links', 'get', id, '--columns', '_id,title'],
      ['-p', 'sandbox', 'links', 'list', '-q'],
      ['-p', 'sandbox', ...token, '-q'],
    ]) {
      const result = await runCli(args, { env })
      expect([args, result.code, result.stderr]).toEqual([args, 0, ''])
    }
  })

  test('a server at the profile’s port: no warning', async () => {
    const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-'), PAY_SANDBOX_PORT: new URL(served.baseUrl).port }
    trustSandbox(served.dir, env.PAY_SANDBOX_DIR)
    const made = await runCli([...create, '--columns', '_id'], { env })
    const id = made.stdout.trim()
    const open = await runCli(['-p', 'sandbox', 'links', 'open', id, '--no-browser'], { env })
    expect(open).toMatchObject({ code: 0, stdout: `${served.baseUrl}/checkout/pay?id=${id}\n`, stderr: '' })
  })
})
