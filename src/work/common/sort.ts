import { Flags } from '@oclif/core'
import { usageError } from '../../errors.js'
import { lookup } from '../../render/format.js'
import { columnHeader, type View } from '../../render/views.js'
import { plain, type Rec } from '../../values.js'

/**
 * `--sort FIELD` of the list commands (`-FIELD`: descending): the records of every page, ordered
 * by one field as its values mean, then as many as the list scope shows. Amounts and other
 * numbers compare as numbers (`9` before `10`, `25.50` as 25.5), dates and times as points in
 * time, true after false, text without regard to case or accents. Records without the field come
 * last either way; equal ones keep the order the service gave (the sort is stable).
 */

export const SORT_FLAG = {
  sort: Flags.string({
    description:
      'Order by this field (-FIELD: descending), e.g. created_at, -amount, title: numbers as numbers, dates as dates. Reads every page.',
    helpValue: 'FIELD',
  }),
}

export interface SortOrder {
  field: string
  descending: boolean
}

/** The order `--sort` asks for, its field one the view knows (as --columns names it); undefined for none. */
export function sortOrder(typed: string | undefined, view: View): SortOrder | undefined {
  if (typed === undefined) return undefined
  const text = typed.trim()
  const descending = text.startsWith('-')
  const name = text.replace(/^[-+]/, '').trim().toLowerCase()
  const known = [...new Set([...view.listColumns, ...view.recordFields])]
  const field =
    name === 'id'
      ? '_id'
      : known.find(
          (candidate) => candidate.toLowerCase() === name || columnHeader(candidate).toLowerCase() === name,
        )
  if (field === undefined) {
    throw usageError(
      `Unknown field "${typed}" for --sort.`,
      `Sort by one of ${known.join(', ')}; -FIELD for descending.`,
    )
  }
  return { field, descending }
}

/** What a value is compared as. */
type Key =
  | { kind: 'number' | 'time'; value: number }
  | { kind: 'boolean'; value: number }
  | { kind: 'text'; value: string }

const NUMBER = /^-?\d+(\.\d+)?$/
const TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/

function keyOf(value: unknown): Key | undefined {
  if (value === undefined || value === null || value === '') return undefined
  if (typeof value === 'number') return Number.isFinite(value) ? { kind: 'number', value } : undefined
  if (typeof value === 'boolean') return { kind: 'boolean', value: value ? 1 : 0 }
  const text = plain(value).trim()
  if (NUMBER.test(text)) return { kind: 'number', value: Number(text) }
  if (TIME.test(text)) {
    const at = Date.parse(text.replace(' ', 'T'))
    if (!Number.isNaN(at)) return { kind: 'time', value: at }
  }
  return { kind: 'text', value: text }
}

let collator: Intl.Collator | undefined

function compareKeys(a: Key, b: Key): number {
  if (a.kind === 'text' || b.kind === 'text') {
    // Mixed kinds (a number among text) compare as the text they are.
    collator ??= new Intl.Collator(undefined, { sensitivity: 'base', numeric: true })
    return collator.compare(String(a.value), String(b.value))
  }
  return a.value - b.value
}

/** `records` in `order`, a new array (the sort is stable). */
export function sortRecords(records: Rec[], order: SortOrder): Rec[] {
  const keyed = records.map((record) => ({ record, key: keyOf(lookup(record, order.field).value) }))
  keyed.sort((a, b) => {
    if (a.key === undefined || b.key === undefined) return a.key === b.key ? 0 : a.key === undefined ? 1 : -1
    const compared = compareKeys(a.key, b.key)
    return order.descending ? -compared : compared
  })
  return keyed.map(({ record }) => record)
}
