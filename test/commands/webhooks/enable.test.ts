import { describe, expect, it } from 'vitest'
import { startAccountSandbox } from '../../helpers/account.js'
import { runInProcess } from '../../helpers/in-process.js'

/** `pay webhooks enable ID`: the event's enabled set; its URL is notified again. */
describe.concurrent('pay webhooks enable', () => {
  it('sets enabled on the event, as the sandbox’s endpoint shows; an unknown id is exit 5', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    expect((await s.signIn()).code).toBe(0)
    const added = JSON.parse(
      (await runInProcess(['webhooks', 'add', 'https://shop.example/hook', '--json'], { env: s.env })).stdout,
    )
    // Disabled first, so that enabling changes it.
    expect((await runInProcess(['webhooks', 'disable', added._id], { env: s.env })).code).toBe(0)
    const changed = await runInProcess(['webhooks', 'enable', added._id, '--json'], { env: s.env })
    expect(changed.code).toBe(0)
    expect(JSON.parse(changed.stdout)).toMatchObject({ _id: added._id, enabled: true })
    const endpoints = (await s.t.a.call('GET', '/_sandbox/webhooks')).json.data.endpoints
    expect(endpoints.map((e: { enabled: boolean }) => e.enabled)).toEqual([true])
    expect(
      await runInProcess(['webhooks', 'enable', '0123456789abcdef01234567'], { env: s.env }),
    ).toMatchObject({
      code: 5,
      stdout: '',
      stderr:
        'Error: The integration has no webhook event 0123456789abcdef01234567.\nSee `pay webhooks list`.\n',
    })
  })
})
