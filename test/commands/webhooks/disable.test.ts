import { describe, expect, it } from 'vitest'
import { startAccountSandbox } from '../../helpers/account.js'
import { runInProcess } from '../../helpers/in-process.js'
import { VALID_LINK } from '../../helpers/sandbox.js'

/** `pay webhooks disable ID`: the event's enabled set; a disabled event is notified of nothing. */
describe.concurrent('pay webhooks disable', () => {
  it('sets enabled on the event, as the sandbox’s endpoint shows; an unknown id is exit 5', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    expect((await s.signIn()).code).toBe(0)
    const added = JSON.parse(
      (await runInProcess(['webhooks', 'add', 'https://shop.example/hook', '--json'], { env: s.env })).stdout,
    )
    const changed = await runInProcess(['webhooks', 'disable', added._id, '--json'], { env: s.env })
    expect(changed.code).toBe(0)
    expect(JSON.parse(changed.stdout)).toMatchObject({ _id: added._id, enabled: false })
    const endpoints = (await s.t.a.call('GET', '/_sandbox/webhooks')).json.data.endpoints
    expect(endpoints.map((e: { enabled: boolean }) => e.enabled)).toEqual([false])
    // A payment is notified to no disabled event: its deliveries are written with it, and there are none.
    const link = (await s.t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    expect((await s.t.a.call('POST', `/_sandbox/payment-links/${link._id}/pay`)).status).toBe(200)
    expect((await s.t.a.call('GET', '/_sandbox/webhooks/deliveries')).json.data).toEqual([])
    expect(
      await runInProcess(['webhooks', 'disable', '0123456789abcdef01234567'], { env: s.env }),
    ).toMatchObject({
      code: 5,
      stdout: '',
      stderr:
        'Error: The integration has no webhook event 0123456789abcdef01234567.\nSee `pay webhooks list`.\n',
    })
  })
})
