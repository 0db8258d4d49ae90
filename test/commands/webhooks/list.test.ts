import { describe, expect, it } from 'vitest'
import { startAccountSandbox } from '../../helpers/account.js'
import { runInProcess } from '../../helpers/in-process.js'
import { ISO_TIMESTAMP, OBJECT_ID } from '../../helpers/sandbox.js'

/**
 * `pay webhooks list`: the webhook events of the profile's integration, which are the sandbox's
 * webhook endpoints of that business (`pay sandbox webhooks`): one set, seen from both sides.
 */
describe.concurrent('pay webhooks list', () => {
  it('lists the events, those the sandbox’s own controls added too; none is []', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    expect((await s.signIn()).code).toBe(0)
    expect(await runInProcess(['webhooks', 'list', '--json'], { env: s.env })).toMatchObject({
      code: 0,
      stdout: '[]\n',
    })
    const added = (await s.t.a.call('POST', '/_sandbox/webhooks', { url: 'https://shop.example/hook' })).json
      .data
    const listed = await runInProcess(['webhooks', 'ls', '--json'], { env: s.env })
    expect(JSON.parse(listed.stdout)).toEqual([
      {
        _id: added._id,
        name: 'payment.created',
        url: 'https://shop.example/hook',
        enabled: true,
        created_at: expect.stringMatching(ISO_TIMESTAMP),
        updated_at: expect.stringMatching(ISO_TIMESTAMP),
      },
    ])
    expect(added._id).toMatch(OBJECT_ID)
    const event = JSON.parse(listed.stdout)[0]
    expect((await runInProcess(['webhooks', 'list'], { env: s.env })).stdout).toBe(
      `${added._id}\tpayment.created\ttrue\thttps://shop.example/hook\t${event.updated_at}\n`,
    )
    // Another business's endpoints are not the profile's integration's.
    await s.t.b.call('POST', '/_sandbox/webhooks', { url: 'https://other.example/hook' })
    expect(
      JSON.parse((await runInProcess(['webhooks', 'list', '--json'], { env: s.env })).stdout),
    ).toHaveLength(1)
  })
})
