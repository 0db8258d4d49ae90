import { PayError } from '../errors.js'
import type { BulkRow } from '../render/bulk-rows.js'
import type { Output } from '../render/output.js'
import { ProgressBar } from '../render/progress.js'

/** One id's outcome, as printed by --json: `{id, ok, status, error}`. */
export type BulkResult = BulkRow

/** An id that was not run, with its result (not found, not an id) and the error behind it. */
export interface Skipped {
  result: BulkResult
  error: unknown
}

interface BulkOptions {
  concurrency: number
  /** Ids left out before the run, reported among the others. */
  skipped?: Skipped[]
  /** The order of the results: the input's, skipped ids included. Default: `ids`. */
  order?: string[]
  /** Once aborted, no new id is started; those in flight finish. */
  stop?: AbortSignal
  /** Called as each id finishes, in completion order. */
  onResult?: (result: BulkResult) => void
}

/** A run stops after this many failures in a row to reach the service: it has gone down. */
export const DOWN_AFTER = 10

interface BulkRun {
  /** One entry per id, in the order given; ids never started are `not_done`. */
  results: BulkResult[]
  interrupted: boolean
  /** The key was refused: the run stopped at the first 401/403. */
  authFailure?: PayError
  /**
   * The service went down: the run stopped after DOWN_AFTER failures in a row to reach it, or at
   * once at a failure that ends the run (PayError.ends).
   */
  serviceDown?: PayError
  /** The error of each failed id. */
  errors: Map<string, unknown>
}

/**
 * Turns a failure into a result: a 404 is "not_found"; a create that may have reached the service
 * (the error names its Idempotency-Key) is "unknown"; anything else "failed", with the reason (a
 * 422's field errors, `reference: The reference has already been taken.`, rather than its
 * general message).
 */
export function failedResult(id: string, error: unknown): BulkResult {
  const payError = error instanceof PayError ? error : undefined
  let status = 'failed'
  if (payError?.kind === 'not_found') status = 'not_found'
  else if (payError?.idempotencyKey) status = 'unknown'
  return {
    id,
    ok: false,
    status,
    error: payError ? reasonOf(payError) : error instanceof Error ? error.message : String(error),
  }
}

/** A failure in one line: the fields a 422 named with their messages, else the message. */
export function reasonOf(error: PayError): string {
  const fields = Object.entries(error.errors ?? {})
  if (fields.length === 0) return error.message
  return fields.map(([field, messages]) => `${field}: ${messages.join(' ')}`).join('; ')
}

/** A failure to reach the service at all (refused, reset, timed out, 5xx): a sign it is down. */
const unreachable = (error: unknown) => error instanceof PayError && error.kind === 'unavailable'

/**
 * Runs `work` for each id with at most `concurrency` in flight. Every id gets exactly one
 * result, whether it succeeded, failed, or was never started: because of `stop`, a refused key,
 * or DOWN_AFTER failures in a row to reach the service.
 */
export async function runBulk(
  ids: string[],
  work: (id: string) => Promise<string>,
  options: BulkOptions,
): Promise<BulkRun> {
  const results = new Map<string, BulkResult>()
  const errors = new Map<string, unknown>()
  let authFailure: PayError | undefined
  let serviceDown: PayError | undefined
  let downInARow = 0
  let next = 0
  const worker = async () => {
    while (next < ids.length && !options.stop?.aborted && !authFailure && !serviceDown) {
      const id = ids[next]
      next += 1
      let result: BulkResult
      try {
        result = { id, ok: true, status: await work(id), error: null }
        downInARow = 0
      } catch (error) {
        result = failedResult(id, error)
        errors.set(id, error)
        if (error instanceof PayError && error.kind === 'auth') authFailure = error
        downInARow = unreachable(error) ? downInARow + 1 : 0
        // A failure no later request can do better than (the sandbox is no longer the user's) stops it at once.
        const ends = error instanceof PayError && error.ends
        if ((downInARow >= DOWN_AFTER || ends) && !serviceDown) serviceDown = error as PayError
      }
      results.set(id, result)
      options.onResult?.(result)
    }
  }
  const workers = Math.max(1, Math.min(options.concurrency, ids.length))
  await Promise.all(Array.from({ length: workers }, worker))
  const skipped = new Map((options.skipped ?? []).map((entry) => [entry.result.id, entry]))
  for (const [id, entry] of skipped) errors.set(id, entry.error)
  return {
    results: (options.order ?? ids).map(
      (id) =>
        skipped.get(id)?.result ??
        results.get(id) ?? {
          id,
          ok: false,
          status: 'not_done',
          error: 'Not attempted: the run stopped before it.',
        },
    ),
    interrupted: Boolean(options.stop?.aborted) && results.size < ids.length,
    authFailure,
    serviceDown,
    errors,
  }
}

/** The words a run's messages use: "payment link", "payment links", "deleted". */
export interface RunWords {
  noun: string
  plural: string
  done: string
}

/** The order in which statuses that are not done are counted, in summaries and errors alike. */
const NOT_DONE_ORDER = ['not_found', 'failed', 'unknown', 'invalid', 'not_done']
const rank = (status: string) => {
  const place = NOT_DONE_ORDER.indexOf(status)
  return place === -1 ? NOT_DONE_ORDER.length : place
}

/** "3 cancelled, 1 not found, 0 failed": the statuses always counted, then any other there is. */
export function countsText(results: BulkResult[], counted: string[]): string {
  const count = (status: string) => results.filter((r) => r.status === status).length
  const others = [...new Set(results.map((r) => r.status))]
    .filter((status) => !counted.includes(status))
    .sort((a, b) => rank(a) - rank(b))
  return [...counted, ...others]
    .filter((status) => counted.includes(status) || count(status) > 0)
    .map((status) => `${count(status)} ${status.replace(/_/g, ' ')}`)
    .join(', ')
}

/**
 * The exit status of a bulk run, in the words of its summary line: 0 all done, 130 interrupted,
 * 4 the key refused, 6 the service went down, else the single id's own error or 7 with what was
 * not done, counted by status as the summary counts them.
 */
export function bulkOutcome(run: BulkRun, words: RunWords): PayError | undefined {
  const notOk = run.results.filter((r) => !r.ok)
  const total = run.results.length
  if (run.interrupted) {
    const finished = run.results.filter((r) => r.status !== 'not_done').length
    return new PayError(
      `Interrupted: ${finished} of ${total} ${words.plural} were processed; the rest were not touched.`,
      { kind: 'cancelled' },
    )
  }
  if (run.authFailure) return run.authFailure
  if (run.serviceDown) {
    const left = run.results.filter((r) => r.status === 'not_done').length
    const why = run.serviceDown.ends
      ? `Stopped: ${run.serviceDown.message}`
      : `Stopped after ${DOWN_AFTER} failures in a row to reach the service (last: ${run.serviceDown.message});`
    return new PayError(`${why} ${left} of ${total} ${words.plural} were not tried.`, {
      kind: 'unavailable',
      hint: run.serviceDown.ends
        ? `${run.serviceDown.hint} --resume REPORT skips what was done.`
        : 'Try again once the service answers: --resume REPORT skips what was done.',
    })
  }
  if (notOk.length === 0) return undefined
  if (total === 1) {
    const error = run.errors.get(notOk[0].id)
    return error instanceof PayError
      ? error
      : new PayError(notOk[0].error ?? `The ${words.noun} could not be ${words.done}.`, { kind: 'general' })
  }
  return new PayError(
    `${notOk.length} of ${total} ${words.plural} not ${words.done} (${countsText(notOk, [])}).`,
    { kind: 'partial' },
  )
}

/**
 * A run's counts in words that agree with its exit code: each status that is done (always, even
 * 0), then how many were not done and why, counted as what each is (`not found` is not done:
 * exit 7). `Of 4 subscriptions: 1 cancelled, 0 already cancelled, 3 not cancelled (1 not found,
 * 1 failed, 1 not done)`.
 */
export function countsLine(results: BulkResult[], done: string[], words: RunWords): string {
  const count = (status: string) => results.filter((r) => r.status === status).length
  const otherDone = [...new Set(results.filter((r) => r.ok).map((r) => r.status))].filter(
    (s) => !done.includes(s),
  )
  const notOk = results.filter((r) => !r.ok)
  const parts = [...done, ...otherDone].map((status) => `${count(status)} ${status.replace(/_/g, ' ')}`)
  parts.push(`${notOk.length} not ${words.done}${notOk.length > 0 ? ` (${countsText(notOk, [])})` : ''}`)
  return `Of ${results.length} ${results.length === 1 ? words.noun : words.plural}: ${parts.join(', ')}`
}

/** What the one bulk engine needs of the terminal: Ctrl-C, and stderr for the progress bar and its words. */
export interface BulkTerminal {
  out: Output
  io: {
    stderrIsTerminal: boolean
    /** Plain progress lines rather than a bar redrawn (accessible mode, TERM=dumb). */
    canRedraw: boolean
    /** Columns of the terminal, which the bar never reaches. */
    width: number
    onInterrupt(stop: () => void): () => void
  }
}

/**
 * The one bulk engine, shared by every bulk workflow (`links create --from-csv`, `subs cancel`,
 * `links delete`, `subs delete`): runBulk with Ctrl-C stopping new work (those in flight finish,
 * `acts` names them: "rows are sent", "deletions"), a progress bar on a terminal, and `record`
 * called with each result (the report): the moment it is known for each id started, then, once
 * the run ends, for the ids never started and those skipped, in the results' order.
 */
export async function runWorkflow(
  ids: string[],
  work: (id: string) => Promise<string>,
  options: Omit<BulkOptions, 'stop' | 'onResult'> & { acts: string; record: (result: BulkResult) => void },
  terminal: BulkTerminal,
): Promise<BulkRun> {
  const { out, io } = terminal
  const stop = new AbortController()
  const stopListening = io.onInterrupt(() => {
    stop.abort()
    out.notice(`\nStopping: no new ${options.acts}; waiting for those in flight (Ctrl-C again to quit now).`)
  })
  const progress =
    io.stderrIsTerminal && ids.length > 0
      ? new ProgressBar(out.stderr, ids.length, { plain: !io.canRedraw, width: () => io.width })
      : undefined
  let run: BulkRun
  try {
    run = await runBulk(ids, work, {
      ...options,
      stop: stop.signal,
      onResult: (result) => {
        options.record(result)
        progress?.tick(result.status)
      },
    })
  } finally {
    stopListening()
    progress?.clear()
  }
  // The results no id finished with (never started, or skipped before the run) are recorded last.
  const started = new Set(ids)
  for (const result of run.results)
    if (result.status === 'not_done' || !started.has(result.id)) options.record(result)
  return run
}
