import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  ClockRefused,
  MAX_CHARGES_PER_MOVE,
  moveClock,
  withCharges,
} from '../../../../src/sandbox/handlers/billing/billing.js'
import { readClock } from '../../../../src/sandbox/store/clock.js'
import { SandboxStore } from '../../../../src/sandbox/store/store.js'
import {
  BUSINESS_A,
  chargeDates,
  FREQUENCIES,
  referenceDate,
  referenceDates,
  subscribe,
} from '../../../helpers/billing.js'
import { tempDir } from '../../../helpers/sandbox.js'

/**
 * The calendar of charges: every frequency, month ends, leap years, a subscription
 * created before and after its package's date_charge_start. Real time is set back to 2014 (Date
 * only), so that the sandbox clock, which only goes forward, can be moved to any later date.
 */

let store: SandboxStore
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(Date.UTC(2014, 0, 1))
  store = new SandboxStore(tempDir('pay-calendar-'))
})
afterEach(() => {
  store.close()
  vi.useRealTimers()
})

const to = (day: string) => ({ to: { at: Date.parse(`${day}T00:00:00Z`), precision: 'day' as const } })

describe('charge dates', () => {
  it('a month-end anchor keeps its day where the month has it: Jan 31 → Feb 29 (leap) → Mar 31 → Apr 30', () => {
    const sub = subscribe(
      store,
      { frequency: 'monthly', date_charge_start: '2024-01-31' },
      '2024-01-02T08:00:00.000Z',
    )
    expect(moveClock(store, to('2024-07-31')).charges_created).toBe(7)
    expect(chargeDates(store, sub._id)).toEqual([
      '2024-01-31',
      '2024-02-29',
      '2024-03-31',
      '2024-04-30',
      '2024-05-31',
      '2024-06-30',
      '2024-07-31',
    ])
  })

  it('Jan 31 → Feb 28 in a common year, and a short month never pulls the later charges in', () => {
    const sub = subscribe(
      store,
      { frequency: 'monthly', date_charge_start: '2023-01-31' },
      '2023-01-05T00:00:00.000Z',
    )
    moveClock(store, to('2023-05-01'))
    expect(chargeDates(store, sub._id)).toEqual(['2023-01-31', '2023-02-28', '2023-03-31', '2023-04-30'])
  })

  it('a Feb 29 anchor, yearly: Feb 28 in common years, Feb 29 again in leap years', () => {
    const sub = subscribe(
      store,
      { frequency: 'yearly', date_charge_start: '2016-02-29' },
      '2016-01-01T00:00:00.000Z',
    )
    moveClock(store, to('2025-03-01'))
    expect(chargeDates(store, sub._id)).toEqual([
      '2016-02-29',
      '2017-02-28',
      '2018-02-28',
      '2019-02-28',
      '2020-02-29',
      '2021-02-28',
      '2022-02-28',
      '2023-02-28',
      '2024-02-29',
      '2025-02-28',
    ])
  })

  it('every frequency: daily, weekly, monthly, quarterly (Nov 30 → Feb 28 → May 30), yearly', () => {
    const created = '2023-11-01T12:00:00.000Z'
    const subs = {
      daily: subscribe(store, { frequency: 'daily', date_charge_start: '2023-11-29' }, created),
      weekly: subscribe(store, { frequency: 'weekly', date_charge_start: '2023-11-30' }, created),
      monthly: subscribe(store, { frequency: 'monthly', date_charge_start: '2023-11-30' }, created),
      quarterly: subscribe(store, { frequency: 'quarterly', date_charge_start: '2023-11-30' }, created),
      yearly: subscribe(store, { frequency: 'yearly', date_charge_start: '2023-11-30' }, created),
    }
    moveClock(store, to('2024-12-03'))
    expect(chargeDates(store, subs.daily._id).slice(0, 4)).toEqual([
      '2023-11-29',
      '2023-11-30',
      '2023-12-01',
      '2023-12-02',
    ])
    expect(chargeDates(store, subs.daily._id)).toHaveLength(371)
    expect(chargeDates(store, subs.weekly._id).slice(0, 3)).toEqual([
      '2023-11-30',
      '2023-12-07',
      '2023-12-14',
    ])
    expect(chargeDates(store, subs.weekly._id).at(-1)).toBe('2024-11-28')
    expect(chargeDates(store, subs.monthly._id).slice(0, 4)).toEqual([
      '2023-11-30',
      '2023-12-30',
      '2024-01-30',
      '2024-02-29',
    ])
    expect(chargeDates(store, subs.quarterly._id)).toEqual([
      '2023-11-30',
      '2024-02-29',
      '2024-05-30',
      '2024-08-30',
      '2024-11-30',
    ])
    expect(chargeDates(store, subs.yearly._id)).toEqual(['2023-11-30', '2024-11-30'])
  })

  it('created after date_charge_start: from the first date after the day it was created, never that day', () => {
    const onADate = subscribe(
      store,
      { frequency: 'monthly', date_charge_start: '2020-03-15' },
      '2024-06-15T00:00:00.000Z',
    )
    const afterADate = subscribe(
      store,
      { frequency: 'monthly', date_charge_start: '2020-03-15' },
      '2024-06-15T23:59:59.999Z',
    )
    const betweenDates = subscribe(
      store,
      { frequency: 'weekly', date_charge_start: '2020-03-15' },
      '2024-06-17T10:00:00.000Z',
    )
    const quarterly = subscribe(
      store,
      { frequency: 'quarterly', date_charge_start: '2020-01-31' },
      '2024-05-01T10:00:00.000Z',
    )
    moveClock(store, to('2024-08-31'))
    expect(chargeDates(store, onADate._id)).toEqual(['2024-07-15', '2024-08-15'])
    expect(chargeDates(store, afterADate._id)).toEqual(['2024-07-15', '2024-08-15'])
    expect(chargeDates(store, betweenDates._id)[0]).toBe('2024-06-23')
    expect(chargeDates(store, quarterly._id)).toEqual(['2024-07-31'])
  })

  it('created before date_charge_start: the first charge is date_charge_start itself', () => {
    const sub = subscribe(
      store,
      { frequency: 'yearly', date_charge_start: '2025-03-01' },
      '2024-12-24T09:00:00.000Z',
    )
    moveClock(store, to('2025-02-28'))
    expect(chargeDates(store, sub._id)).toEqual([])
    moveClock(store, to('2026-03-01'))
    expect(chargeDates(store, sub._id)).toEqual(['2025-03-01', '2026-03-01'])
  })

  it('a charge is made on its day, at midnight UTC of sandbox time, not before', () => {
    const sub = subscribe(
      store,
      { frequency: 'daily', date_charge_start: '2024-01-01' },
      '2024-01-01T00:00:00.000Z',
    )
    moveClock(store, { to: { at: Date.parse('2024-01-02T23:59:59.999Z'), precision: 'millisecond' } })
    expect(chargeDates(store, sub._id)).toEqual(['2024-01-02'])
    moveClock(store, { advance: { months: 0, ms: 1 } })
    expect(chargeDates(store, sub._id)).toEqual(['2024-01-02', '2024-01-03'])
  })

  it('a frequency the sandbox does not know, a cancelled subscription or a date that is none bills nothing', () => {
    const subs = [
      subscribe(
        store,
        { frequency: 'fortnightly', date_charge_start: '2020-01-01' },
        '2020-01-01T00:00:00.000Z',
      ),
      subscribe(store, { frequency: 'monthly', date_charge_start: '2020-02-30' }, '2020-01-01T00:00:00.000Z'),
      subscribe(store, { frequency: 'monthly', date_charge_start: '1 Jan 2020' }, '2020-01-01T00:00:00.000Z'),
      subscribe(
        store,
        { frequency: 'monthly', date_charge_start: '2020-01-01' },
        '2020-01-01T00:00:00.000Z',
        {
          status: 'cancel',
        },
      ),
    ]
    const known = subscribe(
      store,
      { frequency: 'Monthly', date_charge_start: '2020-01-01' },
      '2020-01-01T00:00:00.000Z',
    )
    expect(moveClock(store, to('2020-06-01')).charges_created).toBe(5)
    for (const sub of subs) expect(chargeDates(store, sub._id)).toEqual([])
    expect(chargeDates(store, known._id)).toEqual([
      '2020-02-01',
      '2020-03-01',
      '2020-04-01',
      '2020-05-01',
      '2020-06-01',
    ])
  })

  it('matches plain date arithmetic for any anchor, frequency, creation day and clock moves', () => {
    const day = fc
      .record({
        year: fc.integer({ min: 2015, max: 2030 }),
        month: fc.integer({ min: 1, max: 12 }),
        day: fc.integer({ min: 1, max: 31 }),
      })
      .map(({ year, month, day: d }) => {
        const last = new Date(Date.UTC(year, month, 0)).getUTCDate()
        return `${year}-${String(month).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`
      })
    const plan = fc.record({
      frequency: fc.constantFrom(...FREQUENCIES),
      anchor: day,
      created: day,
      createdTime: fc.constantFrom('T00:00:00.000Z', 'T13:07:00.000Z', 'T23:59:59.999Z'),
    })
    fc.assert(
      fc.property(
        fc.array(plan, { minLength: 1, maxLength: 25 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 3 }),
        (plans, steps) => {
          store.close()
          vi.setSystemTime(Date.UTC(2014, 0, 1))
          store = new SandboxStore(tempDir('pay-calendar-'))
          const subs = plans.map((p) => ({
            p,
            record: subscribe(
              store,
              { frequency: p.frequency, date_charge_start: p.anchor },
              `${p.created}${p.createdTime}`,
            ),
          }))
          // From the latest creation on, in one to three moves of the clock.
          let clock = Math.max(...plans.map((p) => Date.parse(`${p.created}T00:00:00Z`)))
          for (const days of steps) {
            clock += days * 86_400_000
            moveClock(store, { to: { at: clock, precision: 'day' } })
          }
          const until = new Date(clock).toISOString().slice(0, 10)
          for (const { p, record } of subs) {
            expect(chargeDates(store, record._id), JSON.stringify(p)).toEqual(
              referenceDates(p.anchor, p.frequency, p.created, until),
            )
          }
        },
      ),
      { numRuns: 40 },
    )
  })

  it('the reference itself: month ends and leap days', () => {
    expect([0, 1, 2, 3].map((n) => referenceDate('2024-01-31', 'monthly', n))).toEqual([
      '2024-01-31',
      '2024-02-29',
      '2024-03-31',
      '2024-04-30',
    ])
    expect(referenceDate('2024-02-29', 'yearly', 1)).toBe('2025-02-28')
    expect(referenceDate('2024-02-29', 'yearly', 4)).toBe('2028-02-29')
  })
})

describe('a charge', () => {
  it('is a payment link of the package amount and currency, for the subscription, dated at its day', () => {
    const sub = subscribe(
      store,
      { frequency: 'monthly', date_charge_start: '2024-01-31', amount: 1250.5, name: 'Business' },
      '2024-01-02T08:00:00.000Z',
      { phone_no: '+44 20 7946 0000' },
    )
    const plain = subscribe(
      store,
      { frequency: 'monthly', date_charge_start: '2024-01-31', amount: 15 },
      '2024-01-02T08:00:00.000Z',
    )
    moveClock(store, to('2024-02-29'))
    const [billed, other] = withCharges(store, BUSINESS_A, [sub, plain])
    expect(billed.payment_links).toHaveLength(2)
    const [first, second] = billed.payment_links
    expect(first).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      email: sub.email,
      phone_no: '+44 20 7946 0000',
      currency: 'EUR',
      amount: 1250.5,
      title: 'Business: 2024-01-31 to 2024-02-28',
      reference: sub._id,
      status: 'Active',
      // Its page kept as a path: an answer names the address that serves it.
      payment_url: `/checkout/pay?id=${first._id}`,
      business_id: BUSINESS_A.businessId,
      paid: false,
      created_at: '2024-01-31T00:00:00.000Z',
      updated_at: '2024-01-31T00:00:00.000Z',
    })
    // Fields in the order the API gives a link's; no phone_no when the subscription has none.
    expect(Object.keys(first)).toEqual([
      '_id',
      'email',
      'phone_no',
      'currency',
      'amount',
      'title',
      'reference',
      'status',
      'payment_url',
      'business_id',
      'paid',
      'created_at',
      'updated_at',
    ])
    expect(second.title).toBe('Business: 2024-02-29 to 2024-03-30')
    expect(other.payment_links.map((link) => [link.amount, Object.hasOwn(link, 'phone_no')])).toEqual([
      [15, false],
      [15, false],
    ])
    // Each link is a link of the business like any other.
    expect(store.get('payment_links', BUSINESS_A, first._id)).toEqual(first)
    expect(store.list('payment_links', BUSINESS_A, 0, 10).total).toBe(4)
  })

  it('more than a move may make (1,000,000 by default) is refused, and nothing of the move is kept', () => {
    const subs = Array.from({ length: 10 }, () =>
      subscribe(store, { frequency: 'daily', date_charge_start: '2024-01-01' }, '2024-01-01T00:00:00.000Z'),
    )
    expect(MAX_CHARGES_PER_MOVE).toBe(1_000_000)
    const before = readClock(store)
    expect(() => moveClock(store, to('2024-01-31'), 299)).toThrow(
      new ClockRefused(
        'to',
        'That would make more than 299 charges at once: move the clock in smaller steps.',
      ),
    )
    expect(readClock(store)).toEqual(before)
    for (const sub of subs) expect(chargeDates(store, sub._id)).toEqual([])
    expect(store.list('payment_links', BUSINESS_A, 0, 1).total).toBe(0)
    expect(moveClock(store, to('2024-01-31'), 300).charges_created).toBe(300)
  })

  it('is made once per (subscription, date): the database refuses a second one', () => {
    const sub = subscribe(
      store,
      { frequency: 'daily', date_charge_start: '2024-01-01' },
      '2024-01-01T00:00:00.000Z',
    )
    expect(moveClock(store, to('2024-01-05')).charges_created).toBe(4)
    expect(moveClock(store, to('2024-01-05')).charges_created).toBe(0)
    const row = store.statement(
      'SELECT * FROM charges WHERE subscription = ? LIMIT 1',
      'get',
      sub._id,
    ) as Record<string, unknown>
    expect(() =>
      store.statement(
        'INSERT INTO charges (business, subscription, due, n, period_end, package, link) VALUES (?, ?, ?, ?, ?, ?, ?)',
        'run',
        row.business,
        row.subscription,
        row.due,
        row.n,
        row.period_end,
        row.package,
        'ffffffffffffffffffffffff',
      ),
    ).toThrow(/UNIQUE constraint failed: charges.business, charges.subscription, charges.due/)
    expect(chargeDates(store, sub._id)).toEqual(['2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05'])
  })
})
