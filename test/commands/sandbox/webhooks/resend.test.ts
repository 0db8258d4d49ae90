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
    expect(resent.stdout).toContain(`_id\t${delivery._id}\nevent\tpayment.created\n`)
    expect(resent.stdout).toContain('\nstate\tpending\n')
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
