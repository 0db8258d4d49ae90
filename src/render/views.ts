import type { Rec } from '../values.js'

/**
 * What each resource shows: the columns of a list row and the fields of a one-record table.
 * Field names are the service's, dotted for embedded records (`package.name`); `--columns`
 * takes the same names.
 */
export interface View {
  /** Singular noun for messages: "payment link". */
  noun: string
  plural: string
  /** The columns of a list: TSV rows, and tables unless `tableColumns` says otherwise. */
  listColumns: string[]
  /** The columns of a list table on a terminal, when they differ (two fields shown in one). */
  tableColumns?: string[]
  /**
   * A table cell that shows more than its field (links: `Active, paid` under STATUS); undefined
   * for the field as it is. Not used for the columns named by --columns.
   */
  tableCell?: (record: Rec, column: string, style: { colour: boolean }) => string | undefined
  recordFields: string[]
  /** The field printed by --quiet; `_id` unless said otherwise. */
  idField?: string
  /** List columns of little value that a narrow terminal drops first, in this order… */
  dropOrder?: string[]
  /** …and those it drops, in this order, only once free text is as short as it gets. */
  lastResort?: string[]
  /**
   * Values the service spells one way and pay prints another, by field, in tables and TSV (a
   * subscription's `cancel` is `cancelled`); JSON keeps the service's value.
   */
  words?: Record<string, Record<string, string>>
}

/** The record as tables and TSV show it: its values in the words pay prints (View.words). */
export function inWords(record: Rec, view: View): Rec {
  let shown: Rec | undefined
  for (const [field, words] of Object.entries(view.words ?? {})) {
    const value = record[field]
    const word = typeof value === 'string' ? value.toLowerCase() : undefined
    if (word === undefined || !Object.hasOwn(words, word)) continue
    shown ??= { ...record }
    shown[field] = words[word]
  }
  return shown ?? record
}

const HEADERS: Record<string, string> = {
  _id: 'ID',
  base_url: 'BASE URL',
  api_key: 'KEY',
  key_storage: 'STORAGE',
  'package.name': 'PACKAGE',
  'amount_owed.amount': 'OWED',
  unpaid_charges: 'UNPAID',
  // A business's integration (pay businesses list), beside the business's own ID.
  'integration.id': 'INTEGRATION',
  created_at: 'CREATED',
  updated_at: 'UPDATED',
}

export function columnHeader(column: string): string {
  // Own entries only: a column named `constructor` is no key of the table.
  if (Object.hasOwn(HEADERS, column)) return HEADERS[column]
  return (column.split('.').pop() ?? column).replace(/_/g, ' ').toUpperCase()
}
