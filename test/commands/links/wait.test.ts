import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { SANDBOX_KEY } from '../../../src/sandbox/constants.js'
import { startSandbox } from '../../../src/sandbox/http/server.js'
import { DURATION_FORMS } from '../../../src/shared/duration.js'
import { type FakeServer, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import { json, payRunner, reset, serve } from '../../helpers/fault-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import { seedLink } from '../../helpers/links.js'
import { clientFor, startTestSandbox, type TestSandbox, tempDir, VALID_LINK } from '../../helpers/sandbox.js'
import { closeTerminals } from '../../helpers/terminal.js'

describe('against a sandbox', () => {
  const runPay = payRunner(runInProcess)

  /**
   * `pay links wait ID` end to end: paid while it waits, already paid, timeout (exit 8),
   * unknown id (exit 5), a refused key (exit 4), a service failing for a while, Ctrl-C (exit 130),
   * in a real terminal (one line redrawn) and with NO_COLOR or in accessible mode (plain lines,
   * none redrawn).
   */

  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })
  afterAll(() => sandbox?.close())
  afterEach(closeTerminals)

  const pay = (args: string[]) => runInProcess(args, { env: sandbox.env })
  const waiting = (id: string, limit = '10m') =>
    `Waiting for payment link ${id} to be paid (at most ${limit}).\n`

  describe('links wait', () => {
    test('already paid: exit 0 at once, nothing said about waiting; --json prints the link', async () => {
      const link = await seedLink(sandbox)
      await sandbox.markPaid(link._id)
      const result = await pay(['links', 'wait', link._id, '--json'])
      expect(result).toMatchObject({ code: 0, stderr: '' })
      expect(JSON.parse(result.stdout)).toEqual(
        (await sandbox.request('GET', `/payment-links/${link._id}`)).body.data,
      )
    })

    test('--timeout runs out: exit 8, said plainly and as JSON; a bare number is seconds, as everywhere', async () => {
      const link = await seedLink(sandbox)
      const [plain, asJson, bare] = await Promise.all([
        pay(['links', 'wait', link._id, '--timeout', '2s']),
        pay(['links', 'wait', link._id, '--timeout', 'PT1S', '--json']),
        pay(['links', 'wait', link._id, '--timeout', '2']),
      ])
      expect([bare.code, bare.stdout, bare.stderr]).toEqual([plain.code, plain.stdout, plain.stderr])
      expect(plain).toMatchObject({
        code: 8,
        stdout: '',
        stderr: `${waiting(link._id, '2s')}Error: Still waiting for payment link ${link._id} to be paid after 2s.\nWait longer with --timeout DURATION (0: no limit).\n`,
      })
      expect(asJson).toMatchObject({ code: 8, stdout: '' })
      expect(JSON.parse(asJson.stderr)).toEqual({
        error: {
          status: null,
          kind: 'wait_timeout',
          exit_code: 8,
          message: `Still waiting for payment link ${link._id} to be paid after 1s.`,
          hint: 'Wait longer with --timeout DURATION (0: no limit).',
        },
      })
    })

    test('an unknown id: exit 5; a --timeout or --until that means nothing: exit 2', async () => {
      const [unknown, badTimeout, badUntil] = await Promise.all([
        pay(['links', 'wait', 'ffff00000000000000000042']),
        pay(['links', 'wait', 'ffff00000000000000000042', '--timeout', 'ten']),
        pay(['links', 'wait', 'ffff00000000000000000042', '--until', 'expired']),
      ])
      expect(unknown).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Payment link not found.\n' })
      expect(badTimeout).toMatchObject({
        code: 2,
        stderr: `Error: --timeout: Expected a number of seconds (2, 0.5; 0 waits for ever) or a duration, ${DURATION_FORMS}; received: ten\nSee \`pay links wait --help\`.\n`,
      })
      expect(badUntil.code).toBe(2)
      expect(badUntil.stderr).toContain('Expected --until=expired to be one of: paid')
    })
  })

  describe('links wait against a failing service', () => {
    const PAID = { success: true, data: { _id: 'L1', paid: true, status: 'Active' }, errors: null }
    const UNPAID = { success: true, data: { _id: 'L1', paid: false, status: 'Active' }, errors: null }

    test('5xx and reset connections keep it waiting, said once each way; then paid: exit 0', async (context) => {
      const fake = await serve(
        context,
        json(200, UNPAID),
        // One look: three attempts (two retries), all 503.
        json(503, { message: 'Down for maintenance' }),
        json(503, { message: 'Down for maintenance' }),
        json(503, { message: 'Down for maintenance' }),
        reset(),
        reset(),
        reset(),
        json(200, UNPAID),
        json(200, PAID),
      )
      const result = await runPay(['links', 'wait', 'L1', '--columns', 'paid'], fake.baseUrl)
      expect(result).toMatchObject({ code: 0, stdout: 'true\n' })
      expect(result.stderr).toBe(
        [
          'Waiting for payment link L1 to be paid (at most 10m).',
          'The service does not answer (Down for maintenance); still waiting.',
          'The service answers again; still waiting.',
          '',
        ].join('\n'),
      )
      expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(
        Array(9).fill('GET /payment-links/L1'),
      )
    })

    test('a refused key stops it: exit 4', async (context) => {
      const fake = await serve(context, json(200, UNPAID), json(401, { message: 'Unauthenticated.' }))
      const result = await runPay(['links', 'wait', 'L1'], fake.baseUrl)
      expect(result.code).toBe(4)
      expect(result.stderr).toContain('did not accept the key in PAY_API_KEY (401: Unauthenticated.)')
      expect(fake.requests).toHaveLength(2)
    })
  })
})

describe('the sandbox stops while it waits, and another program takes its port', () => {
  const KEY = 'sk_live_wait_squatter_canary_5e4d3c2b'

  test('the squatter gets one challenge and no key; the wait ends saying why (exit 6)', async () => {
    const dir = tempDir('pay-wait-squatted-')
    const sandbox = await startSandbox({ dir, keys: [SANDBOX_KEY, KEY], port: 0 })
    const port = new URL(sandbox.baseUrl).port
    let squatter: FakeServer | undefined
    try {
      const link = (await clientFor(sandbox.baseUrl, KEY).call('POST', '/payment-links', VALID_LINK)).json
        .data
      const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: port, PAY_API_KEY: KEY }
      const running = runInProcess(['-p', 'sandbox', 'links', 'wait', link._id, '--timeout', '2m'], { env })
      // Its first look went to the sandbox, which proved it is the user's.
      const looked = () =>
        sandbox
          .requests({ key: KEY })
          .some((r) => r.method === 'GET' && r.path === `/payment-links/${link._id}`)
      while (!looked()) await new Promise((resolve) => setTimeout(resolve, 20))
      await sandbox.close()
      // An impostor: answers the health route as a sandbox does, and anything else with the link paid.
      squatter = await startFakeServer(
        (request, res) =>
          request.path.startsWith('/_sandbox/health')
            ? sendJson(res, 200, { service: 'pay-sandbox', proof: '0'.repeat(64) }, { 'x-pay-sandbox': '1' })
            : sendJson(res, 200, { success: true, data: { ...link, paid: true } }),
        { port: Number(port) },
      )
      const result = await running
      expect(result).toMatchObject({
        code: 6,
        stdout: '',
        stderr:
          `Using the API key from PAY_API_KEY (sk_l…3c2b) instead of profile "sandbox"'s.\n` +
          `Waiting for payment link ${link._id} to be paid (at most 2m).\n` +
          `Error: http://127.0.0.1:${port} is no longer your sandbox: a new connection to it could not prove it ` +
          'keeps its store in your PAY_SANDBOX_DIR (the sandbox stopped, and another program holds its port?). ' +
          'Nothing was sent on it.\nStart your sandbox again (`pay sandbox start`) and run the command again.\n',
      })
      expect(
        squatter.requests.map((r) => [
          r.method,
          r.path.replace(/=[0-9a-f]{64}$/, '=C'),
          r.headers.authorization,
        ]),
      ).toEqual([['GET', '/_sandbox/health?challenge=C', undefined]])
      expect(JSON.stringify(squatter.requests)).not.toContain(KEY)
      expect(JSON.stringify(squatter.requests)).not.toContain(KEY.slice(8, 20))
    } finally {
      await squatter?.close()
      await sandbox.close()
    }
  })
})
