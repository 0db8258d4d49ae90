import { describe, expect, it } from 'vitest'
import {
  checkAmounts,
  checkItems,
  decimalAbove,
  decimalSum,
  Session,
  withCurrency,
} from '../../../src/agent/caps.js'
import { PayError } from '../../../src/errors.js'

/**
 * pay mcp's caps (src/agent/caps.ts): amounts compared as decimal text, never as floats, written
 * with their currency in its decimals, the cap too; counted per call and per session.
 */

const refusal = (act: () => void): PayError => {
  try {
    act()
  } catch (error) {
    expect(error).toBeInstanceOf(PayError)
    expect((error as PayError).kind).toBe('usage')
    return error as PayError
  }
  throw new Error('it was not refused')
}

describe('caps', () => {
  it('adds and compares decimals exactly', () => {
    expect(decimalSum(['0.1', '0.2'])).toBe('0.3')
    expect(decimalSum([25.5, '10', '0.05'])).toBe('35.55')
    expect(decimalSum([])).toBe('0')
    expect(decimalAbove('100.01', '100')).toBe(true)
    expect(decimalAbove('100.00', '100')).toBe(false)
    expect(decimalAbove('99999999999999999999.01', '99999999999999999999')).toBe(true)
    expect(decimalAbove('abc', '1')).toBe(false)
  })

  it('writes an amount as everywhere else: its currency’s decimals, never rounded, with the code', () => {
    expect(withCurrency('1250.5', 'EUR')).toBe('1250.50 EUR')
    expect(withCurrency('100', 'EUR')).toBe('100.00 EUR')
    expect(withCurrency('100', 'JPY')).toBe('100 JPY')
    expect(withCurrency('1.5', 'BHD')).toBe('1.500 BHD')
    expect(withCurrency('0.001', 'EUR')).toBe('0.001 EUR')
    expect(withCurrency('1.5', 'BTC')).toBe('1.5 BTC')
    expect(withCurrency('7', '')).toBe('7')
  })

  it('refuses more items, or more than the amount in any one currency: each amount with its currency, the cap too', () => {
    expect(() => checkItems({ maxItems: 2 }, 2, 'delete 2 payment links')).not.toThrow()
    expect(() => checkItems({}, 5000, 'delete 5000 payment links')).not.toThrow()
    expect(refusal(() => checkItems({ maxItems: 2 }, 3, 'delete 3 payment links')).message).toBe(
      'Refusing to delete 3 payment links: this server allows at most 2 in one call (--max-items 2).',
    )
    const amounts = [
      { amount: 60, currency: 'EUR' },
      { amount: '50', currency: 'eur' },
      { amount: '90', currency: 'USD' },
    ]
    const refused = refusal(() => checkAmounts({ maxAmount: '100' }, amounts, 'to cancel 3 subscriptions'))
    expect(refused.message).toBe(
      'Refusing to cancel 3 subscriptions: 110.00 EUR in all is more than this server allows (--max-amount 100.00 EUR).',
    )
    expect(refused.hint).toBe(
      'pay mcp was started with --max-amount 100.00 EUR: ask the person running it, or do less in one call.',
    )
    expect(
      refusal(() =>
        checkAmounts({ maxAmount: '100' }, [{ amount: 1250.5, currency: 'EUR' }], 'a payment link'),
      ).message,
    ).toBe('Refusing a payment link: 1250.50 EUR is more than this server allows (--max-amount 100.00 EUR).')
    expect(
      refusal(() => checkAmounts({ maxAmount: '99.5' }, [{ amount: 100, currency: 'JPY' }], 'a payment link'))
        .message,
    ).toBe('Refusing a payment link: 100 JPY is more than this server allows (--max-amount 99.5 JPY).')
    expect(() => checkAmounts({ maxAmount: '110' }, amounts, 'x')).not.toThrow()
  })

  it('refuses an amount it cannot read while a cap is set: it cannot be checked', () => {
    for (const amount of ['-5', 'lots', '1e9', { value: 5 }])
      expect(
        refusal(() =>
          checkAmounts({ maxAmount: '100' }, [{ amount, currency: 'EUR' }], 'to delete 1 payment link'),
        ).message,
      ).toMatch(
        /^Refusing to delete 1 payment link: the amount .* is not a decimal, so --max-amount cannot be checked\.$/,
      )
    expect(() => checkAmounts({}, [{ amount: 'lots', currency: 'EUR' }], 'x')).not.toThrow()
  })

  it('counts a session: a job split across calls is capped as a whole, per currency', () => {
    const caps = { maxItems: 3, maxAmount: '100' }
    const session = new Session()
    session.take(caps, 1, [{ amount: 60, currency: 'EUR' }], 'delete 1 payment link')
    // A check counts nothing.
    session.check(caps, 2, [{ amount: 40, currency: 'EUR' }], 'delete 2 payment links')
    session.check(caps, 2, [{ amount: 40, currency: 'EUR' }], 'delete 2 payment links')
    const over = refusal(() =>
      session.take(caps, 1, [{ amount: '40.01', currency: 'EUR' }], 'delete 1 payment link'),
    )
    expect(over.message).toBe(
      'Refusing to delete 1 payment link: with the 60.00 EUR deleted or cancelled before in this session, ' +
        '100.01 EUR in all is more than this server allows (--max-amount 100.00 EUR).',
    )
    expect(over.hint).toBe(
      'pay mcp was started with --max-amount 100.00 EUR, which counts every delete and cancel of this session: ask the person running it.',
    )
    // Another currency has a total of its own; the refused take counted nothing.
    session.take(caps, 1, [{ amount: 100, currency: 'USD' }], 'cancel 1 subscription')
    expect(
      refusal(() => session.take(caps, 2, [{ amount: 1, currency: 'GBP' }], 'delete 2 payment links'))
        .message,
    ).toBe(
      'Refusing to delete 2 payment links: 2 were deleted or cancelled before in this session, and this server ' +
        'allows at most 3 in all (--max-items 3).',
    )
    session.take(caps, 1, [{ amount: '40', currency: 'EUR' }], 'delete 1 payment link')
    expect(refusal(() => session.check(caps, 1, [], 'delete 1 payment link')).message).toBe(
      'Refusing to delete 1 payment link: 3 were deleted or cancelled before in this session, and this server allows at most 3 in all (--max-items 3).',
    )
  })
})
