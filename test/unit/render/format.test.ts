import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatAmount, tsvCell } from '../../../src/render/format.js'
import { currencyDigits, decimalText } from '../../../src/shared/money.js'

describe('decimalText', () => {
  it('writes any number from 1e-12 to 1e15 in plain decimal notation that reads back the same', () => {
    const magnitude = fc.double({ min: 1e-12, max: 1e15, noNaN: true })
    fc.assert(
      fc.property(magnitude, fc.boolean(), (value, negative) => {
        const number = negative ? -value : value
        const text = decimalText(number)
        expect(text).toMatch(/^-?\d+(\.\d+)?$/)
        expect(Number(text)).toBe(number)
      }),
      { numRuns: 2000 },
    )
  })

  it('moves only the decimal point of the shortest form', () => {
    expect([1e-7, 1.5e-7, 2.5e-12, 1e21, 1.234e22, 25.5, 0.1, 100].map(decimalText)).toEqual([
      '0.0000001',
      '0.00000015',
      '0.0000000000025',
      '1000000000000000000000',
      '12340000000000000000000',
      '25.5',
      '0.1',
      '100',
    ])
  })
})

describe('amounts', () => {
  it('are shown with their currency, padded to its decimals, never rounded, never in exponent form', () => {
    expect(
      [
        [25.5, 'EUR'],
        [1000, 'JPY'],
        [1.5, 'BHD'],
        [0.001, 'EUR'],
        [1e-7, 'BTC'],
        [1.5e-7, 'EUR'],
        [1e21, 'USD'],
        [125, undefined],
      ].map(([amount, currency]) => formatAmount(amount, currency)),
    ).toEqual([
      '25.50 EUR',
      '1000 JPY',
      '1.500 BHD',
      '0.001 EUR',
      '0.0000001 BTC',
      '0.00000015 EUR',
      '1000000000000000000000 USD',
      '125',
    ])
  })

  it('of a code that is no ISO currency are shown as the number came, not padded to 2 decimals', () => {
    expect(
      [
        [25.5, 'BTC'],
        [25, 'XYZ'],
        [25.5, 'EURO'],
        [25.5, 'usd'],
        [25.5, 'NGN'],
      ].map(([amount, currency]) => formatAmount(amount, currency)),
    ).toEqual(['25.5 BTC', '25 XYZ', '25.5 EURO', '25.50 usd', '25.50 NGN'])
  })

  it('are the plain number in TSV, the currency in a cell of its own', () => {
    expect(tsvCell({ amount: 1e-7, currency: 'BTC' }, 'amount')).toBe('0.0000001')
    expect(tsvCell({ package: { amount: 1250.5 } }, 'package.amount')).toBe('1250.5')
  })
})

describe('currencyDigits', () => {
  it('knows the decimals of ISO 4217 currencies, in any case, and none for other codes', () => {
    expect(
      ['EUR', 'usd', 'JPY', 'KRW', 'BHD', 'KWD', 'CLF', 'NGN', 'BTC', 'XYZ', 'EURO', ''].map(currencyDigits),
    ).toEqual([2, 2, 0, 0, 3, 3, 4, 2, undefined, undefined, undefined, undefined])
  })
})
