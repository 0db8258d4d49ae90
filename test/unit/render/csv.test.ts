import { describe, expect, it } from 'vitest'
import { parseCsv } from '../../../src/bulk/csv.js'
import { csvTable, csvTimeIn, fromSpreadsheet } from '../../../src/render/csv.js'

/** `--format csv`: what a spreadsheet gets, and that it reads back as it was (but for what is made safe). */

describe('csvTable', () => {
  it('a header row, then each record: quoted where RFC 4180 says, formulas made text, controls in caret notation', () => {
    const records = [
      { title: 'plain', amount: 25.5, currency: 'EUR', package: { name: 'Starter' } },
      { title: 'a "quoted", two\r\nlines', amount: 3, currency: 'JPY', package: { name: '=SUM(A1)' } },
      { title: '-1', amount: undefined, currency: 'USD', package: null },
      { title: '#not a comment', amount: 1, currency: 'EUR', package: { name: 'bell\u0007 tab\tkept' } },
    ]
    const text = csvTable(records, ['title', 'amount', 'currency', 'package.name'])
    expect(text).toBe(
      'title,amount,currency,package.name\n' +
        'plain,25.5,EUR,Starter\n' +
        '"a ""quoted"", two\nlines",3,JPY,\'=SUM(A1)\n' +
        "'-1,,USD,\n" +
        '"#not a comment",1,EUR,bell^G tab\tkept\n',
    )
    // Read back as pay reads CSV: the same cells, the formula guard taken off.
    const rows = parseCsv(text).map((row) => row.cells.map(fromSpreadsheet))
    expect(rows[2]).toEqual(['a "quoted", two\nlines', '3', 'JPY', '=SUM(A1)'])
    expect(rows[3][0]).toBe('-1')
    expect(rows[4][0]).toBe('#not a comment')
  })

  it('a cell starting with a line break (CR, LF or CRLF), a tab, or a full-width ＝ ＋ － ＠ is prefixed too, and reads back as it was', () => {
    const titles = [
      '\rx',
      '\nx',
      '\r\n=1+1',
      '\tx',
      '\uFF1D1+1',
      '\uFF0B1',
      '\uFF0D2',
      '\uFF20SUM(A1)',
      "'\uFF1Dx",
    ]
    const text = csvTable(
      titles.map((title) => ({ title })),
      ['title'],
    )
    // A carriage return is written as a line feed (as every line break in a cell), after the prefix.
    expect(text).toBe(
      'title\n' +
        '"\'\nx"\n' +
        '"\'\nx"\n' +
        '"\'\n=1+1"\n' +
        "'\tx\n" +
        "'\uFF1D1+1\n" +
        "'\uFF0B1\n" +
        "'\uFF0D2\n" +
        "'\uFF20SUM(A1)\n" +
        "''\uFF1Dx\n",
    )
    const back = parseCsv(text)
      .slice(1)
      .map((row) => fromSpreadsheet(row.cells[0]))
    expect(back).toEqual([
      '\nx',
      '\nx',
      '\n=1+1',
      '\tx',
      '\uFF1D1+1',
      '\uFF0B1',
      '\uFF0D2',
      '\uFF20SUM(A1)',
      "'\uFF1Dx",
    ])
  })

  it('no records: the header alone; wide text whole', () => {
    expect(csvTable([], ['_id', 'title'])).toBe('_id,title\n')
    const wide = '漢字'.repeat(200)
    expect(csvTable([{ title: wide }], ['title'])).toBe(`title\n${wide}\n`)
  })
})

describe('times in a CSV', () => {
  it('are written as the bulk reports write them: UTC, YYYY-MM-DD HH:MM:SS, in the columns of a time', () => {
    const records = [
      {
        at: '2026-11-23T15:19:46.772Z',
        created_at: '2026-11-23T16:19:46+01:00',
        title: '2026-11-23T15:19:46Z',
      },
    ]
    expect(csvTable(records, ['at', 'created_at', 'title'])).toBe(
      'at,created_at,title\n2026-11-23 15:19:46,2026-11-23 15:19:46,2026-11-23T15:19:46Z\n',
    )
    expect(csvTimeIn('package.updated_at', '2026-01-02T03:04Z')).toBe('2026-01-02 03:04:00')
    // What is no time with its zone stays as it came.
    for (const text of ['2026-11-23 15:19:46', '2026-11-23T15:19:46', '2026-13-45T99:99:99Z', 'soon', ''])
      expect(csvTimeIn('at', text)).toBe(text)
  })
})
