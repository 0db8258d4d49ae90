import type { Target } from '../cli/base-command.js'
import { ProgressBar } from '../render/progress.js'
import type { View } from '../render/views.js'
import { isRecord, plain, type Rec } from '../values.js'
import { agree, type LookUp, type WorkflowContext } from './consent.js'
import { CsvReport, type ReadReport, type ReportMode } from './report.js'
import { type BulkResult, bulkOutcome, runBulk } from './runner.js'

/** What one bulk command does to each id (cancel, delete), and how it speaks of it. */
export interface ByIdAction {
  /** "pay subs cancel", for the report's heading. */
  command: string
  action: string
  /** The status of an id it did: "cancelled", "deleted". */
  done: string
  /** What Ctrl-C stops: "cancellations", "deletions". */
  acts: string
  view: View
  irreversible?: boolean
  /** Statuses a report may hold that need nothing more on --resume. */
  doneStatuses: string[]
  /** Statuses the summary line always counts, in its order. */
  counted: string[]
  lookUp: LookUp
  /** Does it to one id: its status, and the record when one was read (for the report). */
  work(id: string): Promise<{ status: string; record?: Rec }>
}

export interface ByIdJob extends WorkflowContext {
  ids: string[]
  /** --report FILE, and what to do if it exists. */
  report?: { file: string; mode: ReportMode }
  /** --resume REPORT: what an earlier run recorded (appended to). */
  resume?: { file: string; report: ReadReport }
}

/** The columns of an id report: the result, then what the record was, when it was read. */
export const ID_REPORT_COLUMNS = ['id', 'ok', 'status', 'error', 'at', 'email', 'package']

/**
 * The bulk run by id shared by `subs cancel`, `links delete` and `subs delete`: ids an earlier
 * run recorded done are skipped (--resume), the plan is agreed to, then every id is worked on
 * with bounded concurrency, a progress bar on a terminal and Ctrl-C stopping new work cleanly;
 * each result is written to the report the moment it is known; one result per id; a summary.
 */
export async function actOnIds(action: ByIdAction, job: ByIdJob): Promise<void> {
  const { out, io } = job
  CsvReport.checkFree(job.report)
  const { todo, doneBefore } = resumeFrom(action, job)
  if (doneBefore > 0 && job.resume) {
    out.stderr.write(
      `Skipping ${doneBefore} ${plural(action.view, doneBefore)} recorded done in ${job.resume.file}.\n`,
    )
  }
  if (todo.length === 0) {
    out.nothingToDo(`Nothing to ${action.action}.`)
    return
  }
  const agreed = await agree(todo, action, job, action.lookUp)
  if (!agreed) return

  const reportTo = job.resume ? { file: job.resume.file, mode: 'append' as const } : job.report
  const report =
    reportTo &&
    CsvReport.open(reportTo.file, ID_REPORT_COLUMNS, reportTo.mode, {
      command: job.resume ? `${action.command} --resume` : action.command,
      ...runTarget(job.target),
    })
  const records = new Map<string, Rec>()
  const record = (result: BulkResult) => report?.write(reportRow(result, records.get(result.id)))

  const stop = new AbortController()
  const stopListening = io.onInterrupt(() => {
    stop.abort()
    out.stderr.write(
      `\nStopping: no new ${action.acts}; waiting for those in flight (Ctrl-C again to quit now).\n`,
    )
  })
  const progress = io.stderrIsTerminal ? new ProgressBar(out.stderr, agreed.ids.length) : undefined
  let run: Awaited<ReturnType<typeof runBulk>>
  try {
    run = await runBulk(
      agreed.ids,
      async (id) => {
        const outcome = await action.work(id)
        if (outcome.record) records.set(id, outcome.record)
        return outcome.status
      },
      {
        concurrency: job.concurrency,
        stop: stop.signal,
        skipped: agreed.skipped,
        order: todo,
        onResult: (result) => {
          record(result)
          progress?.tick(result.status)
        },
      },
    )
  } finally {
    stopListening()
    progress?.clear()
  }
  const started = new Set(agreed.ids)
  for (const result of run.results)
    if (result.status === 'not_done' || !started.has(result.id)) record(result)
  report?.close()

  out.bulk(run.results)
  out.stderr.write(`${summaryLine(run.results, action.counted, doneBefore)}\n`)
  if (report) out.stderr.write(`Report written to ${report.file}\n`)
  const problem = bulkOutcome(run, action.view.noun, action.view.plural, action.done)
  if (problem) throw problem
}

/**
 * The ids still to do. On --resume: every id the report names, then the ones given again, less
 * those whose last recorded status needs nothing more (they get no request at all).
 */
function resumeFrom(action: ByIdAction, job: ByIdJob): { todo: string[]; doneBefore: number } {
  const input = [...new Set(job.ids)]
  if (!job.resume) return { todo: input, doneBefore: 0 }
  const last = new Map<string, string>()
  for (const row of job.resume.report.rows) if (row.values.id) last.set(row.values.id, row.values.status)
  const all = [...new Set([...last.keys(), ...input])]
  const done = (id: string) => action.doneStatuses.includes(last.get(id) ?? '')
  return { todo: all.filter((id) => !done(id)), doneBefore: all.filter(done).length }
}

function reportRow(result: BulkResult, record: Rec | undefined): Record<string, string> {
  const pkg = record && isRecord(record.package) ? record.package : undefined
  return {
    id: result.id,
    ok: String(result.ok),
    status: result.status,
    error: result.error ?? '',
    at: new Date().toISOString(),
    email: record ? plain(record.email) : '',
    package: pkg ? plain(pkg.name) : '',
  }
}

const runTarget = (target: Target) => ({ profile: target.profile, baseUrl: target.baseUrl })

const plural = (view: View, count: number) => (count === 1 ? view.noun : view.plural)

/** "855 cancelled, 95 already cancelled, 50 not found, 0 failed (of 1000)." */
function summaryLine(results: BulkResult[], counted: string[], doneBefore: number): string {
  const count = (status: string) => results.filter((r) => r.status === status).length
  const parts = counted.map((status) => `${count(status)} ${status.replace(/_/g, ' ')}`)
  for (const extra of ['invalid', 'not_done']) {
    if (count(extra) > 0) parts.push(`${count(extra)} ${extra.replace(/_/g, ' ')}`)
  }
  const earlier = doneBefore > 0 ? `; ${doneBefore} done in an earlier run` : ''
  return `${parts.join(', ')} (of ${results.length})${earlier}.`
}
