/**
 * CSV as pay writes it, for spreadsheets (RFC 4180): fields separated by commas, quoted when they
 * hold a comma, a quote or a line break (or start with `#`, which pay's reader takes for a
 * comment), quotes doubled inside, one record a line. The reports of the bulk commands
 * (src/bulk/report.ts) and `--format csv` of the lists write their cells the same way.
 */
import { plain, type Rec, sanitizeText } from '../values.js'
import { lookup } from './format.js'

/**
 * The UTF-8 byte-order mark that --bom writes first (`--format csv`, the bulk reports): without
 * it Excel reads a CSV file in the machine's legacy code page, and `Café` comes out as `CafÃ©`,
 * CJK and Arabic as nonsense. pay's readers of CSV skip it.
 */
export const BOM = '\uFEFF'

/** One CSV field: quoted when it must be. */
export const csvField = (value: string) =>
  /[",\r\n]/.test(value) || /^#/.test(value) ? `"${value.replace(/"/g, '""')}"` : value

/** One CSV line, with its line end. */
export const csvLine = (values: string[]) => `${values.map(csvField).join(',')}\n`

/**
 * What a spreadsheet would read as a formula (OWASP, CSV injection): a cell beginning with =, +,
 * -, @, a tab, a carriage return or a line feed (a line break inside a quoted cell, which some
 * spreadsheets drop before they look), or with the full-width ＝ ＋ － ＠ that some take for the
 * ASCII ones. Such a cell is written with a leading `'`, which spreadsheets take as "text", so
 * `=HYPERLINK(…)` in a customer's e-mail stays text. A cell already beginning with `'` before one
 * of those gets one more, so that reading back is exact.
 */
const FORMULA_START = /^'*[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20]/
/** A cell toSpreadsheet prefixed. */
const PREFIXED = /^'+[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20]/

/** A value as a report cell: prefixed with `'` when a spreadsheet would run it. */
export const toSpreadsheet = (value: string): string => (FORMULA_START.test(value) ? `'${value}` : value)

/** A report cell read back: the `'` toSpreadsheet added is removed. */
export const fromSpreadsheet = (cell: string): string => (PREFIXED.test(cell) ? cell.slice(1) : cell)

/**
 * Records as CSV for a spreadsheet (`--format csv`): a header row of the field names, then one
 * row per record, each cell the field's plain value (an amount is the number; its currency has a
 * column of its own) made safe: control characters in caret notation as on a terminal (a line
 * break and a tab are kept, inside quotes), a formula's start prefixed with `'`, quoted as RFC
 * 4180 says. Nothing is cut: wide text stays whole.
 */
export function csvTable(records: Rec[], columns: string[]): string {
  const cell = (record: Rec, column: string) =>
    toSpreadsheet(
      sanitizeText(csvTimeIn(column, plain(lookup(record, column).value)).replace(/\r\n?/g, '\n')),
    )
  return (
    csvLine(columns) +
    records.map((record) => csvLine(columns.map((column) => cell(record, column)))).join('')
  )
}

/**
 * A time as every CSV pay writes it (the bulk reports' `at`, `--format csv`'s `created_at`, `pay
 * history`'s `at`): UTC, `YYYY-MM-DD HH:MM:SS`, which spreadsheets read as a date and time, unlike
 * ISO 8601's `T…Z`.
 */
export const csvTime = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ')

/** An ISO 8601 date and time with its zone (`2026-11-23T15:19:46.772Z`, `…+01:00`). */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/

/** A time column's ISO 8601 cell as csvTime writes it (the column `at`, or one ending `_at`); anything else as it is. */
export function csvTimeIn(column: string, text: string): string {
  const leaf = column.split('.').pop() ?? column
  if ((leaf !== 'at' && !leaf.endsWith('_at')) || !ISO_TIME.test(text)) return text
  const date = new Date(text)
  return Number.isNaN(date.getTime()) ? text : csvTime(date)
}
