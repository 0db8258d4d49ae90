import { describe, expect, it } from 'vitest'
import { layOut, type TableColumn, wrapText } from '../../../../src/render/table/table.js'

const HEADER = ['ID', 'STATUS', 'PAID', 'AMOUNT', 'EMAIL', 'TITLE', 'REFERENCE', 'CREATED']
const ROW = [
  '6b03d5410c55f1432c5575e8',
  'Active',
  'false',
  '125.03 EUR',
  'customer-3@example.com',
  'Invoice 1043 for consulting services in November',
  'ORDER-3',
  '2026-11-23T05:55:13.646Z',
]
const COLUMNS: TableColumn[] = [
  { kind: 'whole' },
  { kind: 'whole' },
  { kind: 'whole', dropRank: 2 },
  { kind: 'whole' },
  { kind: 'text', dropRank: 101 },
  { kind: 'text', dropRank: 100 },
  { kind: 'text', dropRank: 1 },
  { kind: 'whole', dropRank: 0 },
]

const shownAt = (width: number) => {
  const layout = layOut(COLUMNS, [HEADER, ROW], width, HEADER)
  return layout.shown.map((i, k) => `${HEADER[i]}:${layout.widths[k]}`)
}

describe('layOut', () => {
  it('shows everything whole where it fits', () => {
    expect(shownAt(200)).toEqual([
      'ID:24',
      'STATUS:6',
      'PAID:5',
      'AMOUNT:10',
      'EMAIL:22',
      'TITLE:48',
      'REFERENCE:9',
      'CREATED:24',
    ])
  })

  it('drops the columns of little value before free text goes below a comfortable width', () => {
    expect(shownAt(120)).toEqual([
      'ID:24',
      'STATUS:6',
      'PAID:5',
      'AMOUNT:10',
      'EMAIL:22',
      'TITLE:32',
      'REFERENCE:9',
    ])
  })

  it('at 80 columns keeps id, status and amount whole, and e-mail and title readable', () => {
    expect(shownAt(80)).toEqual(['ID:24', 'STATUS:6', 'AMOUNT:10', 'EMAIL:16', 'TITLE:16'])
  })

  it('cuts free text down to 7 columns before it drops any: a wide amount at 80 columns keeps e-mail and title', () => {
    const wide = ROW.map(
      (cell, i) =>
        (({ STATUS: 'Active, unpaid', AMOUNT: '9999999999999.99 EUR' }) as Record<string, string>)[
          HEADER[i]
        ] ?? cell,
    )
    const layout = layOut(COLUMNS, [HEADER, wide], 80, HEADER)
    expect(layout.shown.map((i, k) => `${HEADER[i]}:${layout.widths[k]}`)).toEqual([
      'ID:24',
      'STATUS:14',
      'AMOUNT:20',
      'EMAIL:7',
      'TITLE:7',
    ])
    // One column narrower, title (the first of the last resort) goes; e-mail keeps what is left.
    const narrower = layOut(COLUMNS, [HEADER, wide], 79, HEADER)
    expect(narrower.shown.map((i, k) => `${HEADER[i]}:${narrower.widths[k]}`)).toEqual([
      'ID:24',
      'STATUS:14',
      'AMOUNT:20',
      'EMAIL:15',
    ])
  })

  it('drops free text as a last resort, never cuts an id', () => {
    expect(shownAt(60)).toEqual(['ID:24', 'STATUS:6', 'AMOUNT:10', 'EMAIL:14'])
    expect(shownAt(30)).toEqual(['ID:24', 'STATUS:6', 'AMOUNT:10'])
  })
})

describe('wrapText', () => {
  it('breaks at spaces where it can, inside a long word where it must', () => {
    expect(wrapText('Invoice 1043 for consulting services in November', 20)).toBe(
      'Invoice 1043 for\nconsulting services\nin November',
    )
    expect(wrapText('abcdefghij', 4)).toBe('abcd\nefgh\nij')
  })
})
