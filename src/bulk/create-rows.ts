import fs from 'node:fs'
import { type FieldErrors, usageError } from '../errors.js'
import { sha256Hex } from '../shared/crypto.js'
import { type CsvRow, headerSeparator, parseCsv } from './csv.js'
import { lastRows, type ReadReport } from './report.js'

/**
 * The rows of a `--from-csv` file (`links create`, `subs create`), each checked before anything
 * is sent, and what an earlier run (--resume) recorded of each. The engine knows no noun: the
 * noun hands it its fields (which columns name which, and how a row is checked).
 */

/** A row's values, under the service's field names. */
export type RowValues = Record<string, string | boolean | undefined>

/** What a noun tells the engine of its fields: a FieldSet (src/work/common/field-set.ts) is one. */
export interface RowFields {
  /** The column names a file may use (every flag name). */
  columnNames: string[]
  /** The service field a column names: a flag (`reference-2`) or a field (`reference_2`). */
  fieldOfColumn(column: string): string | undefined
  /** Whether a field takes yes/no (`send_email`). */
  isBoolean(field: string): boolean
  /**
   * A row's values as they are sent (`usd` as `USD`), and what the service would refuse of them,
   * under its field names, as a 422 would list them: required fields missing too.
   */
  checked(values: RowValues): { values: RowValues; problems: FieldErrors }
}

export interface InputRow {
  line: number
  values: RowValues
  hash: string
  problems?: FieldErrors
}

/** The CSV of `--from-csv FILE` (- for stdin), and where it came from as messages name it. */
export async function readCsvInput(
  source: string,
  io: { readStdin(): Promise<string> },
): Promise<{ text: string; source: string }> {
  if (source === '-') return { text: await io.readStdin(), source: 'stdin' }
  try {
    return { text: fs.readFileSync(source, 'utf8'), source }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw usageError(
      `--from-csv: cannot read ${source}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}.`,
    )
  }
}

/**
 * The rows of the CSV, each checked as the service would check it. Its cells are separated by
 * commas, semicolons or tabs, whichever its header row holds (what a spreadsheet exports in the
 * user's locale).
 */
export function readRows(text: string, source: string, fields: RowFields): InputRow[] {
  let parsed: CsvRow[]
  try {
    parsed = parseCsv(text, headerSeparator(text))
  } catch (error) {
    throw usageError(`--from-csv: ${source} is not a readable CSV file: ${(error as Error).message}.`)
  }
  const [header, ...data] = parsed
  if (!header) throw usageError(`--from-csv: ${source} is empty; it needs a header row naming the fields.`)
  const named = header.cells.map((column) => fields.fieldOfColumn(column))
  const unknown = header.cells.filter((_, i) => named[i] === undefined)
  if (unknown.length > 0) {
    throw usageError(
      `--from-csv: unknown column${unknown.length === 1 ? '' : 's'} ${unknown.map((c) => JSON.stringify(c)).join(', ')} in ${source}.`,
      `Columns are flag or field names: ${fields.columnNames.join(', ')}.`,
    )
  }
  const twice = named.find((field, i) => named.indexOf(field) !== i)
  if (twice) throw usageError(`--from-csv: two columns of ${source} name the ${twice} field.`)
  return data.map((row) => {
    const values: RowValues = {}
    const problems: FieldErrors = {}
    if (row.cells.length > named.length) {
      problems.row = [`The row has ${row.cells.length} cells for ${named.length} columns.`]
    }
    for (const [i, field] of named.entries()) {
      const cell = (row.cells[i] ?? '').trim()
      if (cell === '' || field === undefined) continue
      if (fields.isBoolean(field)) {
        const yes = ['true', '1', 'yes', 'y'].includes(cell.toLowerCase())
        const no = ['false', '0', 'no', 'n'].includes(cell.toLowerCase())
        if (yes || no) values[field] = yes
        else problems[field] = [`The ${field} field must be true or false.`]
      } else values[field] = cell
    }
    const checked = fields.checked(values)
    Object.assign(problems, checked.problems)
    const hash = sha256Hex(JSON.stringify(row.cells)).slice(0, 16)
    return {
      line: row.line,
      values: checked.values,
      hash,
      ...(Object.keys(problems).length > 0 ? { problems } : {}),
    }
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
