import { describe, expect, it } from 'vitest'
import { checkAmounts, checkItems, decimalAbove, decimalSum } from '../../../src/agent/caps.js'
import { PayError } from '../../../src/errors.js'

/** pay mcp's caps (src/agent/caps.ts): amounts compared as decimal text, never as floats. */

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

  it('refuses more items, or more than the amount in any one currency', () => {
    expect(() => checkItems({ maxItems: 2 }, 2, 'delete 2 payment links')).not.toThrow()
    expect(() => checkItems({}, 5000, 'delete 5000 payment links')).not.toThrow()
    expect(() => checkItems({ maxItems: 2 }, 3, 'delete 3 payment links')).toThrow(
      'Refusing to delete 3 payment links: this server allows at most 2 in one call (--max-items).',
    )
    const amounts = [
      { amount: 60, currency: 'EUR' },
      { amount: '50', currency: 'eur' },
      { amount: '90', currency: 'USD' },
    ]
    let refused: unknown
    try {
      checkAmounts({ maxAmount: '100' }, amounts, 'to cancel 3 subscriptions')
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(PayError)
    expect((refused as PayError).message).toBe(
      'Refusing to cancel 3 subscriptions: 110 EUR in all is more than this server allows (--max-amount 100).',
    )
    expect((refused as PayError).hint).toBe(
      'pay mcp was started with --max-amount 100: ask the person running it, or do less in one call.',
    )
    expect(() => checkAmounts({ maxAmount: '110' }, amounts, 'x')).not.toThrow()
  })
})
