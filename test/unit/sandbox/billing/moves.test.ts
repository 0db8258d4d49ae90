import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  applyClockMove,
  ClockRefused,
  moveClock,
  withCharges,
} from '../../../../src/sandbox/handlers/billing/billing.js'
import { readClock } from '../../../../src/sandbox/store/clock.js'
import { BILLING } from '../../../../src/sandbox/store/schedule.js'
import { SandboxStore } from '../../../../src/sandbox/store/store.js'
import { BUSINESS_A, chargeDates, subscribe } from '../../../helpers/billing.js'
import { tempDir } from '../../../helpers/sandbox.js'

/**
 * Moves of the sandbox clock on a store: what is refused (and leaves the clock as it was), what
 * comes due next once a move has billed, and what a subscription without charges shows. Real time
 * is set back to 2014 (Date only), as in calendar.test.ts.
 */

const DAY = 86_400_000
/** The last instant JavaScript dates can hold: 275760-09-13. */
const LAST_DATE = 8.64e15
const PAST_275760 = 'That moves the clock past the year 275760.'

let store: SandboxStore
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(Date.UTC(2014, 0, 1))
  store = new SandboxStore(tempDir('pay-moves-'))
})
afterEach(() => {
  store.close()
  vi.useRealTimers()
})

const to = (day: string) => ({ to: { at: Date.parse(`${day}T00:00:00Z`), precision: 'day' as const } })

/** What a move throws, for its field and message. */
function refusal(move: () => unknown): ClockRefused {
  try {
    move()
  } catch (error) {
    expect(error).toBeInstanceOf(ClockRefused)
    return error as ClockRefused
  }
  throw new Error('expected the move to be refused')
}

describe('a move the clock refuses, leaving it as it was', () => {
  it('past the last day a date can hold (less a day), whether by advance or to', () => {
    const before = readClock(store)
    const cases = [
      [{ advance: { months: 0, ms: LAST_DATE } }, 'advance'],
      [{ advance: { months: 12 * 300_000, ms: 0 } }, 'advance'],
      [{ to: { at: LAST_DATE - DAY + 1, precision: 'millisecond' as const } }, 'to'],
    ] as const
    for (const [move, field] of cases) {
      const refused = refusal(() => moveClock(store, move))
      expect([refused.name, refused.field, refused.message], JSON.stringify(move)).toEqual([
        'ClockRefused',
        field,
        PAST_275760,
      ])
      expect(readClock(store)).toEqual(before)
    }
    expect(moveClock(store, { to: { at: LAST_DATE - DAY, precision: 'millisecond' } })).toEqual({
      now: '+275760-09-12T00:00:00.000Z',
      charges_created: 0,
    })
  })

  it('more charges than a move may make, by advance: refused under advance, nothing made', () => {
    for (let i = 0; i < 3; i += 1) {
      subscribe(store, { frequency: 'daily', date_charge_start: '2014-01-02' }, '2014-01-01T00:00:00.000Z')
    }
    const refused = refusal(() => moveClock(store, { advance: { months: 0, ms: 10 * DAY } }, 29))
    expect([refused.field, refused.message]).toEqual([
      'advance',
      'That would make more than 29 charges at once: move the clock in smaller steps.',
    ])
    expect(applyClockMove(store, { advance: '10d' })).toEqual({
      ok: true,
      value: { now: '2014-01-11T00:00:00.000Z', charges_created: 30 },
    })
  })

  it('an error of the database (a full disk) is thrown, not answered as a refusal', () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
    vi.spyOn(store, 'statement').mockImplementation(() => {
      throw full
    })
    expect(() => applyClockMove(store, { advance: '1d' })).toThrow(full)
  })
})

describe('after a move has billed', () => {
  it('nothing is due until the next charge date: the next request costs one look in an index', () => {
    const sub = subscribe(
      store,
      { frequency: 'monthly', date_charge_start: '2014-01-31' },
      '2014-01-05T00:00:00.000Z',
    )
    moveClock(store, to('2014-03-15'))
    expect(chargeDates(store, sub._id)).toEqual(['2014-01-31', '2014-02-28'])
    expect(store.statement(BILLING.due, 'get', '2014-03-30')).toBeUndefined()
    expect(store.statement(BILLING.due, 'get', '2014-03-31')).toMatchObject({ due: 1 })
  })

  it('a subscription with no charge yet shows none', () => {
    const later = subscribe(
      store,
      { frequency: 'yearly', date_charge_start: '2015-06-01' },
      '2014-01-01T00:00:00.000Z',
    )
    const billed = subscribe(
      store,
      { frequency: 'daily', date_charge_start: '2014-01-02' },
      '2014-01-01T00:00:00.000Z',
    )
    moveClock(store, to('2014-01-02'))
    const [none, one] = withCharges(store, BUSINESS_A, [later, billed])
    expect(none.payment_links).toEqual([])
    expect(one.payment_links.map((link) => link.created_at)).toEqual(['2014-01-02T00:00:00.000Z'])
  })
})
