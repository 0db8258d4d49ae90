import { describe, expect, it } from 'vitest'
import { containsText, createdWithin, momentOf } from '../../../../src/work/common/filters.js'
import { sortOrder, sortRecords } from '../../../../src/work/common/sort.js'
import { LINK_VIEW } from '../../../../src/work/links/view.js'
import { SUBSCRIPTION_VIEW } from '../../../../src/work/subs/view.js'

/** --sort, --search and --created-after/--created-before as the list functions apply them. */

const ids = (records: Record<string, unknown>[]) => records.map((record) => record._id)

describe('sortOrder', () => {
  it('takes a field the view knows, as --columns names it, with - for descending', () => {
    expect(sortOrder('amount', LINK_VIEW)).toEqual({ field: 'amount', descending: false })
    expect(sortOrder('-CREATED', LINK_VIEW)).toEqual({ field: 'created_at', descending: true })
    expect(sortOrder('+id', LINK_VIEW)).toEqual({ field: '_id', descending: false })
    expect(sortOrder('-Package.Amount', SUBSCRIPTION_VIEW)).toEqual({
      field: 'package.amount',
      descending: true,
    })
    expect(sortOrder(undefined, LINK_VIEW)).toBeUndefined()
    expect(() => sortOrder('-price', LINK_VIEW)).toThrow('Unknown field "-price" for --sort.')
  })
})

describe('sortRecords', () => {
  it('numbers as numbers, whether sent as numbers or text; stable; missing values last either way', () => {
    const records = [
      { _id: 'a', amount: 10 },
      { _id: 'b', amount: '9.5' },
      { _id: 'c' },
      { _id: 'd', amount: 100 },
      { _id: 'e', amount: 10 },
      { _id: 'f', amount: null },
    ]
    expect(ids(sortRecords(records, { field: 'amount', descending: false }))).toEqual([
      'b',
      'a',
      'e',
      'd',
      'c',
      'f',
    ])
    expect(ids(sortRecords(records, { field: 'amount', descending: true }))).toEqual([
      'd',
      'a',
      'e',
      'b',
      'c',
      'f',
    ])
  })

  it('dates as points in time (whatever their precision or zone), text by its letters, booleans false first', () => {
    const dated = [
      { _id: 'a', created_at: '2026-11-02T00:00:00.000000Z' },
      { _id: 'b', created_at: '2026-11-01T23:00:00-02:00' },
      { _id: 'c', created_at: '2026-11-01' },
    ]
    expect(ids(sortRecords(dated, { field: 'created_at', descending: false }))).toEqual(['c', 'a', 'b'])
    const titled = [
      { _id: 'a', title: 'beta', paid: true },
      { _id: 'b', title: 'Éclair', paid: false },
      { _id: 'c', title: 'alpha 10', paid: true },
      { _id: 'd', title: 'Alpha 9', paid: false },
    ]
    expect(ids(sortRecords(titled, { field: 'title', descending: false }))).toEqual(['d', 'c', 'a', 'b'])
    expect(ids(sortRecords(titled, { field: 'paid', descending: false }))).toEqual(['b', 'd', 'a', 'c'])
  })
})

describe('the list filters', () => {
  const now = Date.parse('2026-11-15T12:00:00Z')

  it('momentOf: a date, a date and time, or a span back from now; else a usage error naming the flag', () => {
    expect(momentOf('2026-11-01', 'created-after', now)).toBe(Date.parse('2026-11-01T00:00:00Z'))
    expect(momentOf('2026-11-01T09:30+01:00', 'created-after', now)).toBe(Date.parse('2026-11-01T08:30:00Z'))
    expect(momentOf('7d', 'created-after', now)).toBe(Date.parse('2026-11-08T12:00:00Z'))
    expect(momentOf('1mo', 'created-before', now)).toBe(Date.parse('2026-10-15T12:00:00Z'))
    expect(() => momentOf('yesterday', 'created-before', now)).toThrow(
      '--created-before: "yesterday" is neither a date nor a span back from now.',
    )
  })

  it('createdWithin: at or after the one, before the other; a record without a date is left out', () => {
    const inNovember = createdWithin({ 'created-after': '2026-11-01', 'created-before': '2026-12-01' }, now)
    const at = (created_at: unknown) => inNovember?.({ created_at })
    expect([
      at('2026-11-01T00:00:00.000Z'),
      at('2026-11-30T23:59:59.999Z'),
      at('2026-12-01T00:00:00.000Z'),
    ]).toEqual([true, true, false])
    expect([at('2026-10-31T23:59:59Z'), at(undefined), at('soon'), at(1762000000)]).toEqual([
      false,
      false,
      false,
      false,
    ])
    expect(createdWithin({}, now)).toBeUndefined()
  })

  it('containsText: in any of the fields, in any case; empty text is a usage error', () => {
    const match = containsText(['title', 'reference_2'], 'ÉTÉ')
    expect([
      match?.({ title: 'Cours d’été' }),
      match?.({ reference_2: 'xx-été' }),
      match?.({ email: 'été' }),
    ]).toEqual([true, true, false])
    // Accents or none, either way: `cafe` finds `Café`, `CAFÉ` finds `cafe`.
    expect([
      containsText(['title'], 'cafe')?.({ title: 'Café' }),
      containsText(['title'], 'CAFÉ')?.({ title: 'cafe' }),
    ]).toEqual([true, true])
    expect(containsText(['title'], '漢字')?.({ title: '漢字のタイトル' })).toBe(true)
    expect(containsText(['title'], undefined)).toBeUndefined()
    expect(() => containsText(['title'], '  ')).toThrow('--search needs some text to look for.')
  })
})
