import { PayError } from '../errors.js'
import type { BulkRow } from '../render/output.js'

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

interface BulkRun {
  /** One entry per id, in the order given; ids never started are `not_done`. */
  results: BulkResult[]
  interrupted: boolean
  /** The key was refused: the run stopped at the first 401/403. */
  authFailure?: PayError
  /** The error of each failed id. */
  errors: Map<string, unknown>
}

/**
 * Turns a failure into a result: a 404 is "not_found"; a create that may have reached the service
 * (the error names its Idempotency-Key) is "unknown"; anything else "failed", with the reason.
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
    error: payError?.message ?? (error instanceof Error ? error.message : String(error)),
  }
}

/**
 * Runs `work` for each id with at most `concurrency` in flight. Every id gets exactly one
 * result, whether it succeeded, failed, or was never started because of `stop`.
 */
export async function runBulk(
  ids: string[],
  work: (id: string) => Promise<string>,
  options: BulkOptions,
): Promise<BulkRun> {
  const results = new Map<string, BulkResult>()
  const errors = new Map<string, unknown>()
  let authFailure: PayError | undefined
  let next = 0
  const worker = async () => {
    while (next < ids.length && !options.stop?.aborted && !authFailure) {
      const id = ids[next]
      next += 1
      let result: BulkResult
      try {
        result = { id, ok: true, status: await work(id), error: null }
      } catch (error) {
        result = failedResult(id, error)
        errors.set(id, error)
        if (error instanceof PayError && error.kind === 'auth') authFailure = error
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
    errors,
  }
}

/** The exit status of a bulk run: 0 all done, 130 interrupted, else the single failure's or 7. */
export function bulkOutcome(run: BulkRun, noun: string, plural: string, done: string): PayError | undefined {
  const failed = run.results.filter((r) => !r.ok && r.status !== 'not_done')
  if (run.interrupted) {
    const finished = run.results.filter((r) => r.status !== 'not_done').length
    return new PayError(
      `Interrupted: ${finished} of ${run.results.length} ${plural} were processed; the rest were not touched.`,
      {
        kind: 'cancelled',
      },
    )
  }
  if (run.authFailure) return run.authFailure
  if (failed.length === 0) return undefined
  if (run.results.length === 1) {
    const error = run.errors.get(failed[0].id)
    return error instanceof PayError
      ? error
      : new PayError(failed[0].error ?? `The ${noun} could not be ${done}.`, { kind: 'general' })
  }
  return new PayError(`${failed.length} of ${run.results.length} ${plural} could not be ${done}.`, {
    kind: 'partial',
  })
}
