import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'
import { createLocal } from '../../../helpers/local-store.js'
import { type Receiver, startReceiver } from '../../../helpers/receiver.js'
import { startTestSandbox, type TestSandbox } from '../../../helpers/sandbox.js'
import { addEndpoint, deliveriesOf, payNewLink } from '../../../helpers/webhooks.js'

/** `pay sandbox webhooks resend ID`: a notification sent again, the same bytes. */

let sandbox: TestSandbox
let hook: Receiver
beforeAll(async () => {
  sandbox = await startTestSandbox()
  hook = await startReceiver()
})
afterAll(async () => {
  await sandbox.close()
  await hook.close()
})

describe('sandbox webhooks resend', () => {
  test('through the running sandbox: due again at once, the same body; an unknown id is exit 5', async () => {
    await addEndpoint(sandbox, hook.url)
    await payNewLink(sandbox)
    await vi.waitFor(async () => expect((await deliveriesOf(sandbox))[0]?.state).toBe('delivered'))
    const [delivery] = await deliveriesOf(sandbox)
    const resent = await runInProcess(['sandbox', 'webhooks', 'resend', delivery._id], { env: sandbox.env })
    expect(resent.code).toBe(0)
    expect(resent.stderr).toBe(
      `Sending delivery ${delivery._id} again through the sandbox at ${sandbox.baseUrl}.\n`,
    )
    // Piped, as `deliveries` prints it: one TSV line, the attempts counted, the last one's status.
    expect(resent.stdout).toBe(
      `${[delivery._id, 'payment.created', delivery.payment_link_id, hook.url, 'pending', 1, 200, ''].join('\t')}\n`,
    )
    await vi.waitFor(() => expect(hook.received).toHaveLength(2))
    expect(hook.received[1].body).toBe(hook.received[0].body)
    const unknown = await runInProcess(['sandbox', 'webhooks', 'resend', '0'.repeat(24)], {
      env: sandbox.env,
    })
    expect(unknown).toEqual({
      code: 5,
      signal: null,
      stdout: '',
      stderr: `Error: No delivery ${'0'.repeat(24)} in the sandbox.\n`,
    })
  })

  test('on a terminal the delivery is shown as `deliveries` shows it: its attempts in words, no JSON', async () => {
    const failing = await startReceiver(500)
    try {
      await addEndpoint(sandbox, failing.url)
      const link = await payNewLink(sandbox)
      const mine = async () =>
        (await deliveriesOf(sandbox)).find((d: { url: string }) => d.url === failing.url)
      await vi.waitFor(async () => expect((await mine())?.state).toBe('failed'), { timeout: 10_000 })
      const delivery = await mine()
      const resent = await runInProcess(['sandbox', 'webhooks', 'resend', delivery._id], {
        env: sandbox.env,
        terminal: true,
        colour: false,
        width: 80,
      })
      expect(resent.code).toBe(0)
      // The time of its last attempt, its id, its state (pending again) and each attempt's status;
      // what it tells and where; the last attempt's error when it had one.
      expect(resent.stdout).toMatch(
        new RegExp(
          `^\\d\\d:\\d\\d:\\d\\d ${delivery._id} pending 500, 500, 500\n` +
            `  payment\\.created link ${link._id} ${failing.url.replaceAll('.', '\\.')}\n$`,
        ),
      )
      expect(resent.stdout).not.toContain('{')
      // Narrower than what it tells and its URL together: the URL on a line of its own, whole.
      const narrow = await runInProcess(['sandbox', 'webhooks', 'resend', delivery._id], {
        env: sandbox.env,
        terminal: true,
        colour: false,
        width: 60,
      })
      expect(narrow.stdout.split('\n').slice(1)).toEqual([
        `  payment.created link ${link._id}`,
        `  ${failing.url}`,
        '',
      ])
    } finally {
      await failing.close()
    }
  })

  test('with no sandbox running: its first attempt is made before the command ends, and said', async () => {
    const dir = tempDir('pay-local-store-')
    const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
    const local = await startReceiver(500)
    try {
      await runInProcess(['sandbox', 'webhooks', 'add', local.url], { env })
      const link = await createLocal(dir, runInProcess)
      expect((await runInProcess(['sandbox', 'pay', link._id], { env })).code).toBe(0)
      expect(local.received).toHaveLength(1)
      const [delivery] = JSON.parse(
        (await runInProcess(['sandbox', 'webhooks', 'deliveries', '--json'], { env })).stdout,
      )
      local.answer = 200
      const resent = await runInProcess(['sandbox', 'webhooks', 'resend', delivery._id, '--json'], { env })
      expect(resent.code).toBe(0)
      expect(local.received).toHaveLength(2)
      expect(local.received[1].body).toBe(local.received[0].body)
      expect(resent.stderr).toBe(`Notified ${local.url}: answered 200.\n`)
      expect(JSON.parse(resent.stdout)).toMatchObject({
        _id: delivery._id,
        state: 'delivered',
        attempts: [{ status: 500 }, { status: 200 }],
      })
    } finally {
      await local.close()
    }
  })
})
