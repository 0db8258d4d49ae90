import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'
import { type Receiver, startReceiver } from '../../../helpers/receiver.js'
import {
  ISO_TIMESTAMP,
  KEY_B,
  OBJECT_ID,
  startTestSandbox,
  type TestSandbox,
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
    const dead = await startReceiver()
    await dead.close()
    const endpoint = await addEndpoint(sandbox, dead.url)
    const link = await payNewLink(sandbox)
    await vi.waitFor(async () => expect((await deliveriesOf(sandbox)).at(-1).attempts).toHaveLength(1))
    await sandbox.request('DELETE', `/_sandbox/webhooks/${endpoint._id}`)
    const shown = await runInProcess(['sandbox', 'webhooks', 'deliveries', '--limit', '1'], {
      env: sandbox.env,
      terminal: true,
      width: 80,
      colour: false,
    })
    const [delivery] = (await deliveriesOf(sandbox)).filter((d: { url: string }) => d.url === dead.url)
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
