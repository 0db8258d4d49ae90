import { createHmac } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest'
import { SANDBOX_KEY } from '../../../src/sandbox/constants.js'
import { startSandbox } from '../../../src/sandbox/http/server.js'
import { DURATION_FORMS } from '../../../src/shared/duration.js'
import { type FakeServer, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import { json, payRunner, reset, serve } from '../../helpers/fault-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import { seedLink } from '../../helpers/links.js'
import { createLocal } from '../../helpers/local-store.js'
import { clientFor, startTestSandbox, type TestSandbox, tempDir, VALID_LINK } from '../../helpers/sandbox.js'
import { closeTerminals } from '../../helpers/terminal.js'
import { webhooksOf } from '../../helpers/webhooks.js'

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
      expect(JSON.parse(result.stdout)).toEqual({
        ...(await sandbox.request('GET', `/payment-links/${link._id}`)).body.data,
        outcome: 'paid',
      })
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
      expect(badUntil.stderr).toContain('Expected --until=expired to be one of: attempt, paid')
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

describe('the customer’s attempts, on the sandbox profile', () => {
  /**
   * `pay links wait ID` and the customer's payment attempts, on the user's sandbox (the `sandbox`
   * profile), which tells each attempt as the service tells shops: by its notification. A failed
   * attempt ends the wait (exit 1, the link with `outcome: failed`), a pending one is said and
   * waited through, and `--until paid` waits through failures as before. Elsewhere (a profile of
   * another service) only a payment ends the wait: test/commands/links/wait.test.ts.
   */

  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox({ ownKey: true })
  })
  afterAll(() => sandbox?.close())

  /** The `sandbox` profile, reaching this test's sandbox: its port, and the directory its proof names. */
  const sandboxProfile = () => ({
    PAY_SANDBOX_DIR: sandbox.dir,
    PAY_SANDBOX_PORT: new URL(sandbox.baseUrl).port,
  })

  /** The endpoint a running `links wait` registered to hear the link's attempts, once it has. */
  async function waitsAt(): Promise<string> {
    let url: string | undefined
    await vi.waitFor(
      async () => {
        url = (await webhooksOf(sandbox)).endpoints.find((e: { url: string }) =>
          e.url.includes('/links-wait/'),
        )?.url
        expect(url).toBeDefined()
      },
      { timeout: 10_000 },
    )
    return url as string
  }

  const act = (id: string, outcome: 'pay' | 'pending' | 'fail' | 'cancel') =>
    sandbox.request('POST', `/_sandbox/payment-links/${id}/${outcome}`)

  /** A notification of the link's attempt with `status`, signed with the business's key as the sandbox signs it. */
  async function notification(link: { _id: string; currency: string }, status: number, message: string) {
    const key = (await webhooksOf(sandbox)).signature_key as string
    const data = {
      attempt_id: 'a00000000000000000000001',
      payment_id: 'b00000000000000000000001',
      payment_time: '24-11-2026 05:10:25 pm',
      payment_amount: 2550,
      payment_status: status,
      payment_link_id: link._id,
      payment_link_reference: '',
      payment_link_reference_2: '',
      payment_message: message,
      payment_currency: link.currency,
      payment_method: 'card',
      payment_provider: 'pay-sandbox',
    }
    const hash = createHmac('sha256', key)
      .update(key + Object.values(data).join(''))
      .digest('hex')
    return JSON.stringify({
      trigger_at: '2026-11-24T17:10:25.000Z',
      event: 'payment.created',
      data: { ...data, hash },
    })
  }

  describe('links wait on the sandbox: the customer’s attempts', () => {
    test('a failed attempt ends it: said, exit 1, the link with outcome failed; its endpoint removed after', async () => {
      const link = await seedLink(sandbox)
      const running = runInProcess(['-p', 'sandbox', 'links', 'wait', link._id, '--json'], {
        env: sandboxProfile(),
      })
      await waitsAt()
      expect((await act(link._id, 'fail')).status).toBe(200)
      const result = await running
      expect(result.code).toBe(1)
      expect(JSON.parse(result.stdout)).toEqual({
        ...(await sandbox.request('GET', `/payment-links/${link._id}`)).body.data,
        outcome: 'failed',
      })
      expect(JSON.parse(result.stderr)).toEqual({
        error: {
          status: null,
          kind: 'general',
          exit_code: 1,
          message: `The customer's payment attempt on payment link ${link._id} failed (Payment failed).`,
          hint: `The link stays payable: \`pay links wait ${link._id}\` waits for the next attempt, and --until paid for a payment only.`,
        },
      })
      expect((await webhooksOf(sandbox)).endpoints).toEqual([])
    })

    test('in words, the link printed and the failure said under it', async () => {
      const link = await seedLink(sandbox)
      const running = runInProcess(['-p', 'sandbox', 'links', 'wait', link._id, '--columns', '_id,paid'], {
        env: sandboxProfile(),
      })
      await waitsAt()
      await act(link._id, 'fail')
      const result = await running
      expect(result).toMatchObject({
        code: 1,
        stdout: `${link._id}\tfalse\n`,
        stderr:
          `Waiting for payment link ${link._id} to be paid (at most 10m).\n` +
          `Error: The customer's payment attempt on payment link ${link._id} failed (Payment failed).\n` +
          `The link stays payable: \`pay links wait ${link._id}\` waits for the next attempt, and --until paid for a payment only.\n`,
      })
    })

    test('a paid attempt ends it at once: exit 0, outcome paid', async () => {
      const link = await seedLink(sandbox)
      const running = runInProcess(['-p', 'sandbox', 'links', 'wait', link._id, '--json'], {
        env: sandboxProfile(),
      })
      await waitsAt()
      await act(link._id, 'pay')
      const result = await running
      expect(result).toMatchObject({ code: 0, stderr: '' })
      expect(JSON.parse(result.stdout)).toMatchObject({ _id: link._id, paid: true, outcome: 'paid' })
    })

    test('a pending attempt is said and waited through; cancelling (no attempt) changes nothing', async () => {
      const link = await seedLink(sandbox)
      const running = runInProcess(['-p', 'sandbox', 'links', 'wait', link._id], { env: sandboxProfile() })
      const url = await waitsAt()
      // What the sandbox sends once it plays a pending outcome (payment_status 2): told as it would be.
      const told = await fetch(url, { method: 'POST', body: await notification(link, 2, 'Payment pending') })
      expect(told.status).toBe(200)
      // Told twice (deliveries come at least once): said once.
      await fetch(url, { method: 'POST', body: await notification(link, 2, 'Payment pending') })
      // One that does not verify is refused and changes nothing.
      const forged = await fetch(url, {
        method: 'POST',
        body: (await notification(link, 3, 'Payment failed')).replace(/"hash":"[0-9a-f]{4}/, '"hash":"0000'),
      })
      expect(forged.status).toBe(401)
      await act(link._id, 'cancel')
      await act(link._id, 'pay')
      const result = await running
      expect(result).toMatchObject({ code: 0 })
      expect(result.stderr).toBe(
        `Waiting for payment link ${link._id} to be paid (at most 10m).\n` +
          "The customer's payment is pending (Payment pending); still waiting.\n",
      )
    })

    test('the sandbox’s own pending outcome (the page’s Pending button) is said and waited through; paid after: exit 0', async () => {
      const link = await seedLink(sandbox)
      const running = runInProcess(['-p', 'sandbox', 'links', 'wait', link._id, '--columns', '_id,paid'], {
        env: sandboxProfile(),
      })
      await waitsAt()
      expect((await act(link._id, 'pending')).status).toBe(200)
      // Its notification told (payment_status 2) before the payment's: the wait is still on then.
      await vi.waitFor(
        async () =>
          expect(
            (await sandbox.request('GET', '/_sandbox/webhooks/deliveries')).body.data.filter(
              (d: { payment_link_id: string; state: string }) =>
                d.payment_link_id === link._id && d.state === 'delivered',
            ),
          ).toHaveLength(1),
        { timeout: 10_000 },
      )
      await act(link._id, 'pay')
      const result = await running
      expect(result).toMatchObject({
        code: 0,
        stdout: `${link._id}\ttrue\n`,
        stderr:
          `Waiting for payment link ${link._id} to be paid (at most 10m).\n` +
          "The customer's payment is pending (Payment pending); still waiting.\n",
      })
    })

    test('--until paid waits through a failed attempt, hearing none, until paid', async () => {
      const link = await seedLink(sandbox)
      const running = runInProcess(
        ['-p', 'sandbox', 'links', 'wait', link._id, '--until', 'paid', '--json'],
        {
          env: sandboxProfile(),
          started: () => {},
        },
      )
      // Once it has looked, its looks are on the sandbox's record of requests.
      await vi.waitFor(
        () =>
          expect(
            sandbox.sandbox
              .requests()
              .some((r) => r.method === 'GET' && r.path === `/payment-links/${link._id}`),
          ).toBe(true),
        { timeout: 10_000 },
      )
      expect((await webhooksOf(sandbox)).endpoints).toEqual([])
      await act(link._id, 'fail')
      await act(link._id, 'pay')
      const result = await running
      expect(result).toMatchObject({ code: 0, stderr: '' })
      expect(JSON.parse(result.stdout)).toMatchObject({ paid: true, outcome: 'paid' })
    })
  })

  describe('links wait on the sandbox that runs in the command', () => {
    test('an attempt made on the local store by `pay sandbox pay` reaches it too', async () => {
      const dir = tempDir('pay-wait-local-')
      // No sandbox at that port: the wait runs one in-process, on the store of dir.
      const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
      const id = (await createLocal(dir, runInProcess))._id
      const running = runInProcess(['-p', 'sandbox', 'links', 'wait', id, '--json'], { env })
      // Its endpoint is in the store, where `pay sandbox pay` on the local store finds it.
      await vi.waitFor(
        async () => {
          const listed = await runInProcess(['sandbox', 'webhooks', 'list', '--json'], { env })
          expect(JSON.parse(listed.stdout).endpoints).toHaveLength(1)
        },
        { timeout: 10_000 },
      )
      const failed = await runInProcess(['sandbox', 'pay', id, '--outcome', 'failed'], { env })
      expect(failed.code).toBe(0)
      const result = await running
      expect(result.code).toBe(1)
      expect(JSON.parse(result.stdout)).toMatchObject({ _id: id, paid: false, outcome: 'failed' })
    })
  })
})
