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

  it('a table on a terminal; at 80 columns the name (always payment.created) and the time go before the URL is cut', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    expect((await s.signIn()).code).toBe(0)
    const url = 'https://shop.example/wp-json/swipe/v1/webhook?source=a'
    const added = (await s.t.a.call('POST', '/_sandbox/webhooks', { url })).json.data
    const wide = await runInProcess(['webhooks', 'list'], {
      env: s.env,
      terminal: true,
      width: 160,
      colour: false,
    })
    const { updated_at } = JSON.parse(
      (await runInProcess(['webhooks', 'list', '--json'], { env: s.env })).stdout,
    )[0]
    expect(wide).toMatchObject({ code: 0, stderr: '' })
    expect(wide.stdout).toBe(
      `ID                        NAME             ENABLED  URL${' '.repeat(url.length - 1)}UPDATED\n` +
        `${added._id}  payment.created  true     ${url}  ${updated_at}\n`,
    )
    const narrow = await runInProcess(['webhooks', 'list'], {
      env: s.env,
      terminal: true,
      width: 80,
      colour: false,
    })
    // 80 columns less the ID's and ENABLED's: 45 for the URL (before, 28 beside NAME).
    expect(narrow.stdout).toBe(
      `ID                        ENABLED  URL\n${added._id}  true     ${url.slice(0, 44)}…\n`,
    )
  })
})
