import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { totalsByCurrency } from '../../../src/shared/money.js'
import { LINK_VIEW } from '../../../src/work/links/view.js'
import { testOutput } from '../../helpers/io.js'
import { get } from '../../helpers/pages.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/**
 * The contract of the one currency-decimals rule (src/shared/money.ts): the CLI's table and the
 * sandbox's payment page show a link's amount alike. Each link is created in a real sandbox, shown
 * by the table of `pay links list` on a terminal (Output.list, LINK_VIEW), and its page fetched
 * over HTTP as a browser does.
 */

let t: TestSandbox
beforeAll(async () => {
  t = await startTestSandbox()
})
afterAll(() => t.sandbox.close())

const CASES: [amount: string, currency: string, shown: string][] = [
  ['1.5', 'BTC', '1.5'],
  ['10', 'JPY', '10'],
  ['10.5', 'EUR', '10.50'],
  ['1.234', 'KWD', '1.234'],
]

describe('one currency-decimals rule for the table and the payment page', () => {
  it.each(CASES)('%s %s is shown as %s by both', async (amount, currency, shown) => {
    const created = await t.a.call('POST', '/payment-links', {
      email: 'jane@example.com',
      title: 'Contract',
      amount,
      currency,
    })
    expect(created.status).toBe(200)
    const link = created.json.data

    const { io, out } = testOutput({ terminal: true, width: 200 })
    out.list([link], LINK_VIEW)
    const row = io.stdout.text.split('\n').find((line) => line.includes(link._id)) ?? ''
    expect(row.split(/\s{2,}/)).toContain(`${shown} ${currency}`)

    const page = await get(t.baseUrl, new URL(link.payment_url).pathname + new URL(link.payment_url).search)
    expect(page.status).toBe(200)
    expect(page.text).toContain(
      `<p class="amount">${shown}<span class="currency"><bdi>${currency}</bdi></span></p>`,
    )
  })
})

describe('totalsByCurrency', () => {
  it('adds amounts up by currency exactly, to each currency’s decimals, in the order currencies appear', () => {
    expect(
      totalsByCurrency([
        { amount: 0.1, currency: 'EUR' },
        { amount: '0.2', currency: 'EUR' },
        { amount: 1000, currency: 'JPY' },
        { amount: 1.5, currency: 'BTC' },
        { amount: 1.5, currency: 'BTC' },
        { amount: 1.234, currency: 'KWD' },
        { amount: 0.766, currency: 'KWD' },
        { amount: 1e21, currency: 'USD' },
        { amount: 1e-7, currency: 'USD' },
        { amount: 120, currency: 'EUR' },
      ]),
    ).toEqual({
      totals: [
        { currency: 'EUR', amount: '120.30' },
        { currency: 'JPY', amount: '1000' },
        { currency: 'BTC', amount: '3' },
        { currency: 'KWD', amount: '2.000' },
        { currency: 'USD', amount: '1000000000000000000000.0000001' },
      ],
      unknown: 0,
    })
  })

  it('counts what it cannot add: no decimal number, or no currency', () => {
    expect(
      totalsByCurrency([
        { amount: undefined, currency: 'EUR' },
        { amount: 'ten', currency: 'EUR' },
        { amount: '1e3', currency: 'EUR' },
        { amount: 5, currency: undefined },
        { amount: 5, currency: '' },
        { amount: Number.NaN, currency: 'EUR' },
        { amount: '-2.5', currency: 'EUR' },
        { amount: 0.05, currency: 'EUR' },
      ]),
    ).toEqual({ totals: [{ currency: 'EUR', amount: '-2.45' }], unknown: 6 })
    expect(totalsByCurrency([])).toEqual({ totals: [], unknown: 0 })
  })
})
