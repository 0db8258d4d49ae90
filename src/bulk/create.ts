import type { PayApi } from '../api/client.js'
import { type FieldErrors, PayError, validationError } from '../errors.js'
import type { BulkOutcome } from '../render/bulk-rows.js'
import type { View } from '../render/views.js'
import { type RunContext, workflowOf } from '../runtime/context.js'
import { randomUuid } from '../shared/crypto.js'
import { plain, type Rec, sanitizeText } from '../values.js'
import { checkResumeTarget, reportWritten, runOutcome } from './by-id.js'
import { confirmPlan, type WorkflowContext } from './consent.js'
import {
  type InputRow,
  previousRun,
  type RowFields,
  type RowValues,
  readCsvInput,
  readRows,
} from './create-rows.js'
import { shellWord } from './ids.js'
import { sha256 } from './meta.js'
import { type ReadReport, Report, type ReportTarget, reportOptions, reportTime } from './report.js'
import { type BulkResult, bulkOutcome, countsLine, reasonOf, runWorkflow, type Skipped } from './runner.js'

/**
 * The one bulk create from a spreadsheet (`links create --from-csv`, `subs create --from-csv`):
 * every row checked before anything is sent, a plan agreed to, then one POST per row with
 * bounded concurrency, each with its own Idempotency-Key written to the report before the
 * request (so that a run killed mid-request leaves the key to resume with); a result per row;
 * rows recorded created are never sent again, and a row whose POST may have reached the service
 * is `unknown`, sent again (with the same key) only on --retry-unknown, and counted (exit 7)
 * until it is. It knows no noun: the noun hands it its fields, its words and its request.
 */
export interface CsvCreation {
  /** `pay links create --from-csv`: the report's command. */
  command: string
  /** The records made: their noun and plural (`payment link`). */
  view: View
  /** The view of the result rows (line, status, _id, …), on a terminal. */
  rowsView: View
  fields: RowFields
  /** One line (not yet sanitised) for the plan: what a row would make. */
  describe: (values: RowValues) => string
  /** The fields of the record made kept in the results and the report after its `_id` (`payment_url`). */
  madeColumns: string[]
  /** The row's fields the report keeps, to know it again (`email`, `title`, `amount`, `currency`). */
  rowColumns: string[]
  /** The request: the record made from a row, sent with its Idempotency-Key. */
  create: (values: RowValues, idempotencyKey: string) => Promise<Rec>
  /** Where to look for records an unknown row may have made: `pay links list`. */
  listCommand: string
}

export interface CsvCreateJob extends WorkflowContext {
  /** The CSV text, and where it came from (a file name, or "stdin"). */
  text: string
  source: string
  /** Send the valid rows even when some are invalid (those are reported, not sent). */
  skipInvalid: boolean
  /** On --resume, send again the rows whose POST may have reached the service (same key). */
  retryUnknown: boolean
  report?: ReportTarget
  resume?: { file: string; report: ReadReport; force: boolean; bom?: boolean }
}

/** How many rows a confirmation describes one by one. */
const DESCRIBE_LIMIT = 20

/** The columns of a create report: the result of each row, and enough of the row to know it again. */
export const createReportColumns = (creation: Pick<CsvCreation, 'madeColumns' | 'rowColumns'>) => [
  'line',
  'ok',
  'status',
  'error',
  '_id',
  ...creation.madeColumns,
  'at',
  ...creation.rowColumns,
  'idempotency_key',
  'row_hash',
]

/** The flags of a `--from-csv` run, as the command line gives them. */
export type FromCsvOptions = {
  source: string
  concurrency: number
  'skip-invalid'?: boolean
  'retry-unknown'?: boolean
} & Parameters<typeof reportOptions>[0]

/**
 * `--from-csv FILE` (- for stdin), with what else the command line asked: the CSV read, the API
 * client of the run, then createFromCsv with what the noun makes of that client.
 */
export async function createFromCsvFile(
  creation: (api: PayApi) => CsvCreation,
  options: FromCsvOptions,
  context: RunContext,
): Promise<BulkOutcome> {
  const input = await readCsvInput(options.source, context.io)
  const { api, target } = await context.api()
  return createFromCsv(creation(api), {
    ...input,
    concurrency: options.concurrency,
    skipInvalid: options['skip-invalid'] ?? false,
    retryUnknown: options['retry-unknown'] ?? false,
    ...reportOptions(options),
    ...workflowOf(context, target),
  })
}

export async function createFromCsv(creation: CsvCreation, job: CsvCreateJob): Promise<BulkOutcome> {
  const { out, io } = job
  Report.check(job.report)
  if (job.resume) checkResumeTarget(creation.command, job.resume, job.target)
  const rows = readRows(job.text, job.source, creation.fields)
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
      noun: creation.view.noun,
      plural: creation.view.plural,
      ids: todo.map((row) => `line ${row.line}`),
      target: job.target,
      // Text from the CSV reaches the terminal: control characters shown, never written raw.
      details:
        todo.length <= DESCRIBE_LIMIT
          ? todo.map((row) => sanitizeText(`  line ${row.line}  ${creation.describe(row.values)}`))
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

  const reportTo = job.resume
    ? { file: job.resume.file, mode: 'append' as const, bom: job.resume.bom }
    : job.report
  const input = {
    source: `--from-csv ${job.source === 'stdin' ? '-' : shellWord(job.source)}`,
    count: rows.length,
    sha256: sha256(job.text),
  }
  const columns = createReportColumns(creation)
  const report =
    reportTo &&
    Report.open(reportTo, { command: creation.command, columns, key: 'line' }, { target: job.target, input })
  const byLine = new Map(rows.map((row) => [String(row.line), row]))
  const keys = new Map(
    [...todo, ...held].map((row) => [
      String(row.line),
      previous.recorded(row)?.idempotency_key || randomUuid(),
    ]),
  )
  const made = new Map<string, Rec>()
  const record = (line: string, status: string, ok: boolean, error: string | null) => {
    const row = byLine.get(line)
    const record = made.get(line)
    report?.write({
      line,
      ok: String(ok),
      status,
      error: error ?? '',
      _id: record ? plain(record._id) : '',
      ...Object.fromEntries(
        creation.madeColumns.map((column) => [column, record ? plain(record[column]) : '']),
      ),
      at: reportTime(),
      ...Object.fromEntries(creation.rowColumns.map((column) => [column, plain(row?.values[column])])),
      idempotency_key: keys.get(line) ?? '',
      row_hash: row?.hash ?? '',
    })
  }

  const run = await runWorkflow(
    todo.map((row) => String(row.line)),
    async (line) => {
      // Written before the request: a run killed now leaves the key this row was sent with.
      record(line, 'sending', false, null)
      made.set(line, await creation.create(byLine.get(line)?.values ?? {}, keys.get(line) ?? randomUuid()))
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
  const words = { noun: creation.view.noun, plural: creation.view.plural, done: 'created' }
  const problem = bulkOutcome(run, words)
  const unwritten = report?.finish(
    rows.map((row) => String(row.line)),
    runOutcome(run, problem?.exitCode),
  )

  const results = run.results.map((result) => rowResult(creation, result, made, keys, run.errors))
  const refused = results.flatMap((r) =>
    r.errors && r.status === 'failed' ? [{ line: r.line, errors: r.errors as FieldErrors }] : [],
  )
  const earlier = job.resume && previous.created > 0 ? `; ${previous.created} created in an earlier run` : ''
  const unknown = results.filter((r) => r.status === 'unknown').length
  return {
    rows: results,
    rowsView: creation.rowsView,
    refused,
    summary: `${countsLine(run.results, ['created'], words)}${earlier}.`,
    report: reportWritten(report, unwritten),
    warning:
      unknown > 0
        ? `${unknown} ${unknown === 1 ? 'row' : 'rows'} may have been created all the same (unknown). ` +
          `Check with \`${creation.listCommand}\`; resume with --resume REPORT --retry-unknown to send them again with the same Idempotency-Key.`
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

/** One result per row, as --json gives it: `{line, ok, status, _id, …made, error, idempotency_key}`. */
function rowResult(
  creation: CsvCreation,
  result: BulkResult,
  made: Map<string, Rec>,
  keys: Map<string, string>,
  errors: Map<string, unknown>,
): Rec & { line: number; status: string } {
  const record = made.get(result.id)
  const error = errors.get(result.id)
  const fieldErrors = error instanceof PayError && result.status === 'failed' ? error.errors : undefined
  return {
    line: Number(result.id),
    ok: result.ok,
    status: result.status,
    _id: record ? plain(record._id) : null,
    ...Object.fromEntries(
      creation.madeColumns.map((column) => [column, record ? plain(record[column]) : null]),
    ),
    error: result.error,
    idempotency_key: keys.get(result.id) ?? null,
    ...(fieldErrors ? { errors: fieldErrors } : {}),
  }
}
