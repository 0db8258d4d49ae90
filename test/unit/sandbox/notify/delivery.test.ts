import { afterEach, describe, expect, it } from 'vitest'
import type { DeliveryLimits } from '../../../../src/sandbox/handlers/notify/notifier.js'
import { Agents, postNotification } from '../../../../src/sandbox/handlers/notify/post.js'
import {
  type RunningSandbox,
  type SandboxOptions,
  startSandbox,
} from '../../../../src/sandbox/http/server.js'
import { verifyWebhook } from '../../../../src/shared/webhook-signature.js'
import { formFields, get, post } from '../../../helpers/pages.js'
import {
  NOTHING_LISTENS,
  type Receiver,
  type ReceiverAnswer,
  startReceiver,
} from '../../../helpers/receiver.js'
import { type Client, clientFor, KEY_A, KEY_B, tempDir, VALID_LINK } from '../../../helpers/sandbox.js'

/**
 * The sandbox's notifications over real HTTP: which payment attempts notify, what a delivery
 * sends and how it is retried, what it refuses to do (follow a redirect, read an endless answer,
 * wait for ever). The sandboxes here retry after 100 ms and look at their outbox every 50 ms, so
 * that the tests take little time; the defaults (10 s, 1 s and 2 s) are the same code.
 */

const FAST: Partial<DeliveryLimits> = { backoffMs: [100, 100], pollMs: 50, timeoutMs: 2000 }

const opened: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close()
})

async function receiver(answer?: ReceiverAnswer): Promise<Receiver> {
  const started = await startReceiver(answer)
  opened.push(started)
  return started
}

async function sandboxOn(
  dir: string,
  endpoints: string[] = [],
  more: Partial<SandboxOptions> & { limits?: Partial<DeliveryLimits> } = {},
): Promise<{ sandbox: RunningSandbox; a: Client; b: Client }> {
  const { limits, ...rest } = more
  const sandbox = await startSandbox({
    dir,
    keys: [KEY_A, KEY_B],
    port: 0,
    webhooks: { endpoints, limits: { ...FAST, ...limits } },
    ...rest,
  })
  opened.push(sandbox)
  return { sandbox, a: clientFor(sandbox.baseUrl, KEY_A), b: clientFor(sandbox.baseUrl, KEY_B) }
}

const newLink = async (client: Client, fields: Record<string, unknown> = {}) =>
  (await client.call('POST', '/payment-links', { ...VALID_LINK, ...fields })).json.data

const act = (client: Client, id: string, verb: 'pay' | 'fail' | 'cancel') =>
  client.call('POST', `/_sandbox/payment-links/${id}/${verb}`)

/** The state of each delivery in the outbox (of the first business), oldest first. */
const states = (sandbox: RunningSandbox) => sandbox.webhooks.deliveries().map((delivery) => delivery.state)

describe('what notifies: every payment attempt', () => {
  it('paying a link, through the control route, the payment page or the sandbox’s caller: one notification each, status 1; paying it again: none', async () => {
    const hook = await receiver()
    const { sandbox, a } = await sandboxOn(tempDir('pay-notify-'), [hook.url])
    const [viaRoute, viaPage, viaCaller] = [await newLink(a), await newLink(a), await newLink(a)]
    expect((await act(a, viaRoute._id, 'pay')).status).toBe(200)
    const page = await get(sandbox.baseUrl, `/checkout/pay?id=${viaPage._id}`)
    expect(
      (await post(sandbox.baseUrl, `/checkout/pay?id=${viaPage._id}`, formFields(page.text))).status,
    ).toBe(200)
    expect(sandbox.settle(viaCaller._id, 'paid')?.outcome).toBe('paid')
    await expect.poll(() => hook.received.length).toBe(3)
    // Paid already: nothing happens, nothing is told. A notification is written in the transaction
    // of the attempt it tells of: the outbox holds none more once the answers are in, and the three
    // it holds are delivered, so that the receiver gets no other.
    await act(a, viaRoute._id, 'pay')
    await act(a, viaRoute._id, 'fail')
    await expect.poll(() => states(sandbox)).toEqual(['delivered', 'delivered', 'delivered'])
    const told = hook.notifications()
    expect(told.map((n) => [n.data.payment_link_id, n.data.payment_status]).sort()).toEqual(
      [
        [viaRoute._id, 1],
        [viaPage._id, 1],
        [viaCaller._id, 1],
      ].sort(),
    )
    expect(told.map((n) => n.data.payment_amount)).toEqual([2550, 2550, 2550])
  })

  it('a failed payment notifies with status 3 each time; cancelling notifies nothing', async () => {
    const hook = await receiver()
    const { sandbox, a } = await sandboxOn(tempDir('pay-notify-'), [hook.url])
    const link = await newLink(a, { reference: 'ORD-9' })
    await act(a, link._id, 'cancel')
    await act(a, link._id, 'fail')
    await act(a, link._id, 'fail')
    await expect.poll(() => hook.received.length).toBe(2)
    await act(a, link._id, 'cancel')
    // The outbox holds the two failures' notifications alone, both delivered: nothing else is told.
    await expect.poll(() => states(sandbox)).toEqual(['delivered', 'delivered'])
    expect(hook.notifications().map((n) => [n.data.payment_status, n.data.payment_message])).toEqual([
      [3, 'Payment failed'],
      [3, 'Payment failed'],
    ])
    const [first, second] = hook.notifications()
    expect(first.data.attempt_id).not.toBe(second.data.attempt_id)
    expect(first.data.payment_link_reference).toBe('ORD-9')
  })

  it('a subscription’s charge, paid, notifies like any link: its reference is the subscription', async () => {
    const hook = await receiver()
    const { sandbox, a } = await sandboxOn(tempDir('pay-notify-'), [hook.url])
    const packageId = sandbox.packages[KEY_A][2]._id
    const sub = (await a.call('POST', '/subscriptions', { package_id: packageId, email: 'a@b.co' })).json.data
    expect((await a.call('POST', '/_sandbox/clock', { advance: '40d' })).status).toBe(200)
    const charge = (await a.call('GET', `/subscriptions/${sub._id}`)).json.data.payment_links[0]
    await act(a, charge._id, 'pay')
    await expect.poll(() => hook.received.length).toBe(1)
    const { data } = hook.notifications()[0]
    expect([data.payment_link_id, data.payment_link_reference, data.payment_amount]).toEqual([
      charge._id,
      sub._id,
      1500,
    ])
  })

  it('a JSON POST, signed with the business’s key, that carries no API key anywhere', async () => {
    const hook = await receiver()
    const { sandbox, a } = await sandboxOn(tempDir('pay-notify-'), [hook.url])
    await act(a, (await newLink(a))._id, 'pay')
    await expect.poll(() => hook.received.length).toBe(1)
    const [request] = hook.received
    expect(request.method).toBe('POST')
    expect(request.path).toBe('/hook')
    expect(request.headers['content-type']).toBe('application/json')
    expect(request.headers.authorization).toBeUndefined()
    expect(JSON.stringify(request)).not.toContain(KEY_A)
    expect(JSON.stringify(request)).not.toContain(sandbox.webhooks.signatureKeys[0])
    expect(verifyWebhook(request.body, sandbox.webhooks.signatureKeys[0])).toBe(true)
    expect(verifyWebhook(request.body, sandbox.webhooks.signatureKeys[1])).toBe(false)
  })
})

describe('delivery', () => {
  it('no 2xx: three attempts in all, the same bytes each time, then failed and never sent again', async () => {
    const hook = await receiver(500)
    const { sandbox, a } = await sandboxOn(tempDir('pay-notify-'), [hook.url])
    const link = await newLink(a)
    await act(a, link._id, 'pay')
    await expect.poll(() => sandbox.webhooks.deliveries()[0]?.state).toBe('failed')
    // Failed is never due again. A later notification to the same receiver, attempted from the
    // same outbox until it fails too, comes after anything the first could still have sent.
    const later = await newLink(a)
    await act(a, later._id, 'pay')
    await expect.poll(() => states(sandbox)).toEqual(['failed', 'failed'])
    expect(hook.notifications().map((n) => n.data.payment_link_id)).toEqual([
      ...[link._id, link._id, link._id],
      ...[later._id, later._id, later._id],
    ])
    expect(new Set(hook.received.slice(0, 3).map((r) => r.body)).size).toBe(1)
    const [delivery] = sandbox.webhooks.deliveries()
    expect(delivery).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      event: 'payment.created',
      payment_link_id: link._id,
      url: hook.url,
      state: 'failed',
      attempts: [1, 2, 3].map(() => ({ time: expect.any(String), status: 500, error: null })),
    })
  })

  it('answered 2xx: delivered, and never sent again, even by the next sandbox on the directory', async () => {
    // Each notification's first attempt is answered 503, its retry 204.
    const hook = await receiver((_, i) => (i % 2 === 0 ? 503 : 204))
    const dir = tempDir('pay-notify-')
    const first = await sandboxOn(dir, [hook.url])
    const link = await newLink(first.a)
    await act(first.a, link._id, 'pay')
    await expect.poll(() => first.sandbox.webhooks.deliveries()[0]?.state).toBe('delivered')
    await first.sandbox.close()
    const again = await sandboxOn(dir, [hook.url])
    // A later notification, made by the next sandbox and retried at one of its looks at the
    // outbox, comes after anything of the first it could have sent at its start or at a look.
    const later = await newLink(again.a)
    await act(again.a, later._id, 'pay')
    await expect.poll(() => states(again.sandbox)).toEqual(['delivered', 'delivered'])
    expect(hook.notifications().map((n) => n.data.payment_link_id)).toEqual([
      link._id,
      link._id,
      later._id,
      later._id,
    ])
    expect(hook.received[1].body).toBe(hook.received[0].body)
    expect(again.sandbox.webhooks.deliveries()[0].attempts.map((attempt) => attempt.status)).toEqual([
      503, 204,
    ])
    // --webhook of the same URL again: still one endpoint.
    expect(again.sandbox.webhooks.endpoints.map((endpoint) => endpoint.url)).toEqual([hook.url])
  })

  it('a receiver that never answers costs one attempt’s timeout; the sandbox answers meanwhile', async () => {
    const hook = await receiver('hang')
    const { sandbox, a } = await sandboxOn(tempDir('pay-notify-'), [hook.url], { limits: { timeoutMs: 300 } })
    await act(a, (await newLink(a))._id, 'pay')
    await expect.poll(() => hook.received.length).toBe(1)
    expect((await a.call('GET', '/payment-links')).status).toBe(200)
    await expect.poll(() => sandbox.webhooks.deliveries()[0]?.state, { timeout: 5000 }).toBe('failed')
    expect(sandbox.webhooks.deliveries()[0].attempts.map((attempt) => attempt.error)).toEqual([
      'no answer within 0.3 s',
      'no answer within 0.3 s',
      'no answer within 0.3 s',
    ])
  })

  it('an answer of 50 MB is read no further than 64 KiB: the connection is cut, its status counts', async () => {
    let written = 0
    let cut!: () => void
    const closed = new Promise<void>((resolve) => {
      cut = resolve
    })
    const hook = await receiver(() => (response) => {
      response.writeHead(200, { 'Content-Length': 50 * 1024 * 1024 })
      const chunk = Buffer.alloc(64 * 1024, 'x')
      const pump = () => {
        while (written < 50 * 1024 * 1024) {
          written += chunk.length
          if (!response.write(chunk)) return void response.once('drain', pump)
        }
        response.end()
      }
      response.on('close', cut)
      pump()
    })
    const { sandbox, a } = await sandboxOn(tempDir('pay-notify-'), [hook.url])
    await act(a, (await newLink(a))._id, 'pay')
    await closed
    expect(written).toBeLessThan(50 * 1024 * 1024)
    await expect.poll(() => sandbox.webhooks.deliveries()[0]?.state).toBe('delivered')
  })

  it('a redirect is not followed: a 3xx is an answer that is not 2xx', async () => {
    const elsewhere = await receiver()
    const hook = await receiver(
      () => (response) => response.writeHead(307, { Location: elsewhere.url }).end(),
    )
    const { sandbox, a } = await sandboxOn(tempDir('pay-notify-'), [hook.url])
    await act(a, (await newLink(a))._id, 'pay')
    await expect.poll(() => sandbox.webhooks.deliveries()[0]?.state).toBe('failed')
    expect(sandbox.webhooks.deliveries()[0].attempts.map((attempt) => attempt.status)).toEqual([
      307, 307, 307,
    ])
    expect(elsewhere.received).toEqual([])
  })

  it('nothing listening: each attempt says what went wrong', async () => {
    const { sandbox, a } = await sandboxOn(tempDir('pay-notify-'), [NOTHING_LISTENS])
    await act(a, (await newLink(a))._id, 'pay')
    await expect.poll(() => sandbox.webhooks.deliveries()[0]?.state).toBe('failed')
    const [delivery] = sandbox.webhooks.deliveries()
    expect(delivery.attempts[0].error).toBe('connection refused (ECONNREFUSED)')
  })

  it('a sandbox listening beyond loopback says only "unreachable", "timed out" or the status: a URL maps no network', async () => {
    const hanging = await receiver('hang')
    const failing = await receiver(() => 503)
    const endpoints = [NOTHING_LISTENS, 'http://no-such-host.invalid/hook', hanging.url, failing.url]
    const { sandbox } = await sandboxOn(tempDir('pay-notify-'), endpoints, {
      host: '0.0.0.0',
      limits: { timeoutMs: 300 },
    })
    // Its own loopback name still answers it.
    const a = clientFor(sandbox.baseUrl.replace('0.0.0.0', '127.0.0.1'), KEY_A)
    await act(a, (await newLink(a))._id, 'pay')
    await expect
      .poll(() => states(sandbox), { timeout: 10_000 })
      .toEqual(['failed', 'failed', 'failed', 'failed'])
    const said = Object.fromEntries(
      sandbox.webhooks
        .deliveries()
        .map((delivery) => [
          delivery.url,
          delivery.attempts.map((attempt) => attempt.error ?? attempt.status),
        ]),
    )
    expect(said).toEqual({
      [NOTHING_LISTENS]: ['unreachable', 'unreachable', 'unreachable'],
      'http://no-such-host.invalid/hook': ['unreachable', 'unreachable', 'unreachable'],
      [hanging.url]: ['timed out', 'timed out', 'timed out'],
      [failing.url]: [503, 503, 503],
    })
  })

  it('an endpoint with a user name or password kept from before the rule is never sent to: no Basic auth goes out', async () => {
    const agents = new Agents()
    const hook = await receiver()
    const url = hook.url.replace('http://', 'http://shop:secret@')
    const posted = await postNotification(
      url,
      '{}',
      { timeoutMs: 1000, maxAnswerBytes: 1024 },
      agents,
      new AbortController().signal,
    )
    agents.destroy()
    expect(posted).toEqual({
      status: null,
      error: 'not sent: its URL holds a user name or password',
      ms: 0,
      aborted: false,
    })
    expect(hook.received).toEqual([])
  })
})
