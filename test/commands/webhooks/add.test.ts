import { describe, expect, it } from 'vitest'
import { startAccountSandbox } from '../../helpers/account.js'
import { runInProcess } from '../../helpers/in-process.js'
import { OBJECT_ID } from '../../helpers/sandbox.js'

/** `pay webhooks add URL`: a payment.created event to URL, enabled: the sandbox's endpoint, notified. */
describe.concurrent('pay webhooks add', () => {
  it('adds an enabled payment.created event, which the sandbox lists as its endpoint', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    expect((await s.signIn()).code).toBe(0)
    const added = await runInProcess(
      ['webhooks', 'add', 'http://127.0.0.1:8090/?callback=gravityformsswipego', '--json'],
      { env: s.env },
    )
    expect(added.code).toBe(0)
    const event = JSON.parse(added.stdout)
    expect(event).toMatchObject({
      _id: expect.stringMatching(OBJECT_ID),
      name: 'payment.created',
      url: 'http://127.0.0.1:8090/?callback=gravityformsswipego',
      enabled: true,
    })
    const endpoints = (await s.t.a.call('GET', '/_sandbox/webhooks')).json.data.endpoints
    expect(endpoints).toEqual([
      { _id: event._id, url: event.url, events: ['payment.created'], enabled: true },
    ])
    // The same URL again is the same event.
    expect(
      JSON.parse((await runInProcess(['webhooks', 'add', event.url, '--json'], { env: s.env })).stdout)._id,
    ).toBe(event._id)
  })

  it('a URL the service does not take: exit 3 under --url, nothing sent', async ({ onTestFinished }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    expect((await s.signIn()).code).toBe(0)
    for (const url of ['ftp://shop.example/hook', 'not a url']) {
      expect(await runInProcess(['webhooks', 'add', url], { env: s.env })).toMatchObject({
        code: 3,
        stdout: '',
        stderr: 'Error: The given data was invalid.\n  --url  The url format is invalid.\n',
      })
    }
    expect((await s.t.a.call('GET', '/_sandbox/webhooks')).json.data.endpoints).toEqual([])
  })
})
