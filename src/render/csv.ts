/**
 * CSV as pay writes it, for spreadsheets (RFC 4180): fields separated by commas, quoted when they
 * hold a comma, a quote or a line break (or start with `#`, which pay's reader takes for a
 * comment), quotes doubled inside, one record a line. The reports of the bulk commands
 * (src/bulk/report.ts) and `--format csv` of the lists write their cells the same way.
 */
import { plain, type Rec, sanitizeText } from '../values.js'
import { lookup } from './format.js'

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
    toSpreadsheet(sanitizeText(plain(lookup(record, column).value).replace(/\r\n?/g, '\n')))
  return (
    csvLine(columns) +
    records.map((record) => csvLine(columns.map((column) => cell(record, column)))).join('')
  )
}
