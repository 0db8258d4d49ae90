import { afterEach, describe, expect, it } from 'vitest'
import { parseFaultRule } from '../../../../src/sandbox/handlers/double/faults.js'
import { type RequestLogEntry, startSandbox } from '../../../../src/sandbox/http/server.js'
import { type Receiver, startReceiver } from '../../../helpers/receiver.js'
import {
  type Client,
  clientFor,
  KEY_A,
  KEY_B,
  OBJECT_ID,
  queryStore,
  tempDir,
  VALID_LINK,
} from '../../../helpers/sandbox.js'

/**
 * `/_sandbox/webhooks` (the caller's signature key, endpoints, deliveries, resend), each
 * business's own, and the WEBHOOK fault rules.
 */

const FAST = { backoffMs: [100, 100], pollMs: 50, timeoutMs: 2000 }
const opened: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close()
})

async function hook(answer = 200): Promise<Receiver> {
  const started = await startReceiver(answer)
  opened.push(started)
  return started
}

async function sandboxOn(
  dir = tempDir('pay-webhooks-'),
  options: { faults?: string[]; log?: RequestLogEntry[]; backoffMs?: number[] } = {},
) {
  const sandbox = await startSandbox({
    dir,
    keys: [KEY_A, KEY_B],
    port: 0,
    faults: { rules: options.faults, seed: 1 },
    webhooks: { limits: { ...FAST, backoffMs: options.backoffMs ?? FAST.backoffMs } },
    onRequest: options.log && ((entry) => options.log?.push(entry)),
  })
  opened.push(sandbox)
  return { sandbox, a: clientFor(sandbox.baseUrl, KEY_A), b: clientFor(sandbox.baseUrl, KEY_B), dir }
}

const paidLink = async (client: Client) => {
  const link = (await client.call('POST', '/payment-links', VALID_LINK)).json.data
  expect((await client.call('POST', `/_sandbox/payment-links/${link._id}/pay`)).status).toBe(200)
  return link
}

const deliveries = async (client: Client) =>
  (await client.call('GET', '/_sandbox/webhooks/deliveries')).json.data

describe('/_sandbox/webhooks', () => {
  it('add answers the endpoint, list {signature_key, endpoints}, remove the endpoint; a URL added twice is one', async () => {
    const { a } = await sandboxOn()
    const added = await a.call('POST', '/_sandbox/webhooks', { url: 'http://127.0.0.1:9/hook' })
    expect(added.status).toBe(200)
    const endpoint = {
      _id: expect.stringMatching(OBJECT_ID),
      url: 'http://127.0.0.1:9/hook',
      events: ['payment.created'],
      enabled: true,
    }
    expect(added.json.data).toEqual(endpoint)
    expect(
      (await a.call('POST', '/_sandbox/webhooks', { url: 'http://127.0.0.1:9/hook' })).json.data,
    ).toEqual(added.json.data)
    const listed = (await a.call('GET', '/_sandbox/webhooks')).json.data
    expect(listed).toEqual({
      signature_key: expect.stringMatching(/^sig_sandbox_[0-9a-f]{48}$/),
      endpoints: [endpoint],
    })
    const removed = await a.call('DELETE', `/_sandbox/webhooks/${added.json.data._id}`)
    expect([removed.status, removed.json.data]).toEqual([200, added.json.data])
    expect((await a.call('DELETE', `/_sandbox/webhooks/${added.json.data._id}`)).json).toEqual({
      message: 'Webhook endpoint not found.',
    })
    expect((await a.call('GET', '/_sandbox/webhooks')).json.data.endpoints).toEqual([])
  })

  it('refuses what is not an http(s) URL, one with a user name or password, and every other failing field, at once (422)', async () => {
    const { a } = await sandboxOn()
    for (const url of [
      'ftp://x.test/hook',
      'javascript:alert(1)',
      'file:///etc/passwd',
      '/hook',
      'http://',
      42,
    ]) {
      const refused = await a.call('POST', '/_sandbox/webhooks', { url })
      expect([refused.status, refused.json.errors], String(url)).toEqual([
        422,
        { url: ['The url must be an http:// or https:// URL of at most 2048 characters.'] },
      ])
    }
    // A user name or password would go out as Basic auth, and show wherever the endpoint is listed.
    for (const url of [
      'http://shop:secret@127.0.0.1:3000/hook',
      'https://shop@hooks.example/',
      'http://:pw@x.test/',
    ]) {
      const refused = await a.call('POST', '/_sandbox/webhooks', { url })
      expect([refused.status, refused.json.errors], url).toEqual([
        422,
        { url: ['The url may not hold a user name or password: a notification carries no Authorization.'] },
      ])
      expect(refused.text).not.toContain('secret')
    }
    expect((await a.call('GET', '/_sandbox/webhooks')).json.data.endpoints).toEqual([])
    const all = await a.call('POST', '/_sandbox/webhooks', {
      events: ['payment.deleted'],
      enabled: 'yes',
      lease_seconds: 0,
    })
    expect(all.json).toEqual({
      message: 'The given data was invalid.',
      errors: {
        url: ['The url field is required.'],
        events: ['The events must be a list of: payment.created.'],
        enabled: ['The enabled field must be true or false.'],
        lease_seconds: ['The lease seconds must be an integer from 1 to 3600.'],
      },
    })
    expect((await a.call('GET', '/_sandbox/webhooks/deliveries?limit=0')).status).toBe(422)
  })

  it('needs a key, and acts on the caller’s business only: its key, its endpoints, its deliveries', async () => {
    const { a, b, sandbox } = await sandboxOn()
    const mine = await hook()
    const theirs = await hook()
    expect((await clientFor(sandbox.baseUrl, null).call('GET', '/_sandbox/webhooks')).status).toBe(401)
    const endpoint = (await a.call('POST', '/_sandbox/webhooks', { url: mine.url })).json.data
    await b.call('POST', '/_sandbox/webhooks', { url: theirs.url })
    await paidLink(a)
    await expect.poll(() => mine.received.length).toBe(1)
    const [delivery] = await deliveries(a)
    const listB = (await b.call('GET', '/_sandbox/webhooks')).json.data
    const listA = (await a.call('GET', '/_sandbox/webhooks')).json.data
    expect(listB.signature_key).not.toBe(listA.signature_key)
    expect(listB.endpoints.map((e: { url: string }) => e.url)).toEqual([theirs.url])
    expect(await deliveries(b)).toEqual([])
    expect((await b.call('DELETE', `/_sandbox/webhooks/${endpoint._id}`)).status).toBe(404)
    expect((await b.call('POST', `/_sandbox/webhooks/deliveries/${delivery._id}/resend`)).status).toBe(404)
    // B's outbox holds no delivery (each is written with the payment that makes it): nothing can go
    // to B's endpoint, now or later.
    expect(await deliveries(b)).toEqual([])
    expect(theirs.received).toEqual([])
  })

  it('resend: the same body again, three more attempts, the first at once', async () => {
    const { a } = await sandboxOn()
    const receiver = await hook()
    await a.call('POST', '/_sandbox/webhooks', { url: receiver.url })
    await paidLink(a)
    await expect.poll(async () => (await deliveries(a))[0]?.state).toBe('delivered')
    const [delivery] = await deliveries(a)
    const resent = await a.call('POST', `/_sandbox/webhooks/deliveries/${delivery._id}/resend`)
    expect([resent.status, resent.json.data.state]).toEqual([200, 'pending'])
    await expect.poll(() => receiver.received.length).toBe(2)
    expect(receiver.received[1].body).toBe(receiver.received[0].body)
    await expect.poll(async () => (await deliveries(a))[0].attempts.length).toBe(2)
  })

  it('removing an endpoint fails its pending deliveries, saying so', async () => {
    // A retry that long is still pending when the endpoint is removed, however loaded the machine.
    const { a } = await sandboxOn(undefined, { backoffMs: [60_000, 60_000] })
    const receiver = await hook(500)
    const endpoint = (await a.call('POST', '/_sandbox/webhooks', { url: receiver.url })).json.data
    await paidLink(a)
    await expect.poll(() => receiver.received.length).toBe(1)
    await a.call('DELETE', `/_sandbox/webhooks/${endpoint._id}`)
    await expect.poll(async () => (await deliveries(a))[0]?.state).toBe('failed')
    const attempts = (await deliveries(a))[0].attempts
    expect(attempts.at(-1)).toEqual({
      time: expect.any(String),
      status: null,
      error: 'not sent: its endpoint was removed',
    })
    expect(receiver.received.length).toBe(1)
  })

  it('an endpoint with a lease is gone once it runs out: listed no more, sent nothing', async () => {
    const { a } = await sandboxOn()
    const receiver = await hook()
    await a.call('POST', '/_sandbox/webhooks', { url: receiver.url, lease_seconds: 1 })
    expect((await a.call('GET', '/_sandbox/webhooks')).json.data.endpoints).toHaveLength(1)
    await expect
      .poll(async () => (await a.call('GET', '/_sandbox/webhooks')).json.data.endpoints, { timeout: 10_000 })
      .toEqual([])
    // The payment writes no delivery (it would be in its transaction): nothing can be sent.
    await paidLink(a)
    expect(await deliveries(a)).toEqual([])
    expect(receiver.received).toEqual([])
  })
})

describe('signature keys', () => {
  it('one per business, 192 random bits, the same after a restart and for a second sandbox on the directory', async () => {
    const first = await sandboxOn()
    const keys = first.sandbox.webhooks.signatureKeys
    expect(keys).toHaveLength(2)
    expect(keys[0]).not.toBe(keys[1])
    expect(keys.every((key) => /^sig_sandbox_[0-9a-f]{48}$/.test(key))).toBe(true)
    const second = await sandboxOn(first.dir)
    expect(second.sandbox.webhooks.signatureKeys).toEqual(keys)
    await first.sandbox.close()
    await second.sandbox.close()
    expect((await sandboxOn(first.dir)).sandbox.webhooks.signatureKeys).toEqual(keys)
    expect((await sandboxOn()).sandbox.webhooks.signatureKeys[0]).not.toBe(keys[0])
  })

  it('never in the request log, the recorded requests, or an error answered, of the sandbox’s own doing', async () => {
    const log: RequestLogEntry[] = []
    const { a, sandbox } = await sandboxOn(undefined, { log })
    const key = sandbox.webhooks.signatureKeys[0]
    const receiver = await hook(500)
    expect((await a.call('GET', '/_sandbox/webhooks')).text).toContain(key)
    await a.call('POST', '/_sandbox/webhooks', { url: receiver.url })
    await paidLink(a)
    const delivery = (await deliveries(a))[0]
    const errors = [
      await a.call('DELETE', `/_sandbox/webhooks/${delivery._id}`),
      await a.call('POST', '/_sandbox/webhooks', { url: `ftp://${key}` }),
      await a.call('POST', `/_sandbox/webhooks/deliveries/${'0'.repeat(24)}/resend`),
    ]
    expect(errors.map((answer) => [answer.status, answer.text.includes(key)])).toEqual([
      [404, false],
      [422, false],
      [404, false],
    ])
    await expect.poll(async () => (await deliveries(a))[0].state).toBe('failed')
    await expect.poll(() => log.length).toBeGreaterThanOrEqual(9)
    expect(JSON.stringify(log)).not.toContain(key)
    expect(JSON.stringify(sandbox.requests())).not.toContain(key)
    expect(JSON.stringify(await deliveries(a))).not.toContain(key)
  })
})

describe('WEBHOOK fault rules', () => {
  it('duplicate sends the same bytes twice; drop sends nothing and says why; delay holds the first attempt', async () => {
    const rules = [
      'WEBHOOK payment.created duplicate x1',
      'WEBHOOK payment.created drop x1',
      'WEBHOOK payment.created delay 700ms x1',
    ]
    const { a, sandbox, dir } = await sandboxOn(undefined, { faults: rules })
    const receiver = await hook()
    await a.call('POST', '/_sandbox/webhooks', { url: receiver.url })
    const duplicated = await paidLink(a)
    await expect.poll(() => receiver.received.length).toBe(2)
    expect(receiver.received[1].body).toBe(receiver.received[0].body)
    expect(receiver.notifications()[0].data.payment_link_id).toBe(duplicated._id)

    const dropped = await paidLink(a)
    const delayed = await paidLink(a)
    const byLink = async (id: string) =>
      (await deliveries(a)).filter((d: { payment_link_id: string }) => d.payment_link_id === id)
    expect(await byLink(dropped._id)).toEqual([
      expect.objectContaining({
        state: 'failed',
        attempts: [
          {
            time: expect.any(String),
            status: null,
            error: 'not sent: a fault of the pay sandbox [WEBHOOK drop x1]',
          },
        ],
      }),
    ])
    // The delayed one, once delivered: its one attempt made no sooner than 700 ms after it was written.
    await expect.poll(async () => (await byLink(delayed._id))[0].state).toBe('delivered')
    const [{ attempts }] = await byLink(delayed._id)
    const [{ created_at }] = queryStore(
      dir,
      'SELECT created_at FROM webhook_deliveries WHERE link = ?',
      delayed._id,
    )
    expect(attempts).toHaveLength(1)
    expect(Date.parse(attempts[0].time) - Date.parse(String(created_at))).toBeGreaterThanOrEqual(700)
    // The dropped one was never sent: the receiver got the duplicate twice, then the delayed one.
    expect(receiver.notifications().map((n) => n.data.payment_link_id)).toEqual([
      duplicated._id,
      duplicated._id,
      delayed._id,
    ])

    // Each rule counted as the others are; nothing of the API was faulted by them.
    expect(
      sandbox.faults.list().rules.map((rule) => [rule.rule, rule.path, rule.matched, rule.faulted]),
    ).toEqual([
      ['WEBHOOK payment.created duplicate x1', 'payment.created', 1, 1],
      ['WEBHOOK payment.created drop x1', 'payment.created', 1, 1],
      ['WEBHOOK payment.created delay 700ms x1', 'payment.created', 1, 1],
    ])
    expect(sandbox.requests().map((r) => r.fault)).toEqual([null, null, null])
  })

  it('a request’s rule never reaches a notification, nor a notification’s rule a request', async () => {
    const { a } = await sandboxOn(undefined, {
      faults: ['* /payment.created 503', 'WEBHOOK payment.created drop'],
    })
    const receiver = await hook()
    await a.call('POST', '/_sandbox/webhooks', { url: receiver.url })
    expect((await a.call('POST', '/_sandbox/faults', { rules: ['* /payment.created 503'] })).status).toBe(200)
    await paidLink(a)
    await expect.poll(() => receiver.received.length).toBe(1)
    expect((await a.call('GET', '/payment.created')).status).toBe(503)
  })

  it('is read by the one grammar, wherever rules are taken; what cannot be one says why', () => {
    expect(parseFaultRule('webhook payment.created Delay 2s 50%').text).toBe(
      'WEBHOOK payment.created delay 2s 50%',
    )
    expect(parseFaultRule('WEBHOOK payment.created duplicate').text).toBe('WEBHOOK payment.created duplicate')
    const refused = [
      [
        'WEBHOOK payment.created drop after',
        '"after" is not understood: a notification has no answer to lose',
      ],
      ['WEBHOOK payment.deleted drop', '"payment.deleted" is not an event the sandbox notifies'],
      ['WEBHOOK payment.created 503', '"503" is not an effect of a notification'],
      ['WEBHOOK payment.created delay', '"delay " needs a duration from 1ms to 10 minutes'],
      ['WEBHOOK payment.created delay 1mo', '"delay 1mo" needs a duration'],
      ['WEBHOOK payment.created delay 11m', '"delay 11m" needs a duration'],
      ['WEBHOOK payment.created drop x0', 'x0: a count is from x1'],
      ['WEBHOOK', "A notification's fault rule is WEBHOOK EVENT EFFECT [xN|P%]"],
    ]
    for (const [rule, message] of refused) expect(() => parseFaultRule(rule), rule).toThrow(message)
  })
})
