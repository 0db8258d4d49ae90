import type { FieldErrors, PayError } from '../errors.js'
import { type Rec, sanitizeText } from '../values.js'
import { sanitizeCell } from './format.js'
import type { View } from './views.js'

/** One id's outcome in a bulk run, as printed by --json: `{id, ok, status, error}`. */
export interface BulkRow {
  id: string
  ok: boolean
  /** What happened: "deleted", "cancelled", "already_cancelled", "not_found", "failed", "not_done". */
  status: string
  error: string | null
}

/** -q: the ids done, one a line. */
export const bulkIds = (results: BulkRow[]) =>
  results
    .filter((r) => r.ok)
    .map((r) => `${sanitizeText(r.id)}\n`)
    .join('')

/** Piped: id, result and error, tab-separated. */
export const bulkTsv = (results: BulkRow[]) =>
  results.map((r) => `${[r.id, r.status, r.error ?? ''].map(sanitizeCell).join('\t')}\n`).join('')

/**
 * On a terminal, more results than this never attempted (a run stopped by Ctrl-C or a service
 * gone) are one row of the table: the summary counts them, and --json, TSV and the report keep
 * one line each.
 */
export const NOT_DONE_SHOWN = 5

/** What the one row of results never attempted says. */
export const NOT_DONE_FOLDED = 'Not attempted: the run stopped before them (--json and the report list each).'

/**
 * The results as a terminal table shows them: those never attempted (`not_done`), when there are
 * more than NOT_DONE_SHOWN, as one row made by `folded` from their count, where the first of them
 * was; every other result as it is.
 */
export function foldNotDone<T extends { status?: unknown }>(rows: T[], folded: (count: number) => T): T[] {
  const count = rows.filter((row) => row.status === 'not_done').length
  if (count <= NOT_DONE_SHOWN) return rows
  const first = rows.findIndex((row) => row.status === 'not_done')
  return rows.flatMap((row, i) => (row.status !== 'not_done' ? [row] : i === first ? [folded(count)] : []))
}

/**
 * On a terminal: the rows of the ID, RESULT, ERROR table, the result green when done, yellow when
 * not tried, else red; the ids never attempted folded into one row (foldNotDone).
 */
export function bulkRows(results: BulkRow[], colour: boolean): string[][] {
  const colourFor = (r: BulkRow) => (r.ok ? 32 : r.status === 'not_done' ? 33 : 31)
  const paint = (r: BulkRow) => {
    const text = sanitizeText(r.status)
    return colour ? `\u001b[${colourFor(r)}m${text}\u001b[39m` : text
  }
  const rows = foldNotDone(results, (count) => ({
    id: `(${count} ids)`,
    ok: false,
    status: 'not_done',
    error: NOT_DONE_FOLDED,
  }))
  return rows.map((r) => [sanitizeText(r.id), paint(r), sanitizeText(r.error ?? '')])
}

/**
 * What a bulk run came to (`links delete`, `subs cancel`, `links create --from-csv`): one result
 * per id or row, then the words under them. The base command prints it; `pay mcp` reads it.
 */
export interface BulkOutcome {
  /** One result per id (`{id, ok, status, error}`), or per row of a create, in the input's order. */
  rows: BulkRow[] | Rec[]
  /** The rows are a create's, shown as a list in this view (not as ID, RESULT, ERROR). */
  rowsView?: View
  /** Rows the service refused, with its field errors, said under their line on stderr. */
  refused?: { line: number; errors: FieldErrors }[]
  /** The counts in words, which the exit code agrees with: `Of 3 subscriptions: 2 cancelled, …`. */
  summary?: string
  /** Where the report went, or what of it could not be written (a warning). */
  report?: { written: string } | { unwritten: string }
  /** A warning after the summary (rows whose POST may have reached the service). */
  warning?: string
  /** The run's exit: interrupted, stopped, some not done; undefined when all is done. */
  failure?: PayError
  /** Nothing was left to do: said instead of results (`[]` under --json). */
  nothing?: string
  /** A dry run: the plan was shown, nothing was sent, nothing more to print. */
  planOnly?: boolean
}
