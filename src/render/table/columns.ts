import { PayError } from '../../errors.js'
import { isRecord, type Rec } from '../../values.js'
import { columnHeader, type View } from '../views.js'
import { LAST_RESORT } from './table.js'

/**
 * The columns --columns names, as field names: a field (dotted for embedded records, like
 * `package.currency`), `id` for `_id`, or a header as tables show it (`ID`, `STATUS`).
 */
export function pickColumns(columns: string[], view: View, records: Rec[]): string[] {
  const known = new Set([...view.listColumns, ...view.recordFields])
  for (const record of records) for (const path of fieldPaths(record)) known.add(path)
  const byName = new Map<string, string>()
  for (const field of known) {
    byName.set(field.toLowerCase(), field)
    byName.set(columnHeader(field).toLowerCase(), byName.get(columnHeader(field).toLowerCase()) ?? field)
  }
  // `id` is `_id`, unless the records have a field of that name (`pay history`'s changes).
  if (!known.has('id')) byName.set('id', '_id')
  const picked = columns.map((column) => byName.get(column.toLowerCase()) ?? column)
  const unknown = picked.filter((column) => !known.has(column))
  if (unknown.length > 0) {
    throw new PayError(`Unknown column ${unknown.map((c) => `"${c}"`).join(', ')} for --columns.`, {
      kind: 'usage',
      hint: `Available: ${[...known].join(', ')}`,
    })
  }
  return picked
}

/** Where a narrow terminal drops a list column: its rank, or undefined for a column it keeps. */
export function dropRank(view: View, column: string): number | undefined {
  const first = view.dropOrder?.indexOf(column) ?? -1
  if (first !== -1) return first
  const last = view.lastResort?.indexOf(column) ?? -1
  return last === -1 ? undefined : LAST_RESORT + last
}

/** The columns with each amount followed by its currency, for TSV (where amounts are plain numbers). */
export function withCurrencies(columns: string[]): string[] {
  return columns.flatMap((column) => {
    if (column !== 'amount' && !column.endsWith('.amount')) return [column]
    const currency = column.replace(/amount$/, 'currency')
    return columns.includes(currency) ? [column] : [column, currency]
  })
}

/** Every field of a record as --columns names it: top-level keys, and one level into embedded records. */
function fieldPaths(record: Rec): string[] {
  return Object.entries(record).flatMap(([key, value]) =>
    isRecord(value) ? [key, ...Object.keys(value).map((inner) => `${key}.${inner}`)] : [key],
  )
}
