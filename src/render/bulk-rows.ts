import { sanitizeText } from '../values.js'
import { sanitizeCell } from './format.js'

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

/** On a terminal: the rows of the ID, RESULT, ERROR table, the result green when done, yellow when not tried, else red. */
export function bulkRows(results: BulkRow[], colour: boolean): string[][] {
  const colourFor = (r: BulkRow) => (r.ok ? 32 : r.status === 'not_done' ? 33 : 31)
  const paint = (r: BulkRow) => {
    const text = sanitizeText(r.status)
    return colour ? `\u001b[${colourFor(r)}m${text}\u001b[39m` : text
  }
  return results.map((r) => [sanitizeText(r.id), paint(r), sanitizeText(r.error ?? '')])
}
