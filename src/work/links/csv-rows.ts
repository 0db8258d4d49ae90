import { type CsvRow, headerSeparator, parseCsv } from '../../bulk/csv.js'
import { lastRows, type ReadReport } from '../../bulk/report.js'
import { type FieldErrors, type PayError, usageError } from '../../errors.js'
import { sha256Hex } from '../../shared/crypto.js'
import type { FieldValues } from '../common/field-set.js'
import { checkAmountDigits, LINK_FIELDS } from './fields.js'

/**
 * The rows of a `links create --from-csv` file, each checked before anything is sent, and what
 * an earlier run (--resume) recorded of each.
 */

export interface InputRow {
  line: number
  values: FieldValues
  hash: string
  problems?: FieldErrors
}

/**
 * The rows of the CSV, each checked as the service would check it. Its cells are separated by
 * commas, semicolons or tabs, whichever its header row holds (what a spreadsheet exports in the
 * user's locale).
 */
export function readRows(text: string, source: string): InputRow[] {
  let parsed: CsvRow[]
  try {
    parsed = parseCsv(text, headerSeparator(text))
  } catch (error) {
    throw usageError(`--from-csv: ${source} is not a readable CSV file: ${(error as Error).message}.`)
  }
  const [header, ...data] = parsed
  if (!header) throw usageError(`--from-csv: ${source} is empty; it needs a header row naming the fields.`)
  const fields = header.cells.map((column) => LINK_FIELDS.fieldOfColumn(column))
  const unknown = header.cells.filter((_, i) => fields[i] === undefined)
  if (unknown.length > 0) {
    throw usageError(
      `--from-csv: unknown column${unknown.length === 1 ? '' : 's'} ${unknown.map((c) => JSON.stringify(c)).join(', ')} in ${source}.`,
      `Columns are flag or field names: ${LINK_FIELDS.columnNames.join(', ')}.`,
    )
  }
  const twice = fields.find((field, i) => fields.indexOf(field) !== i)
  if (twice) throw usageError(`--from-csv: two columns of ${source} name the ${twice} field.`)
  return data.map((row) => {
    const values: FieldValues = {}
    const problems: FieldErrors = {}
    if (row.cells.length > fields.length) {
      problems.row = [`The row has ${row.cells.length} cells for ${fields.length} columns.`]
    }
    for (const [i, field] of fields.entries()) {
      const cell = (row.cells[i] ?? '').trim()
      if (cell === '' || field === undefined) continue
      if (LINK_FIELDS.isBoolean(field)) {
        const yes = ['true', '1', 'yes', 'y'].includes(cell.toLowerCase())
        const no = ['false', '0', 'no', 'n'].includes(cell.toLowerCase())
        if (yes || no) values[field] = yes
        else problems[field] = [`The ${field} field must be true or false.`]
      } else values[field] = cell
    }
    // Sent as flags are (`usd` as `USD`), so that one currency is not two in the service's totals.
    const sent = LINK_FIELDS.normalized(values)
    Object.assign(problems, LINK_FIELDS.problems(sent, true))
    if (!problems.amount && !problems.currency) {
      try {
        checkAmountDigits(sent)
      } catch (error) {
        Object.assign(problems, (error as PayError).errors)
      }
    }
    const hash = sha256Hex(JSON.stringify(row.cells)).slice(0, 16)
    return { line: row.line, values: sent, hash, ...(Object.keys(problems).length > 0 ? { problems } : {}) }
  })
}

/**
 * What an earlier run (--resume) recorded of each row, by line: the last status and the key it
 * was sent with. A row recorded created is not sent again; one recorded unknown, or still
 * `sending` (the run was killed mid-request), is sent again only on --retry-unknown, with its
 * key. The report must be of the same input: each row's hash is compared.
 */
export function previousRun(
  resume: { file: string; report: ReadReport } | undefined,
  source: string,
  rows: InputRow[],
  retryUnknown: boolean,
) {
  const last = resume ? lastRows(resume.report, 'line') : new Map<string, Record<string, string>>()
  for (const row of rows) {
    const recorded = last.get(String(row.line))
    if (recorded?.row_hash && recorded.row_hash !== row.hash) {
      throw usageError(
        `--resume: line ${row.line} of ${source} is not the row ${resume?.file} recorded.`,
        'Resume with the same CSV file the report was written from.',
      )
    }
  }
  const statusOf = (row: InputRow) => last.get(String(row.line))?.status
  const mayHaveArrived = (row: InputRow) => ['unknown', 'sending'].includes(statusOf(row) ?? '')
  return {
    created: rows.filter((row) => statusOf(row) === 'created').length,
    /** Rows whose POST may have reached the service, not sent again without --retry-unknown. */
    held: retryUnknown ? [] : rows.filter((row) => !row.problems && mayHaveArrived(row)),
    plan: (row: InputRow) => statusOf(row) !== 'created' && (!mayHaveArrived(row) || retryUnknown),
    recorded: (row: InputRow) => last.get(String(row.line)),
  }
}
