import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'
import { NOTHING_LISTENS, type Receiver, startReceiver } from '../../../helpers/receiver.js'
import {
  ISO_TIMESTAMP,
  KEY_B,
  OBJECT_ID,
  startTestSandbox,
  type TestSandbox,
  VALID_LINK,
} from '../../../helpers/sandbox.js'
import { addEndpoint, deliveriesOf, payNewLink } from '../../../helpers/webhooks.js'

/** `pay sandbox webhooks deliveries [--follow]`: the notifications sent, each with its attempts. */

let sandbox: TestSandbox
let hook: Receiver
beforeAll(async () => {
  // Its first business is its directory's own: the one the local store acts on when no sandbox runs.
  sandbox = await startTestSandbox({ ownKey: true })
  hook = await startReceiver(201)
})
afterAll(async () => {
  await sandbox.close()
  await hook.close()
})

const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

describe('sandbox webhooks deliveries', () => {
  test('none yet: said on stderr; then each delivery, newest last, piped as TSV, --json as the sandbox answers', async () => {
    expect(await pay('sandbox', 'webhooks', 'deliveries')).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: `No deliveries yet in the sandbox at ${sandbox.baseUrl}.\n`,
    })
    await addEndpoint(sandbox, hook.url)
    const first = await payNewLink(sandbox)
    const second = await payNewLink(sandbox)
    await vi.waitFor(async () =>
      expect((await deliveriesOf(sandbox)).map((d: { state: string }) => d.state)).toEqual([
        'delivered',
        'delivered',
      ]),
    )
    const json = await pay('sandbox', 'webhooks', 'deliveries', '--json')
    const deliveries = JSON.parse(json.stdout)
    expect(deliveries).toEqual(
      [first, second].map((link) => ({
        _id: expect.stringMatching(OBJECT_ID),
        event: 'payment.created',
        payment_link_id: link._id,
        url: hook.url,
        state: 'delivered',
        attempts: [{ time: expect.stringMatching(ISO_TIMESTAMP), status: 201, error: null }],
      })),
    )
    const piped = await pay('sandbox', 'webhooks', 'deliveries', '--limit', '1')
    expect(piped).toEqual({
      code: 0,
      signal: null,
      stdout: `${deliveries[1]._id}\tpayment.created\t${second._id}\t${hook.url}\tdelivered\t1\t201\t\n`,
      stderr: '',
    })
  })

  test('on a terminal: two short lines each, the last attempt’s error under them', async () => {
    const endpoint = await addEndpoint(sandbox, NOTHING_LISTENS)
    const link = await payNewLink(sandbox)
    await vi.waitFor(async () => expect((await deliveriesOf(sandbox)).at(-1).attempts).toHaveLength(1))
    await sandbox.request('DELETE', `/_sandbox/webhooks/${endpoint._id}`)
    const shown = await runInProcess(['sandbox', 'webhooks', 'deliveries', '--limit', '1'], {
      env: sandbox.env,
      terminal: true,
      width: 80,
      colour: false,
    })
    const [delivery] = (await deliveriesOf(sandbox)).filter((d: { url: string }) => d.url === NOTHING_LISTENS)
    expect(shown.stdout).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d ${delivery._id} failed error, error\\n` +
          `  payment\\.created link ${link._id} http://127\\.0\\.0\\.1:\\d+/hook\\n` +
          '  not sent: its endpoint was removed\\n$',
      ),
    )
    expect(shown.stdout.split('\n').every((line) => line.length <= 80)).toBe(true)
  })

  test('another business sees none of them; with no sandbox running, the local store’s', async () => {
    const other = await runInProcess(['sandbox', 'webhooks', 'deliveries', '--json'], {
      env: { ...sandbox.env, PAY_API_KEY: KEY_B },
    })
    expect([other.code, other.stdout]).toEqual([0, '[]\n'])
    const local = await runInProcess(['sandbox', 'webhooks', 'deliveries', '--json'], {
      env: { PAY_SANDBOX_DIR: sandbox.dir, PAY_SANDBOX_PORT: '1' },
    })
    expect(JSON.parse(local.stdout)).toEqual(await deliveriesOf(sandbox))
  })

  test('--follow prints each change as it comes, one JSON line each, until Ctrl-C (exit 130); it needs a running sandbox', async () => {
    const before = (await deliveriesOf(sandbox)).length
    let paid: { _id: string } | undefined
    const followed = await runInProcess(
      ['sandbox', 'webhooks', 'deliveries', '--follow', '--json', '--limit', '1'],
      {
        env: sandbox.env,
        started: (io) => {
          void (async () => {
            // The newest delivery first, then the changes.
            await vi.waitFor(() => expect(io.stdout.text).not.toBe(''), { timeout: 10_000 })
            paid = await payNewLink(sandbox)
            await vi.waitFor(() => expect(io.stdout.text).toContain(`"payment_link_id":"${paid?._id}"`), {
              timeout: 10_000,
            })
            await vi.waitFor(() => expect(io.stdout.text).toContain('"state":"delivered"'), {
              timeout: 10_000,
            })
            io.interrupt()
          })()
        },
      },
    )
    expect(followed.code).toBe(130)
    expect(JSON.parse(followed.stderr)).toEqual({
      error: { status: null, kind: 'cancelled', exit_code: 130, message: 'Stopped following.' },
    })
    const lines = followed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines[0]).toEqual((await deliveriesOf(sandbox))[before - 1])
    expect(lines.slice(1).every((line) => line.payment_link_id === paid?._id)).toBe(true)
    expect(lines.at(-1).state).toBe('delivered')

    const none = await runInProcess(['sandbox', 'webhooks', 'deliveries', '--follow'], {
      env: { PAY_SANDBOX_DIR: tempDir('pay-local-store-'), PAY_SANDBOX_PORT: '1' },
    })
    expect([none.code, none.stderr.split('\n')[0]]).toEqual([
      6,
      'Error: No sandbox of yours is running at http://127.0.0.1:1.',
    ])
  })
})

describe('sandbox webhooks deliveries --link, --state', () => {
  // A sandbox of their own: the deliveries listed are these tests' only.
  let own: TestSandbox
  let live: Receiver
  beforeAll(async () => {
    // Its directory's own key first: the local store is read with it when no sandbox runs.
    own = await startTestSandbox({ ownKey: true })
    live = await startReceiver(200)
  })
  afterAll(async () => {
    await own.close()
    await live.close()
  })

  const deliveries = async (...args: string[]) => {
    const result = await runInProcess(['sandbox', 'webhooks', 'deliveries', ...args, '--json'], {
      env: own.env,
    })
    expect([result.code, result.stderr]).toEqual([0, ''])
    return JSON.parse(result.stdout) as { _id: string; payment_link_id: string; state: string; url: string }[]
  }

  test('of one link, in one state, or both; through the sandbox and from the local store alike', async () => {
    await addEndpoint(own, live.url)
    const gone = await addEndpoint(own, NOTHING_LISTENS)
    const first = await payNewLink(own)
    const second = await payNewLink(own)
    // Each delivery attempted once: the live endpoint's delivered, the dead one's pending its next attempt.
    await vi.waitFor(async () =>
      expect(
        (await deliveriesOf(own)).filter((d: { attempts: unknown[] }) => d.attempts.length > 0),
      ).toHaveLength(4),
    )
    const all = await deliveriesOf(own)
    expect(all).toHaveLength(4)
    const of = (link: { _id: string }, state?: string) =>
      all.filter(
        (d: { payment_link_id: string; state: string }) =>
          d.payment_link_id === link._id && (state === undefined || d.state === state),
      )
    expect(await deliveries('--link', first._id)).toEqual(of(first))
    expect(of(first)).toHaveLength(2)
    expect(await deliveries('--state', 'pending')).toEqual(
      all.filter((d: { url: string }) => d.url === NOTHING_LISTENS),
    )
    expect(await deliveries('--link', second._id, '--state', 'delivered')).toEqual(of(second, 'delivered'))
    expect(of(second, 'delivered')).toHaveLength(1)
    expect(await deliveries('--state', 'failed')).toEqual([])
    // The endpoint removed, its pending deliveries fail.
    await own.request('DELETE', `/_sandbox/webhooks/${gone._id}`)
    const failed = await deliveries('--state', 'failed')
    expect(failed.map((d) => [d.payment_link_id, d.url])).toEqual([
      [first._id, NOTHING_LISTENS],
      [second._id, NOTHING_LISTENS],
    ])
    expect(await deliveries('--state', 'failed', '--limit', '1')).toEqual(failed.slice(1))
    const local = await runInProcess(
      ['sandbox', 'webhooks', 'deliveries', '--link', first._id, '--state', 'failed', '--json'],
      { env: { PAY_SANDBOX_DIR: own.dir, PAY_SANDBOX_PORT: '1' } },
    )
    expect(JSON.parse(local.stdout)).toEqual(failed.slice(0, 1))
  })

  test('none kept: said with the filter; a state that is none of the three: exit 2', async () => {
    const none = await runInProcess(
      ['sandbox', 'webhooks', 'deliveries', '--link', '65a1f0c2e4b0a1b2c3d4e5f6', '--state', 'delivered'],
      { env: own.env },
    )
    expect(none).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: `No delivered deliveries of link 65a1f0c2e4b0a1b2c3d4e5f6 yet in the sandbox at ${own.baseUrl}.\n`,
    })
    // A link named as every id argument takes it: its payment URL too; what is no id, exit 2.
    const url = await runInProcess(
      [
        'sandbox',
        'webhooks',
        'deliveries',
        '--link',
        `${own.baseUrl}/checkout/pay?id=65A1F0C2E4B0A1B2C3D4E5F6`,
      ],
      { env: own.env },
    )
    expect([url.code, url.stderr]).toEqual([0, none.stderr.replace('delivered ', '')])
    const typo = await runInProcess(['sandbox', 'webhooks', 'deliveries', '--link', 'a b'], { env: own.env })
    expect(typo.code).toBe(2)
    expect(typo.stderr.split('\n')[0]).toBe('Error: --link: "a b" is not an id: it contains a space.')
    const wrong = await runInProcess(['sandbox', 'webhooks', 'deliveries', '--state', 'sent'], {
      env: own.env,
    })
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('Expected --state=sent to be one of: delivered, failed, pending')
    // The sandbox refuses one too, naming the field, for an app that asks it directly.
    const asked = await own.request('GET', '/_sandbox/webhooks/deliveries?state=sent')
    expect([asked.status, asked.body.errors]).toEqual([
      422,
      { state: ['The state must be one of pending, delivered, failed.'] },
    ])
  })

  test('--follow with both: only that link’s deliveries, each as it comes into that state', async () => {
    await addEndpoint(own, live.url)
    const other = await payNewLink(own)
    const link = (await own.request('POST', '/payment-links', VALID_LINK)).body.data as { _id: string }
    const followed = await runInProcess(
      ['sandbox', 'webhooks', 'deliveries', '--follow', '--json', '--link', link._id, '--state', 'delivered'],
      {
        env: own.env,
        started: (io) => {
          void (async () => {
            // Paid before the first look or after it, its delivery is printed once, once delivered.
            await own.request('POST', `/_sandbox/payment-links/${link._id}/pay`)
            await vi.waitFor(() => expect(io.stdout.text).toContain(link._id), { timeout: 10_000 })
            io.interrupt()
          })()
        },
      },
    )
    expect(followed.code).toBe(130)
    const lines = followed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines).toEqual(
      (await deliveriesOf(own)).filter((d: { payment_link_id: string }) => d.payment_link_id === link._id),
    )
    expect(lines.map((d) => [d.payment_link_id, d.state, d.url])).toEqual([[link._id, 'delivered', live.url]])
    expect(JSON.stringify(lines)).not.toContain(other._id)
  })
})
