import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { verifyWebhook } from '../../../src/shared/webhook-signature.js'
import { runInProcess } from '../../helpers/in-process.js'
import type { TestIO } from '../../helpers/io.js'
import { type Receiver, startReceiver } from '../../helpers/receiver.js'
import { queryStore, startTestSandbox, type TestSandbox, VALID_LINK } from '../../helpers/sandbox.js'
import { deliveriesOf, payNewLink, webhooksOf } from '../../helpers/webhooks.js'

/**
 * `pay sandbox listen [--forward-to URL]`: an endpoint of its own for as long as it runs, each
 * notification shown with the answer of the app it was forwarded to. (Ctrl-C and SIGTERM to a
 * process, and the sandbox going away: test/e2e/sandbox/listen.test.ts.)
 */

let sandbox: TestSandbox
let app: Receiver
beforeAll(async () => {
  sandbox = await startTestSandbox()
  app = await startReceiver((_, i) => (i === 0 ? 500 : 200))
})
afterAll(async () => {
  await sandbox.close()
  await app.close()
})

/** Runs listen until `act` (given listen's endpoint URL, once registered) is done, then presses Ctrl-C. */
function listenWhile(args: string[], act: (url: string, io: TestIO) => Promise<void>) {
  return runInProcess(['sandbox', 'listen', ...args], {
    env: sandbox.env,
    started: (io) => {
      void (async () => {
        let url = ''
        await vi.waitFor(
          async () => {
            url = (await webhooksOf(sandbox)).endpoints.find((e: { url: string }) =>
              e.url.includes('/listen/'),
            )?.url
            expect(url).toBeDefined()
          },
          { timeout: 10_000 },
        )
        try {
          await act(url, io)
        } finally {
          io.interrupt()
        }
      })()
    },
  })
}

describe('sandbox listen', () => {
  test('--forward-to: each notification forwarded byte for byte, its answer the sandbox’s; one JSON line each; Ctrl-C removes its endpoint', async () => {
    let link: { _id: string } | undefined
    const run = await listenWhile(['--forward-to', app.url, '--json'], async () => {
      link = await payNewLink(sandbox, { reference: 'ORD-1' })
      await vi.waitFor(() => expect(app.received).toHaveLength(2), { timeout: 10_000 })
    })
    expect(run.code).toBe(0)
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines).toEqual([
      {
        event: 'payment.created',
        payment_link_id: link?._id,
        url: app.url,
        status: 500,
        ms: expect.any(Number),
      },
      {
        event: 'payment.created',
        payment_link_id: link?._id,
        url: app.url,
        status: 200,
        ms: expect.any(Number),
      },
    ])
    // The app got what the sandbox sent, twice: its first answer was a 500, which the sandbox retried.
    expect(app.received[1].body).toBe(app.received[0].body)
    expect(app.notifications()[0].data.payment_link_reference).toBe('ORD-1')
    const [delivery] = (await deliveriesOf(sandbox)).filter((d: { url: string }) =>
      d.url.includes('/listen/'),
    )
    expect(delivery.attempts.map((a: { status: number }) => a.status)).toEqual([500, 200])
    const key = (await webhooksOf(sandbox)).signature_key
    expect(run.stderr.replace(/\(endpoint [0-9a-f]{24}\)/, '(endpoint ID)')).toBe(
      [
        `Listening for the notifications of the sandbox at ${sandbox.baseUrl} (endpoint ID).`,
        `Forwarding each to ${app.url}.`,
        `Signature key: ${key}`,
        'Ctrl-C stops.',
        'Stopped listening after 2 notifications; its endpoint was removed.',
        '',
      ].join('\n'),
    )
    // Each forwarded as it came: the app can check it with the signature key.
    expect(verifyWebhook(app.received[0].body, key)).toBe(true)
    expect((await webhooksOf(sandbox)).endpoints).toEqual([])
  })

  test('without --forward-to: each notification shown whole; one that does not verify is refused (401), saying why', async () => {
    let link: { _id: string } | undefined
    const forged: number[] = []
    const run = await listenWhile(['--json'], async (url) => {
      link = await payNewLink(sandbox, { reference: '17' })
      await vi.waitFor(() => expect(sandbox.sandbox.webhooks.deliveries().at(-1)?.state).toBe('delivered'), {
        timeout: 10_000,
      })
      const [{ body }] = queryStore(
        sandbox.dir,
        'SELECT body FROM webhook_deliveries ORDER BY rowid DESC LIMIT 1',
      )
      const genuine = JSON.parse(String(body))
      const { data } = genuine
      const post = async (changed: Record<string, unknown>) =>
        forged.push((await fetch(url, { method: 'POST', body: JSON.stringify(changed) })).status)
      // No trigger_at; a new attempt_id (its last character moved into payment_id); "17" made "1",
      // its "7" in a key of its own: each keeps the hash, and each is refused.
      const { trigger_at: _, ...withoutTrigger } = genuine
      await post(withoutTrigger)
      await post({
        ...genuine,
        data: {
          ...data,
          attempt_id: data.attempt_id.slice(0, -1),
          payment_id: data.attempt_id.slice(-1) + data.payment_id,
        },
      })
      const { hash, ...values } = data
      await post({ ...genuine, data: { ...values, payment_link_reference: '1', x: '7', hash } })
    })
    expect(run.code).toBe(0)
    expect(forged).toEqual([401, 401, 401])
    const [line, ...more] = run.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text))
    expect(more).toEqual([])
    expect(line).toEqual({
      event: 'payment.created',
      payment_link_id: link?._id,
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/listen\/[0-9a-f]{24}$/),
      status: 200,
      ms: 0,
      body: {
        trigger_at: expect.any(String),
        event: 'payment.created',
        data: expect.objectContaining({ payment_link_id: link?._id }),
      },
    })
    const refused = 'Warning: A notification that does not verify with the signature key was refused (401): '
    expect(run.stderr).toContain(
      [
        `${refused}the notification has no trigger_at.`,
        `${refused}data.attempt_id is not 24 hex digits.`,
        `${refused}data has a key the service never sends: "x".`,
        '',
      ].join('\n'),
    )
  })

  test('on a terminal: one line a notification, what it tells and the app’s answer, within 80 columns', async () => {
    let link: { _id: string } | undefined
    const run = await runInProcess(['sandbox', 'listen', '--forward-to', app.url], {
      env: sandbox.env,
      terminal: true,
      width: 80,
      colour: false,
      started: (io) => {
        void (async () => {
          await vi.waitFor(() => expect(io.stderr.text).toContain('Ctrl-C stops.'), { timeout: 10_000 })
          await sandbox.request('POST', '/payment-links', VALID_LINK).then(async ({ body }) => {
            link = body.data
            await sandbox.request('POST', `/_sandbox/payment-links/${body.data._id}/fail`)
          })
          await vi.waitFor(() => expect(io.stdout.text).toContain('\n'), { timeout: 10_000 })
          io.interrupt()
        })()
      },
    })
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d payment\\.created ${link?._id} failed → 200 \\d+(\\.\\d)? ms\\n$`),
    )
    expect(run.stdout.length).toBeLessThanOrEqual(81)
  })

  test('--forward-to what is not http(s): exit 2; with a user name or password: exit 3; no sandbox running: exit 6, nothing registered', async () => {
    const ftp = await runInProcess(['sandbox', 'listen', '--forward-to', 'ftp://x'], { env: sandbox.env })
    expect(ftp).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'Error: --forward-to must be an http:// or https:// URL, not "ftp://x".\n',
    })
    const credentials = await runInProcess(
      ['sandbox', 'listen', '--forward-to', 'http://app:s3cret@127.0.0.1:3000/webhooks/pay'],
      { env: sandbox.env },
    )
    expect(credentials).toEqual({
      code: 3,
      signal: null,
      stdout: '',
      stderr:
        'Error: The given data was invalid.\n' +
        '  --forward-to  The URL may not hold a user name or password: a notification carries no Authorization.\n',
    })
    const none = await runInProcess(['sandbox', 'listen'], { env: { PAY_SANDBOX_PORT: '1' } })
    expect([none.code, none.stderr.split('\n')[0]]).toEqual([
      6,
      'Error: No sandbox of yours is running at http://127.0.0.1:1.',
    ])
  })
})
