import fs from 'node:fs'
import type { PayApi } from '../../api/client.js'
import { checkResumeTarget, reportWritten, runOutcome } from '../../bulk/by-id.js'
import { confirmPlan, type WorkflowContext } from '../../bulk/consent.js'
import { shellWord } from '../../bulk/ids.js'
import { sha256 } from '../../bulk/meta.js'
import { type ReadReport, Report, type ReportTarget, reportOptions, reportTime } from '../../bulk/report.js'
import {
  type BulkResult,
  bulkOutcome,
  countsLine,
  reasonOf,
  runWorkflow,
  type Skipped,
} from '../../bulk/runner.js'
import { type FieldErrors, PayError, usageError, validationError } from '../../errors.js'
import type { BulkOutcome } from '../../render/bulk-rows.js'
import { type RunContext, workflowOf } from '../../runtime/context.js'
import { randomUuid } from '../../shared/crypto.js'
import { plain, type Rec, sanitizeText } from '../../values.js'
import { type InputRow, previousRun, readRows } from './csv-rows.js'
import { LINK_FIELDS } from './fields.js'
import { CREATE_RESULT_VIEW, describeLink, LINK_VIEW } from './view.js'

export interface CsvCreateJob extends WorkflowContext {
  /** The CSV text, and where it came from (a file name, or "stdin"). */
  text: string
  source: string
  /** Send the valid rows even when some are invalid (those are reported, not sent). */
  skipInvalid: boolean
  /** On --resume, send again the rows whose POST may have reached the service (same key). */
  retryUnknown: boolean
  report?: ReportTarget
  resume?: { file: string; report: ReadReport; force: boolean }
}

const COMMAND = 'pay links create --from-csv'

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
 * `links create --from-csv FILE` (- for stdin), with what else the command line asked: the CSV
 * read, the API client of the run (cli/context.ts), then createLinksFromCsv.
 */
export async function createLinksFromCsvFile(
  options: {
    source: string
    concurrency: number
    'skip-invalid'?: boolean
    'retry-unknown'?: boolean
  } & Parameters<typeof reportOptions>[0],
  context: RunContext,
): Promise<BulkOutcome> {
  const input = await readCsvInput(options.source, context.io)
  const { api, target } = await context.api()
  return createLinksFromCsv(api, {
    ...input,
    concurrency: options.concurrency,
    skipInvalid: options['skip-invalid'] ?? false,
    retryUnknown: options['retry-unknown'] ?? false,
    ...reportOptions(options),
    ...workflowOf(context, target),
  })
}

/** The columns of a create report: the result of each row, and enough of the row to know it again. */
export const CREATE_REPORT_COLUMNS = [
  'line',
  'ok',
  'status',
  'error',
  '_id',
  'payment_url',
  'at',
  'email',
  'title',
  'amount',
  'currency',
  'idempotency_key',
  'row_hash',
]

/** How many rows a confirmation describes one by one. */
const DESCRIBE_LIMIT = 20

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
 * have reached the service is `unknown`, sent again (with the same key) only on --retry-unknown,
 * and counted (exit 7) until it is.
 */
export async function createLinksFromCsv(api: PayApi, job: CsvCreateJob): Promise<BulkOutcome> {
  const { out, io } = job
  Report.check(job.report)
  if (job.resume) checkResumeTarget(COMMAND, job.resume, job.target)
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
  const previous = previousRun(job.resume, job.source, rows, job.retryUnknown)
  const todo = rows.filter((row) => !row.problems && previous.plan(row))
  const { held } = previous
  if (previous.created + held.length > 0 && job.resume) {
    out.notice(
      `Skipping ${previous.created} ${previous.created === 1 ? 'row' : 'rows'} recorded created` +
        (held.length > 0
          ? ` and ${held.length} whose POST may have reached the service (--retry-unknown sends them again)`
          : '') +
        ` in ${job.resume.file}.`,
    )
  }
  if (todo.length + held.length + invalid.length === 0) return { rows: [], nothing: 'Nothing to create.' }
  if (todo.length > 0) {
    const plan = {
      action: 'create',
      done: 'created',
      noun: LINK_VIEW.noun,
      plural: LINK_VIEW.plural,
      ids: todo.map((row) => `line ${row.line}`),
      target: job.target,
      // Text from the CSV reaches the terminal: control characters shown, never written raw.
      details:
        todo.length <= DESCRIBE_LIMIT
          ? todo.map((row) => sanitizeText(`  line ${row.line}  ${describeLink(row.values)}`))
          : [
              sanitizeText(
                `  rows:     lines ${todo[0].line}–${todo[todo.length - 1].line} of ${job.source}`,
              ),
            ],
    }
    if (!(await confirmPlan(plan, job.consent, out, io))) return { rows: [], planOnly: true }
  } else if (job.consent.dryRun) {
    out.stderr.write('Nothing to send. Dry run: nothing was changed.\n')
    return { rows: [], planOnly: true }
  }

  const reportTo = job.resume ? { file: job.resume.file, mode: 'append' as const } : job.report
  const input = {
    source: `--from-csv ${job.source === 'stdin' ? '-' : shellWord(job.source)}`,
    count: rows.length,
    sha256: sha256(job.text),
  }
  const report =
    reportTo &&
    Report.open(
      reportTo,
      { command: COMMAND, columns: CREATE_REPORT_COLUMNS, key: 'line' },
      { target: job.target, input },
    )
  const byLine = new Map(rows.map((row) => [String(row.line), row]))
  const keys = new Map(
    [...todo, ...held].map((row) => [
      String(row.line),
      previous.recorded(row)?.idempotency_key || randomUuid(),
    ]),
  )
  const created = new Map<string, Rec>()
  const record = (line: string, status: string, ok: boolean, error: string | null) => {
    const row = byLine.get(line)
    const link = created.get(line)
    report?.write({
      line,
      ok: String(ok),
      status,
      error: error ?? '',
      _id: link ? plain(link._id) : '',
      payment_url: link ? plain(link.payment_url) : '',
      at: reportTime(),
      email: plain(row?.values.email),
      title: plain(row?.values.title),
      amount: plain(row?.values.amount),
      currency: plain(row?.values.currency),
      idempotency_key: keys.get(line) ?? '',
      row_hash: row?.hash ?? '',
    })
  }

  const run = await runWorkflow(
    todo.map((row) => String(row.line)),
    async (line) => {
      // Written before the request: a run killed now leaves the key this row was sent with.
      record(line, 'sending', false, null)
      const link = await api.send('createLink', {
        body: LINK_FIELDS.body(byLine.get(line)?.values ?? {}),
        idempotencyKey: keys.get(line),
      })
      created.set(line, link)
      return 'created'
    },
    {
      concurrency: job.concurrency,
      skipped: [...invalid.map(invalidResult), ...held.map(heldResult)],
      order: [...todo, ...invalid, ...held].sort((a, b) => a.line - b.line).map((row) => String(row.line)),
      acts: 'rows are sent',
      record: (result) => record(result.id, result.status, result.ok, result.error),
    },
    job,
  )
  const words = { noun: 'payment link', plural: 'payment links', done: 'created' }
  const problem = bulkOutcome(run, words)
  const unwritten = report?.finish(
    rows.map((row) => String(row.line)),
    runOutcome(run, problem?.exitCode),
  )

  const results: RowResult[] = run.results.map((result) => rowResult(result, created, keys, run.errors))
  const refused = results.flatMap((r) =>
    r.errors && r.status === 'failed' ? [{ line: r.line, errors: r.errors as FieldErrors }] : [],
  )
  const earlier = job.resume && previous.created > 0 ? `; ${previous.created} created in an earlier run` : ''
  const unknown = results.filter((r) => r.status === 'unknown').length
  return {
    rows: results,
    rowsView: CREATE_RESULT_VIEW,
    refused,
    summary: `${countsLine(run.results, ['created'], words)}${earlier}.`,
    report: reportWritten(report, unwritten),
    warning:
      unknown > 0
        ? `${unknown} ${unknown === 1 ? 'row' : 'rows'} may have been created all the same (unknown). ` +
          'Check with `pay links list`; resume with --resume REPORT --retry-unknown to send them again with the same Idempotency-Key.'
        : undefined,
    failure: problem,
  }
}

/** A row that failed the local checks, sent with --skip-invalid: reported, never sent. */
const invalidResult = (row: InputRow): Skipped => ({
  result: {
    id: String(row.line),
    ok: false,
    status: 'invalid',
    error: reasonOf(validationError(row.problems ?? {})),
  },
  error: validationError(row.problems ?? {}),
})

/** A row an earlier run may have created (unknown, or sending at a kill -9): not sent again. */
const heldResult = (row: InputRow): Skipped => {
  const error = new PayError(
    'Not sent again: its POST may have reached the service (--retry-unknown sends it again with the same Idempotency-Key).',
    { kind: 'partial' },
  )
  return { result: { id: String(row.line), ok: false, status: 'unknown', error: error.message }, error }
}

function rowResult(
  result: BulkResult,
  created: Map<string, Rec>,
  keys: Map<string, string>,
  errors: Map<string, unknown>,
): RowResult {
  const link = created.get(result.id)
  const error = errors.get(result.id)
  const fieldErrors = error instanceof PayError && result.status === 'failed' ? error.errors : undefined
  return {
    line: Number(result.id),
    ok: result.ok,
    status: result.status,
    _id: link ? plain(link._id) : null,
    payment_url: link ? plain(link.payment_url) : null,
    error: result.error,
    idempotency_key: keys.get(result.id) ?? null,
    ...(fieldErrors ? { errors: fieldErrors } : {}),
  }
}
