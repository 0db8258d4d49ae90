import { afterEach, describe, expect, it, vi } from 'vitest'
import { businessOf } from '../../../../src/sandbox/domain/business.js'
import type { PaymentLinkRecord } from '../../../../src/sandbox/domain/records.js'
import { notifyAttempt } from '../../../../src/sandbox/handlers/notify/attempts.js'
import { addEndpoint } from '../../../../src/sandbox/handlers/notify/endpoints.js'
import { Notifier } from '../../../../src/sandbox/handlers/notify/notifier.js'
import { listDeliveries } from '../../../../src/sandbox/handlers/notify/outbox.js'
import { SandboxStore } from '../../../../src/sandbox/store/store.js'
import { type Receiver, startReceiver } from '../../../helpers/receiver.js'
import { KEY_A, tempDir } from '../../../helpers/sandbox.js'

/**
 * The notifier (src/sandbox/handlers/notify/notifier.ts): what a payment makes is attempted once the
 * request is answered; a sandbox answering a burst of requests lets its notifications wait in the
 * outbox until the burst is over; a sandbox for one command attempts what it made before it closes.
 */

const business = businessOf(KEY_A)
const opened: { close(): unknown }[] = []
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close()
})

async function setUp(mode: 'outbox' | 'own') {
  const receiver: Receiver = await startReceiver()
  opened.push(receiver)
  const store = new SandboxStore(tempDir('pay-notifier-'))
  opened.push(store)
  const notifier = new Notifier(store, { mode, limits: { pollMs: 50 } })
  opened.push(notifier)
  addEndpoint(store, business.keyHash, { url: receiver.url, events: ['payment.created'], enabled: true })
  const link: PaymentLinkRecord = {
    _id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
    email: 'a@b.co',
    currency: 'EUR',
    amount: 5,
    title: 'T',
    status: 'Active',
    payment_url: 'http://127.0.0.1/checkout/pay?id=aaaaaaaaaaaaaaaaaaaaaaaa',
    business_id: business.businessId,
    paid: true,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  }
  store.insert('payment_links', business, link)
  /** A payment attempt's notification, handed to the notifier as a request's would be. */
  const notify = () => {
    const claimed = store.write(() =>
      notifyAttempt(store, { link, paid: true, at: Date.now() }, business.keyHash, notifier),
    )
    if (claimed.length > 0) notifier.take(claimed)
    return claimed
  }
  const states = () => listDeliveries(store, business.keyHash, 10).map((d) => d.state)
  return { receiver, store, notifier, notify, states, link }
}

/**
 * Resolves once `check` holds, looking every few milliseconds on a real timer (vi.waitFor would
 * move the faked clock as it waits); the test's timeout is the hang detector.
 */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe('the notifier', () => {
  it('attempts what a payment made on the next turn, once the request is answered: leased to it as it is written', async () => {
    const { receiver, notifier, notify, states } = await setUp('outbox')
    notifier.start()
    expect(notify()).toHaveLength(1)
    expect(receiver.received).toEqual([])
    await vi.waitFor(() => expect(states()).toEqual(['delivered']))
    expect(receiver.received).toHaveLength(1)
  })

  it('a sandbox busy answering a burst of requests leaves its notifications due in the outbox, one attempted at each look, the rest once the burst is over', async () => {
    // The notifier's clock and its looks are the test's (Date and setInterval faked; its attempts'
    // sockets and timeouts are real): a look happens when the test moves the clock past one.
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] })
    try {
      const { receiver, notifier, notify, states } = await setUp('outbox')
      notifier.start()
      // 30 requests in this 100 ms: busy.
      for (let i = 0; i < 30; i++) notifier.noteRequest()
      // Written due, leased to no one: none is attempted now.
      for (let i = 0; i < 5; i++) expect(notify()).toEqual([])
      expect(states()).toEqual(Array(5).fill('pending'))
      // A look 50 ms later, still within the burst: one attempt, then none till the next look.
      const delivered = () => states().filter((state) => state === 'delivered').length
      vi.advanceTimersByTime(50)
      await until(() => delivered() === 1)
      vi.advanceTimersByTime(50)
      await until(() => delivered() === 2)
      expect(states().filter((state) => state === 'pending')).toHaveLength(3)
      // The burst over (no request for 200 ms): the next look attempts the rest.
      vi.advanceTimersByTime(200)
      await until(() => delivered() === 5)
      expect(receiver.received).toHaveLength(5)
    } finally {
      vi.useRealTimers()
    }
  })

  it('a sandbox for one command takes no look at the outbox, and makes the attempts of what it made before it closes', async () => {
    const { receiver, store, notifier, notify, states, link } = await setUp('own')
    // Left due in the outbox by a payment no notifier took: not this sandbox's to attempt.
    store.write(() => notifyAttempt(store, { link, paid: true, at: Date.now() }, business.keyHash))
    notifier.start()
    for (let i = 0; i < 20; i++) notifier.noteRequest()
    expect(notify()).toHaveLength(1)
    await notifier.close()
    expect(receiver.received).toHaveLength(1)
    expect(states().sort()).toEqual(['delivered', 'pending'])
  })
})
