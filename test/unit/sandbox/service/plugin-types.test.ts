import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { roundedDecimal } from '../../../../src/shared/money.js'
import { invalid, startTestSandbox, type TestSandbox, VALID_LINK } from '../../../helpers/sandbox.js'

/**
 * A payment link's fields as the service's shop plugins send them (docs/choices.md; the field rule
 * `numberToo` of src/shared/fields.ts): the amount as a JSON number or text, answered as a number,
 * a float's noise rounded to the currency's decimals; the references and the phone as numbers or
 * text, kept as text. What the service refuses of them stays a 422.
 */

let t: TestSandbox
beforeAll(async () => {
  t = await startTestSandbox()
})
afterAll(() => t.close())

const create = (fields: Record<string, unknown>) =>
  t.a.call('POST', '/payment-links', { ...VALID_LINK, currency: 'MYR', ...fields })

describe('amounts', () => {
  it.each([
    ['a whole JSON number', 25, 25],
    ['a fractional one', 15.5, 15.5],
    [
      'PHP’s float noise of a converted total, rounded to the currency’s two decimals',
      51.64473684210527,
      51.64,
    ],
    ['noise rounded half up', 10.005, 10.01],
    ['decimal text, as the spec states it', '10.50', 10.5],
    ['text is exact: never rounded', '0.001', 0.001],
  ])('%s: %j is answered as %j', async (_what, amount, answered) => {
    const answer = await create({ amount })
    expect([answer.status, answer.json.data?.amount]).toEqual([200, answered])
    expect(typeof answer.json.data.amount).toBe('number')
  })

  it('a currency of no decimals rounds the noise to whole units; one pay knows no decimals of keeps the number', async () => {
    expect((await create({ currency: 'JPY', amount: 1250.4999999 })).json.data.amount).toBe(1250)
    expect((await create({ currency: 'BTC', amount: 0.00012345 })).json.data.amount).toBe(0.00012345)
  })

  it.each([
    [0.001, 'The amount must be greater than 0.'],
    [-5, 'The amount must be greater than 0.'],
    [1e21, 'The amount must not have more than 15 significant digits.'],
    ['1,234.50', 'The amount must use a point for its decimals and no thousands separator, like 1000.50.'],
    ['51.64473684210527', 'The amount must not have more than 15 significant digits.'],
    [true, 'The amount must be a string or a number.'],
  ])('%j: 422, %s', async (amount, message) => {
    const answer = await create({ amount })
    expect([answer.status, answer.json]).toEqual([422, invalid({ amount: [message] })])
  })
})

describe('references and the phone number', () => {
  it('a JSON number is kept as the text it is written as', async () => {
    const answer = await create({ reference: 101, reference_2: 7, phone_no: 60123456789 })
    expect(answer.json.data).toMatchObject({ reference: '101', reference_2: '7', phone_no: '60123456789' })
    expect((await create({ reference: '7' })).json.data.reference).toBe('7')
  })

  it('a number is held to the same rules as text: at most 50 characters', async () => {
    const answer = await create({ reference: 1e60 })
    expect([answer.status, answer.json]).toEqual([
      422,
      invalid({ reference: ['The reference may not be greater than 50 characters.'] }),
    ])
  })
})

describe('what the service refuses of the plugins too', () => {
  it('a null title (OpenCart before its settings are saved), and one over 50 characters (Gravity Forms)', async () => {
    expect((await create({ title: null })).json).toEqual(invalid({ title: ['The title field is required.'] }))
    expect((await create({ title: 'x'.repeat(51) })).json).toEqual(
      invalid({ title: ['The title may not be greater than 50 characters.'] }),
    )
  })
})

describe('roundedDecimal', () => {
  it.each([
    ['51.64473684210527', 2, '51.64'],
    ['0.005', 2, '0.01'],
    ['0.004', 2, '0.00'],
    ['9.995', 2, '10.00'],
    ['-0.125', 2, '-0.13'],
    ['-0.001', 2, '0.00'],
    ['1250.5', 0, '1251'],
    ['10.5', 2, '10.5'],
    ['7', 3, '7'],
  ])('%s to %i decimals: %s', (text, digits, rounded) => {
    expect(roundedDecimal(text, digits)).toBe(rounded)
  })
})
