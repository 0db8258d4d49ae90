import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { BIN, cleanEnv, tempDir } from '../../helpers/cli.js'
import { killStarted, type SandboxProcess, startSandboxProcess } from '../../helpers/processes.js'
import { clientFor } from '../../helpers/sandbox.js'
import { closeTerminals, startTerminal } from '../../helpers/terminal.js'

/**
 * `pay sandbox requests --follow` as a developer runs it beside their app, in a terminal of 80
 * columns: a short first line per request (its fault on it), the Idempotency-Key and the body on
 * indented lines of their own, and Ctrl-C, whose "^C" the message does not share a line with.
 */

let server: SandboxProcess
let env: Record<string, string>

beforeAll(async () => {
  const dir = tempDir('pay-requests-terminal-')
  server = await startSandboxProcess(
    [BIN, 'sandbox', 'start', '--port', '0', '--json', '--fault', 'POST /payment-links 503 x1'],
    cleanEnv({ PAY_SANDBOX_DIR: dir }),
  )
  env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: new URL(server.baseUrl).port, NO_COLOR: '1' }
})

afterEach(closeTerminals)
afterAll(killStarted)

test('--follow at 80 columns: each request as it comes, nothing wider than the terminal but the body; Ctrl-C exits 130', async () => {
  const term = await startTerminal(['sandbox', 'requests', '--follow'], { env, width: 80 })
  const note = `Following new requests to the sandbox at ${server.baseUrl}; Ctrl-C stops.`
  await term.waitFor('Ctrl-C stops.')
  const api = clientFor(server.baseUrl, server.key)
  const link = { email: 'jane@example.com', currency: 'EUR', amount: '25.50', title: 'Card 4242424242424242' }
  const headers = { 'Idempotency-Key': 'order-1042-attempt' }
  expect((await api.call('POST', '/payment-links', link, headers)).status).toBe(503)
  expect((await api.call('POST', '/payment-links', link, headers)).status).toBe(200)
  await term.waitFor(/200 [\d.]+ ms\n {2}Idempotency-Key/)
  await term.press('C-c')
  expect(await term.exitCode()).toBe(130)
  const body = '  {"email":"jane@example.com","currency":"EUR","amount":"25.50","title":"Card [REDACTED]"}'
  const lines = (await term.screen())
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/^\d\d:\d\d:\d\d /, 'HH:MM:SS '))
  expect(lines.map((line) => line.replace(/ [\d.]+ ms/, ' N ms'))).toEqual([
    note,
    'HH:MM:SS POST /payment-links 503 N ms fault: 503 x1',
    '  Idempotency-Key: order-1042-attempt',
    body,
    'HH:MM:SS POST /payment-links 200 N ms',
    '  Idempotency-Key: order-1042-attempt',
    body,
    '^C',
    'Stopped following.',
  ])
  expect(Math.max(...lines.filter((line) => line !== body).map((line) => line.length))).toBeLessThanOrEqual(
    80,
  )
})
