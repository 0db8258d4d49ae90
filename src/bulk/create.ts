import { createHash, randomUUID } from 'node:crypto'
import type { PayApi } from '../api/client.js'
import type { LinkInput } from '../api/types.js'
import { type FieldErrors, PayError, usageError, validationError } from '../errors.js'
import { ProgressBar } from '../render/progress.js'
import type { FieldValues } from '../resources/fields.js'
import {
  CREATE_RESULT_VIEW,
  checkAmountDigits,
  describeLink,
  LINK_FIELDS,
  LINK_VIEW,
} from '../resources/links.js'
import { plain, type Rec } from '../values.js'
import { confirmPlan, type WorkflowContext } from './consent.js'
import { type CsvRow, parseCsv } from './csv.js'
import { CsvReport, type ReadReport, type ReportMode } from './report.js'
import { bulkOutcome, runBulk, type Skipped } from './runner.js'

export interface CsvCreateJob extends WorkflowContext {
  /** The CSV text, and where it came from (a file name, or "stdin"). */
  text: string
  source: string
  /** Send the valid rows even when some are invalid (those are reported, not sent). */
  skipInvalid: boolean
  /** On --resume, send again the rows whose POST may have reached the service (same key). */
  retryUnknown: boolean
  report?: { file: string; mode: ReportMode }
  resume?: { file: string; report: ReadReport }
}

/** The columns of a create report: the result of each row, and enough of the row to know it again. */
export const CREATE_REPORT_COLUMNS = [
  'line',
  'ok',
  'status',
  '_id',
  'payment_url',
  'error',
  'idempotency_key',
  'row_hash',
  'at',
  'email',
  'amount',
  'currency',
  'title',
]

/** How many rows a confirmation describes one by one. */
const DESCRIBE_LIMIT = 20

interface InputRow {
  line: number
  values: FieldValues
  hash: string
  problems?: FieldErrors
}

/** One result per row, as --json and the report give it. */
interface RowResult extends Rec {
  line: number
  ok: boolean
  status: string
  _id: string | null
  payment_url: string | null
  error: string | null
  idempotency_key: string | null
}

/**
 * `pay links create --from-csv`: every row checked before anything is sent, a plan agreed to,
 * then one POST per row with bounded concurrency, each with its own Idempotency-Key written to
 * the report before the request (so that a run killed mid-request leaves the key to resume
 * with); a result per row; rows recorded created are never sent again, and a row whose POST may
 * have reached the service is `unknown`, sent again (with the same key) only on --retry-unknown.
 */
export async function createLinksFromCsv(api: PayApi, job: CsvCreateJob): Promise<void> {
  const { out, io } = job
  CsvReport.checkFree(job.report)
  const rows = readRows(job.text, job.source)
  const invalid = rows.filter((row) => row.problems)
  if (invalid.length > 0) {
    out.invalidRows(invalid.map((row) => ({ line: row.line, errors: row.problems ?? {} })))
    if (!job.skipInvalid) {
      throw new PayError(
        `${invalid.length} of ${rows.length} rows ${invalid.length === 1 ? 'is' : 'are'} invalid; nothing was sent.`,
        { kind: 'validation', hint: 'Fix them, or pass --skip-invalid to send the valid rows only.' },
      )
    }
  }
  const previous = previousRun(job, rows)
  const todo = rows.filter((row) => !row.problems && previous.plan(row))
  if (previous.created + previous.held > 0 && job.resume) {
    out.stderr.write(
      `Skipping ${previous.created} ${previous.created === 1 ? 'row' : 'rows'} recorded created` +
        (previous.held > 0
          ? ` and ${previous.held} whose POST may have reached the service (--retry-unknown sends them again)`
          : '') +
        ` in ${job.resume.file}.\n`,
    )
  }
  if (todo.length === 0) {
    out.nothingToDo('Nothing to create.')
    return
  }
  const plan = {
    action: 'create',
    done: 'created',
    noun: LINK_VIEW.noun,
    plural: LINK_VIEW.plural,
    ids: todo.map((row) => `line ${row.line}`),
    target: job.target,
    details:
      todo.length <= DESCRIBE_LIMIT
        ? todo.map((row) => `  line ${row.line}  ${describeLink(row.values)}`)
        : [`  rows:     lines ${todo[0].line}–${todo[todo.length - 1].line} of ${job.source}`],
  }
  if (!(await confirmPlan(plan, job.consent, out, io))) return

  const reportTo = job.resume ? { file: job.resume.file, mode: 'append' as const } : job.report
  const report =
    reportTo &&
    CsvReport.open(reportTo.file, CREATE_REPORT_COLUMNS, reportTo.mode, {
      command: `pay links create --from-csv${job.resume ? ' --resume' : ''}`,
      profile: job.target.profile,
      baseUrl: job.target.baseUrl,
    })
  const byLine = new Map(rows.map((row) => [String(row.line), row]))
  const keys = new Map(todo.map((row) => [String(row.line), previous.keyOf(row) ?? randomUUID()]))
  const created = new Map<string, Rec>()
  const record = (line: string, status: string, ok: boolean, error: string | null) => {
    const row = byLine.get(line)
    const link = created.get(line)
    report?.write({
      line,
      ok: String(ok),
      status,
      _id: link ? plain(link._id) : '',
      payment_url: link ? plain(link.payment_url) : '',
      error: error ?? '',
      idempotency_key: keys.get(line) ?? '',
      row_hash: row?.hash ?? '',
      at: new Date().toISOString(),
      email: plain(row?.values.email),
      amount: plain(row?.values.amount),
      currency: plain(row?.values.currency),
      title: plain(row?.values.title),
    })
  }

  const stop = new AbortController()
  const stopListening = io.onInterrupt(() => {
    stop.abort()
    out.stderr.write(
      '\nStopping: no new rows are sent; waiting for those in flight (Ctrl-C again to quit now).\n',
    )
  })
  const progress = io.stderrIsTerminal ? new ProgressBar(out.stderr, todo.length) : undefined
  const skipped: Skipped[] = invalid.map((row) => ({
    result: {
      id: String(row.line),
      ok: false,
      status: 'invalid',
      error: 'The row did not pass the local checks.',
    },
    error: validationError(row.problems ?? {}),
  }))
  let run: Awaited<ReturnType<typeof runBulk>>
  try {
    run = await runBulk(
      todo.map((row) => String(row.line)),
      async (line) => {
        // Written before the request: a run killed now leaves the key this row was sent with.
        record(line, 'sending', false, null)
        const link = await api.createLink(byLine.get(line)?.values as unknown as LinkInput, {
          idempotencyKey: keys.get(line),
        })
        created.set(line, link)
        return 'created'
      },
      {
        concurrency: job.concurrency,
        stop: stop.signal,
        skipped,
        order: [...todo, ...invalid].sort((a, b) => a.line - b.line).map((row) => String(row.line)),
        onResult: (result) => {
          record(result.id, result.status, result.ok, result.error)
          progress?.tick(result.status)
        },
      },
    )
  } finally {
    stopListening()
    progress?.clear()
  }
  const sent = new Set(todo.map((row) => String(row.line)))
  for (const result of run.results) {
    if (result.status === 'not_done' || !sent.has(result.id))
      record(result.id, result.status, false, result.error)
  }
  report?.close()

  const results: RowResult[] = run.results.map((result) => {
    const link = created.get(result.id)
    return {
      line: Number(result.id),
      ok: result.ok,
      status: result.status,
      _id: link ? plain(link._id) : null,
      payment_url: link ? plain(link.payment_url) : null,
      error: result.error,
      idempotency_key: sent.has(result.id) ? (keys.get(result.id) ?? null) : null,
    }
  })
  out.list(results, CREATE_RESULT_VIEW)
  const count = (status: string) => results.filter((r) => r.status === status).length
  const parts = ['created', 'failed', 'unknown', 'invalid', 'not_done']
    .filter((status, i) => i < 2 || count(status) > 0)
    .map((status) => `${count(status)} ${status.replace(/_/g, ' ')}`)
  out.stderr.write(`${parts.join(', ')} (of ${results.length}).\n`)
  if (report) out.stderr.write(`Report written to ${report.file}\n`)
  const unknown = results.filter((r) => r.status === 'unknown').length
  if (unknown > 0) {
    out.warn(
      `${unknown} ${unknown === 1 ? 'row' : 'rows'} may have been created all the same (unknown). ` +
        'Check with `pay links list`; resume with --resume REPORT --retry-unknown to send them again with the same Idempotency-Key.',
    )
  }
  const problem = bulkOutcome(run, 'payment link', 'payment links', 'created')
  if (problem) throw problem
}

/** The rows of the CSV, each checked as the service would check it. */
function readRows(text: string, source: string): InputRow[] {
  let parsed: CsvRow[]
  try {
    parsed = parseCsv(text)
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
    Object.assign(problems, LINK_FIELDS.problems(values, true))
    if (!problems.amount && !problems.currency) {
      try {
        checkAmountDigits(values)
      } catch (error) {
        Object.assign(problems, (error as PayError).errors)
      }
    }
    const hash = createHash('sha256').update(JSON.stringify(row.cells)).digest('hex').slice(0, 16)
    return { line: row.line, values, hash, ...(Object.keys(problems).length > 0 ? { problems } : {}) }
  })
}

/**
 * What an earlier run (--resume) recorded of each row, by line: the last status and the key it
 * was sent with. A row recorded created is not sent again; one recorded unknown, or still
 * `sending` (the run was killed mid-request), is sent again only on --retry-unknown, with its
 * key. The report must be of the same input: each row's hash is compared.
 */
function previousRun(job: CsvCreateJob, rows: InputRow[]) {
  const last = new Map<string, Record<string, string>>()
  for (const row of job.resume?.report.rows ?? []) if (row.values.line) last.set(row.values.line, row.values)
  for (const row of rows) {
    const recorded = last.get(String(row.line))
    if (recorded?.row_hash && recorded.row_hash !== row.hash) {
      throw usageError(
        `--resume: line ${row.line} of ${job.source} is not the row ${job.resume?.file} recorded.`,
        'Resume with the same CSV file the report was written from.',
      )
    }
  }
  const statusOf = (row: InputRow) => last.get(String(row.line))?.status
  const mayHaveArrived = (status: string | undefined) => status === 'unknown' || status === 'sending'
  return {
    created: rows.filter((row) => statusOf(row) === 'created').length,
    held: job.retryUnknown ? 0 : rows.filter((row) => mayHaveArrived(statusOf(row))).length,
    plan: (row: InputRow) => {
      const status = statusOf(row)
      if (status === 'created') return false
      return !mayHaveArrived(status) || job.retryUnknown
    },
    keyOf: (row: InputRow) => last.get(String(row.line))?.idempotency_key || undefined,
  }
}
