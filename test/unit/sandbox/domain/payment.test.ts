import Database from 'libsql'
import { afterEach, describe, expect, it } from 'vitest'
import { newLink } from '../../../../src/sandbox/domain/build.js'
import { businessOf } from '../../../../src/sandbox/domain/business.js'
import { type PaymentAttempt, Payments } from '../../../../src/sandbox/domain/payment.js'
import { notifyPayments } from '../../../../src/sandbox/handlers/notify/attempts.js'
import { addEndpoint } from '../../../../src/sandbox/handlers/notify/endpoints.js'
import type { Claimed, Dispatch } from '../../../../src/sandbox/handlers/notify/outbox.js'
import { listDeliveries } from '../../../../src/sandbox/handlers/notify/outbox.js'
import { SandboxStore } from '../../../../src/sandbox/store/store.js'
import { KEY_A, KEY_B, tempDir, VALID_LINK } from '../../../helpers/sandbox.js'

/**
 * The payment transition (src/sandbox/domain/payment.ts): the customer's outcome on a link, in one
 * transaction with what subscribes to its attempts; and notify's subscription
 * (src/sandbox/handlers/notify/attempts.ts): the deliveries written in the payment's transaction,
 * handed on only once it is committed, never for an attempt undone.
 */

const business = businessOf(KEY_A)
const AT = Date.parse('2026-03-01T10:00:00.000Z')
const open: SandboxStore[] = []
afterEach(() => {
  for (const store of open.splice(0)) store.close()
})

/** What a subscriber heard, and whether the link was paid as its transaction and as the last commit saw it. */
interface Heard {
  attempt: PaymentAttempt
  inside: boolean | undefined
  committed: boolean
  business: unknown
}

function setUp(redirect_url?: string) {
  const store = new SandboxStore(tempDir('pay-payment-'))
  open.push(store)
  const link = newLink(
    business.businessId,
    { ...VALID_LINK, amount: 25.5, ...(redirect_url ? { redirect_url } : {}) },
    'http://127.0.0.1:4010',
    AT - 60_000,
  )
  store.insert('payment_links', business, link)
  const heard: Heard[] = []
  const payments = new Payments(store, () => AT).onAttempt((attempt, caller) => {
    // What the transaction sees, and what another connection sees: the last commit.
    const inside = store.findLink(link._id)?.paid
    heard.push({ attempt, inside, committed: committedPaid(store, link._id), business: caller })
  })
  return { store, link, payments, heard }
}

/** Whether another connection sees the link paid: what was committed. */
function committedPaid(store: SandboxStore, id: string): boolean {
  const db = new Database(store.file)
  try {
    const row = db.prepare('SELECT record FROM payment_links WHERE id = ?').get(id) as { record: string }
    return JSON.parse(row.record).paid
  } finally {
    db.close()
  }
}

describe('the payment transition', () => {
  it('pays once: the subscriber hears the attempt inside its transaction, with the link paid; paying again is no attempt', () => {
    const { store, link, payments, heard } = setUp('https://shop.example/back?order=7')
    const first = payments.settle(link._id, 'paid', business)
    const data = heard[0]?.attempt.data
    expect(first).toEqual({
      outcome: 'paid',
      link: { ...link, paid: true, updated_at: new Date(AT).toISOString() },
      redirect_to: `https://shop.example/back?order=7&id=${link._id}&status=paid&${new URLSearchParams({
        attempt_id: data.attempt_id,
        payment_id: data.payment_id,
        payment_time: '01-03-2026 10:00:00 am',
        payment_amount: '2550',
        payment_status: '1',
        payment_link_id: link._id,
        payment_link_reference: '',
        payment_link_reference_2: '',
        payment_message: 'Payment successful',
        payment_currency: link.currency,
      })}`,
    })
    expect(heard).toEqual([
      {
        attempt: {
          link: first?.link,
          paid: true,
          at: AT,
          data: expect.objectContaining({ payment_status: 1 }),
        },
        inside: true,
        committed: false,
        business,
      },
    ])
    expect(payments.settle(link._id, 'paid')?.outcome).toBe('paid')
    expect(payments.settle(link._id, 'failed')?.outcome).toBe('paid')
    expect(payments.settle(link._id, 'cancelled')?.outcome).toBe('paid')
    expect(heard).toHaveLength(1)
    expect(committedPaid(store, link._id)).toBe(true)
  })

  it('a failed payment is an attempt that leaves the link unpaid; cancelling is none', () => {
    const { store, link, payments, heard } = setUp()
    expect(payments.settle(link._id, 'cancelled')).toEqual({ outcome: 'cancelled', link, redirect_to: null })
    expect(heard).toEqual([])
    expect(payments.settle(link._id, 'failed')).toEqual({ outcome: 'failed', link, redirect_to: null })
    expect(heard).toEqual([
      {
        attempt: { link, paid: false, at: AT, data: expect.objectContaining({ payment_status: 3 }) },
        inside: false,
        committed: false,
        business: undefined,
      },
    ])
    expect(committedPaid(store, link._id)).toBe(false)
  })

  it('a pending payment is an attempt (status 2) that leaves the link unpaid and payable; a later payment is told 1', () => {
    const { store, link, payments, heard } = setUp()
    expect(payments.settle(link._id, 'pending')).toEqual({ outcome: 'pending', link, redirect_to: null })
    expect(payments.settle(link._id, 'pending')?.outcome).toBe('pending')
    expect(committedPaid(store, link._id)).toBe(false)
    expect(payments.settle(link._id, 'paid')?.outcome).toBe('paid')
    expect(
      heard.map((h) => [h.attempt.paid, h.attempt.data.payment_status, h.attempt.data.payment_message]),
    ).toEqual([
      [false, 2, 'Payment pending'],
      [false, 2, 'Payment pending'],
      [true, 1, 'Payment successful'],
    ])
    // Each attempt is its own: ids never repeat.
    expect(new Set(heard.map((h) => h.attempt.data.attempt_id)).size).toBe(3)
    expect(committedPaid(store, link._id)).toBe(true)
  })

  it('the return never takes a parameter the redirect_url has: GiveWP’s own payment_id stays', () => {
    const own = 'https://give.example/?swipego_gwp_gateway=abc&payment_id=501'
    const { link, payments, heard } = setUp(own)
    const back = new URL(payments.settle(link._id, 'paid')?.redirect_to as string)
    expect(back.searchParams.getAll('payment_id')).toEqual(['501'])
    expect(back.searchParams.get('swipego_gwp_gateway')).toBe('abc')
    expect(back.searchParams.get('attempt_id')).toBe(heard[0].attempt.data.attempt_id)
    expect(back.searchParams.get('payment_link_id')).toBe(link._id)
    expect(back.searchParams.get('payment_status')).toBe('1')
  })

  it('finds no link of another business, nor one that does not exist: nothing heard', () => {
    const { link, payments, heard } = setUp()
    expect(payments.settle(link._id, 'paid', businessOf(KEY_B))).toBeUndefined()
    expect(payments.settle('ffffffffffffffffffffffff', 'paid')).toBeUndefined()
    expect(heard).toEqual([])
  })

  it('a subscriber that fails undoes the payment with it', () => {
    const { store, link, payments } = setUp()
    payments.onAttempt(() => {
      throw new Error('the outbox refused')
    })
    expect(() => payments.settle(link._id, 'paid')).toThrow('the outbox refused')
    expect(committedPaid(store, link._id)).toBe(false)
  })
})

describe("notify's subscription", () => {
  function notifying() {
    const { store, link } = setUp()
    addEndpoint(store, business.keyHash, {
      url: 'http://127.0.0.1:9/hook',
      events: ['payment.created'],
      enabled: true,
    })
    const taken: Claimed[][] = []
    const dispatch: Dispatch = {
      owner: 'test-owner',
      leaseMs: 60_000,
      take: (claimed) => taken.push(claimed),
    }
    const payments = notifyPayments(new Payments(store, () => AT), store, dispatch)
    const deliveries = () => listDeliveries(store, business.keyHash, 10)
    return { store, link, payments, taken, deliveries }
  }

  it('writes the delivery with the payment and hands it on once the request is committed', async () => {
    const { store, link, payments, taken, deliveries } = notifying()
    const answered = store.grouped(() => payments.settle(link._id, 'paid', business))
    expect(taken).toEqual([])
    await answered
    expect(taken).toHaveLength(1)
    expect(taken[0].map((claimed) => claimed.id)).toEqual(deliveries().map((delivery) => delivery._id))
    expect(deliveries().map((delivery) => [delivery.payment_link_id, delivery.state])).toEqual([
      [link._id, 'pending'],
    ])
  })

  it('an attempt undone with its request writes nothing and hands nothing on', async () => {
    const { store, link, payments, taken, deliveries } = notifying()
    const undone = store.grouped(() => {
      payments.settle(link._id, 'paid', business)
      throw new Error('the request failed after paying')
    })
    await expect(undone).rejects.toThrow('the request failed after paying')
    // Its group is committed: a request of the same turn is answered only then.
    await store.grouped(() => undefined)
    expect(taken).toEqual([])
    expect(deliveries()).toEqual([])
    expect(committedPaid(store, link._id)).toBe(false)
  })
})
