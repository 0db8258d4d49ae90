import { describe, expect, it } from 'vitest'
import { csvLine, headerSeparator, parseCsv } from '../../../src/bulk/csv.js'

describe('parseCsv', () => {
  it('reads quoted fields with commas, quotes and line breaks, CRLF or LF, and a byte-order mark', () => {
    const text = '\uFEFFemail,title\r\n"a@b.co","Tea, ""green""\r\nand more"\r\n\r\nc@d.co,Plain\n'
    expect(parseCsv(text)).toEqual([
      { line: 1, cells: ['email', 'title'] },
      { line: 2, cells: ['a@b.co', 'Tea, "green"\r\nand more'] },
      { line: 5, cells: ['c@d.co', 'Plain'] },
    ])
  })

  it('leaves out # comment lines and blank lines, and keeps the line numbers of the file', () => {
    expect(parseCsv('# pay subs cancel · profile live\nid,ok\n\n# resumed\nx,true')).toEqual([
      { line: 2, cells: ['id', 'ok'] },
      { line: 5, cells: ['x', 'true'] },
    ])
  })

  it('refuses a quote left open, naming the line it opened on', () => {
    expect(() => parseCsv('a,b\n1,"never closed\n2,3')).toThrow(
      'a quoted field opened on line 2 is never closed',
    )
  })

  it('reads back what csvLine writes, whatever the text', () => {
    const values = ['plain', 'comma, here', 'quote " here', 'line\nbreak', '#not a comment', '']
    expect(parseCsv(csvLine(values))).toEqual([{ line: 1, cells: values }])
  })
})

describe('headerSeparator', () => {
  it('tells a comma, a semicolon or a tab from the header row, outside quotes, past comments', () => {
    expect(headerSeparator('email,currency,amount,title\na;b,c\n')).toBe(',')
    expect(headerSeparator('\uFEFFemail;currency;amount;title\r\na,b;c\n')).toBe(';')
    expect(headerSeparator('email\tcurrency\tamount\n')).toBe('\t')
    expect(headerSeparator('# a comment, with commas, here\n\nemail;"a, b";title\n')).toBe(';')
  })

  it('is a comma for a header of one column, an empty file, or as many of another', () => {
    expect(headerSeparator('email\n')).toBe(',')
    expect(headerSeparator('')).toBe(',')
    expect(headerSeparator('a;b,c\n')).toBe(',')
    expect(headerSeparator('a;b;c,d\n')).toBe(';')
  })
})

describe('parseCsv with another separator', () => {
  it('splits at that separator only: commas stay in the cells, quoted ones keep theirs', () => {
    expect(parseCsv('email;title\na@b.co;"Tea; green"\nc@d.co;25,50\n', ';')).toEqual([
      { line: 1, cells: ['email', 'title'] },
      { line: 2, cells: ['a@b.co', 'Tea; green'] },
      { line: 3, cells: ['c@d.co', '25,50'] },
    ])
    expect(parseCsv('email\ttitle\na@b.co\tTea, green\n', '\t')).toEqual([
      { line: 1, cells: ['email', 'title'] },
      { line: 2, cells: ['a@b.co', 'Tea, green'] },
    ])
  })
})
