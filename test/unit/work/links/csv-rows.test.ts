import { describe, expect, it } from 'vitest'
import { readRows as readAnyRows } from '../../../../src/bulk/create-rows.js'
import { LINK_ROWS } from '../../../../src/work/links/csv-rows.js'

const readRows = (text: string, source: string) => readAnyRows(text, source, LINK_ROWS)

describe('readRows', () => {
  const comma = 'email,currency,amount,title\na@example.com,EUR,25.50,"Tea; green"\n'
  const expected = [
    {
      line: 2,
      values: { email: 'a@example.com', currency: 'EUR', amount: '25.50', title: 'Tea; green' },
      hash: expect.stringMatching(/^[0-9a-f]{16}$/),
    },
  ]

  it('reads a file separated by semicolons or tabs, as spreadsheets export in many locales', () => {
    expect(readRows(comma, 'comma.csv')).toEqual(expected)
    expect(
      readRows('email;currency;amount;title\na@example.com;EUR;25.50;"Tea; green"\n', 'semi.csv'),
    ).toEqual(expected)
    expect(
      readRows('email\tcurrency\tamount\ttitle\na@example.com\tEUR\t25.50\tTea; green\n', 'tab.csv'),
    ).toEqual(expected)
  })

  it('checks the rows of a semicolon file as those of any other: a decimal comma is no amount', () => {
    const [row] = readRows('email;currency;amount;title\na@example.com;EUR;25,50;Tea\n', 'semi.csv')
    expect(row.problems).toEqual({ amount: [expect.stringMatching(/^The amount /)] })
  })
})
