import { usageError } from '../errors.js'
import type { BulkOutcome } from '../render/bulk-rows.js'
import type { View } from '../render/views.js'
import type { Rec } from '../values.js'
import { agree, type LookUp, type WorkflowContext } from './consent.js'
import { shellWord } from './ids.js'
import { idsInput, type RunInput, sameTarget } from './meta.js'
import { lastRows, type ReadReport, Report, type ReportTarget, reportTime } from './report.js'
import { type BulkResult, bulkOutcome, countsLine, runWorkflow } from './runner.js'

/** What one bulk command does to each id (cancel, delete), and how it speaks of it. */
export interface ByIdAction {
  /** "pay subs cancel": the report's command. */
  command: string
  action: string
  /** The status of an id it did: "cancelled", "deleted". */
  done: string
  /** What Ctrl-C stops: "cancellations", "deletions". */
  acts: string
  view: View
  irreversible?: boolean
  /** Statuses a report may hold that need nothing more on --resume; the summary counts each. */
  doneStatuses: string[]
  lookUp: LookUp
  /** The report's columns after id, ok, status, error and at; and their values for a record. */
  columns: string[]
  describe: (record: Rec) => Record<string, string>
  /**
   * Does it to one id: its status, and the record when one was read (for the report). `known` is
   * what the plan read of it; `wantRecord`: a report is written, so read the record if need be.
   */
  work(id: string, known: Rec | undefined, wantRecord: boolean): Promise<{ status: string; record?: Rec }>
  /**
   * On --resume, told of each result: one that found the record already in the state the action
   * makes (`already_cancelled`) is written to the journal, so that a change the killed run left
   * with no outcome is shown as found, not unknown.
   */
  found?: (result: BulkResult) => void
}

export interface ByIdJob extends WorkflowContext {
  ids: string[]
  /** Where the ids came from (undefined: none given, a --resume alone). */
  input?: RunInput
  /** --report FILE, and what to do if it exists. */
  report?: ReportTarget
  /** --resume REPORT: what an earlier run recorded; --force resumes it against another target. */
  resume?: { file: string; report: ReadReport; force: boolean; bom?: boolean }
}

/**
 * The bulk run by id shared by `subs cancel`, `links delete` and `subs delete`: ids an earlier
 * run recorded done are skipped (--resume), the plan is agreed to, then every id is worked on
 * with bounded concurrency, a progress bar on a terminal and Ctrl-C stopping new work cleanly;
 * each result is written to the report the moment it is known; one result per id; a summary
 * whose counts the exit code agrees with.
 */
export async function actOnIds(action: ByIdAction, job: ByIdJob): Promise<BulkOutcome> {
  const { out } = job
  Report.check(job.report)
  const { todo, doneBefore, all, input } = resumeFrom(action, job)
  const other = otherInput(job)
  if (other) out.warn(other)
  if (job.resume && !job.resume.report.meta && !job.input) {
    out.warn(
      `${job.resume.file} has no .meta.json beside it (an earlier pay wrote none), so pay cannot tell whether its run ` +
        'finished: if it was killed, the ids it never reached are not in it. Give the input again with --resume to be sure.',
    )
  }
  if (doneBefore > 0 && job.resume) {
    const noun = doneBefore === 1 ? action.view.noun : action.view.plural
    out.notice(`Skipping ${doneBefore} ${noun} recorded done in ${job.resume.file}.`)
  }
  if (todo.length === 0) return { rows: [], nothing: `Nothing to ${action.action}.` }
  const agreed = await agree(todo, action, job, action.lookUp)
  if (!agreed) return { rows: [], planOnly: true }

  const reportTo = job.resume
    ? { file: job.resume.file, mode: 'append' as const, bom: job.resume.bom }
    : job.report
  const spec = { command: action.command, columns: [...BASE_COLUMNS, ...action.columns], key: 'id' as const }
  const report = reportTo && Report.open(reportTo, spec, { target: job.target, input })
  const records = new Map(agreed.records)
  const record = (result: BulkResult) => {
    report?.write(reportRow(action, result, records.get(result.id)))
    if (job.resume) action.found?.(result)
  }

  const run = await runWorkflow(
    agreed.ids,
    async (id) => {
      const outcome = await action.work(id, records.get(id), report !== undefined)
      if (outcome.record) records.set(id, outcome.record)
      return outcome.status
    },
    { concurrency: job.concurrency, skipped: agreed.skipped, order: todo, acts: action.acts, record },
    job,
  )
  const words = { ...action.view, done: action.done }
  const problem = bulkOutcome(run, words)
  const unwritten = report?.finish(all, runOutcome(run, problem?.exitCode))

  const earlier = doneBefore > 0 ? `; ${doneBefore} done in an earlier run` : ''
  return {
    rows: run.results,
    summary: `${countsLine(run.results, action.doneStatuses, words)}${earlier}.`,
    report: reportWritten(report, unwritten),
    failure: problem,
  }
}

/** Where the report went, or why part of it could not be written. */
export function reportWritten(
  report: { file: string } | undefined,
  unwritten: string | undefined,
): BulkOutcome['report'] {
  if (unwritten) return { unwritten }
  return report ? { written: report.file } : undefined
}

/** The columns every id report starts with. */
const BASE_COLUMNS = ['id', 'ok', 'status', 'error', 'at']

/** How a run ended, for the closing mark of its report. */
export function runOutcome(
  run: { interrupted: boolean; authFailure?: unknown; serviceDown?: unknown },
  exit?: number,
) {
  if (run.interrupted) return 'interrupted'
  if (run.authFailure) return 'refused'
  if (run.serviceDown) return 'stopped'
  return exit === undefined ? 'done' : 'partial'
}

/**
 * The ids still to do, every id of the run in order, and the run's input. On --resume: the
 * report must be of this command, made against this target (unless --force), and, when its run
 * never ended (a kill -9), given its input again (the report lacks every id it never reached);
 * then every id the report names and those given again, less those whose last recorded status
 * needs nothing more (they get no request at all).
 */
function resumeFrom(action: ByIdAction, job: ByIdJob) {
  const input = [...new Set(job.ids)]
  if (!job.resume) return { todo: input, doneBefore: 0, all: input, input: job.input ?? idsInput('', input) }
  const { file, report } = job.resume
  const last = lastRows(report, 'id')
  checkResumable(action.command, job, [...last.keys()])
  const all = [...new Set([...last.keys(), ...input])]
  const done = (id: string) => action.doneStatuses.includes(last.get(id)?.status ?? '')
  // Given its input again, the run's input is that and what the report holds: the same ids when
  // they are the run's own.
  const runInput: RunInput = job.input
    ? idsInput(job.input.source, all)
    : (report.meta?.input ?? idsInput(`--resume ${shellWord(file)}`, all))
  return { todo: all.filter((id) => !done(id)), doneBefore: all.filter(done).length, all, input: runInput }
}

/** Refuses a --resume of another command's report, or (without --force) of another target. */
export function checkResumeTarget(
  command: string,
  resume: { file: string; report: ReadReport; force: boolean },
  target: { profile: string; baseUrl: string },
): void {
  const { file, report, force } = resume
  const { meta, heading } = report
  const wrote = meta?.command ?? heading?.command
  if (wrote !== undefined && wrote !== command) {
    throw usageError(`--resume: ${file} is a report of \`${wrote}\`, not of \`${command}\`.`)
  }
  const was = meta ? { profile: meta.profile, baseUrl: meta.base_url } : heading
  if (was && !force && !sameTarget(was, target)) {
    throw usageError(
      `--resume: ${file} was written against profile ${was.profile} at ${was.baseUrl}; this run goes to profile ${target.profile} at ${target.baseUrl}.`,
      'Pass --force to resume it there all the same.',
    )
  }
}

/**
 * Refuses a --resume as checkResumeTarget does, and one of a run cut short (no closing mark)
 * given no input, unless its report names every id of that input (a run that was itself a resume,
 * or one that had written every id before it was killed): then the report alone says what is left.
 */
function checkResumable(command: string, job: ByIdJob, recorded: string[]): void {
  if (!job.resume) return
  checkResumeTarget(command, job.resume, job.target)
  const { file, report } = job.resume
  const meta = report.meta
  if (!meta || meta.finished_at || job.input) return
  const { count, source, sha256 } = meta.input
  if (idsInput('', recorded).sha256 === sha256) {
    job.out.notice(
      `The run in ${file} did not end (it was stopped before it could close its report), but the report names every one of its ${count} ids: resuming from the report alone.`,
    )
    return
  }
  const stdin = source === '-'
  const names =
    recorded.length < count
      ? `names ${recorded.length} of its ${count} ids`
      : `names ${recorded.length} ids, not the ${count} of its input`
  throw usageError(
    `The run in ${file} did not end (it was stopped before it could close its report), and the report ${names}; give the ${stdin ? 'ids again on stdin' : 'input again'}: ${source} --resume ${shellWord(file)}`,
    'Without them pay cannot tell which ids that run never reached.',
  )
}

/** A warning when a run cut short is resumed with other ids than it was given. */
function otherInput(job: ByIdJob): string | undefined {
  const meta = job.resume?.report.meta
  if (!meta || meta.finished_at || !job.input || job.input.sha256 === meta.input.sha256) return undefined
  return (
    `The ids given are not the input of the run in ${job.resume?.file} (${meta.input.count} ids, ${meta.input.source}), ` +
    'which stopped before its end: those of its ids it never reached and that you did not give again stay undone.'
  )
}

function reportRow(action: ByIdAction, result: BulkResult, record: Rec | undefined): Record<string, string> {
  return {
    id: result.id,
    ok: String(result.ok),
    status: result.status,
    error: result.error ?? '',
    at: reportTime(),
    ...(record ? action.describe(record) : {}),
  }
}
