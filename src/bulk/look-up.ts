import { PayError } from '../errors.js'
import { formatAmount } from '../render/format.js'
import type { Output } from '../render/output.js'
import { ProgressBar } from '../render/progress.js'
import type { Consent } from '../runtime/context.js'
import type { IO } from '../runtime/io.js'
import { type CurrencyTotal, totalsByCurrency } from '../shared/money.js'
import { type Rec, sanitizeText } from '../values.js'
import { DOWN_AFTER, runBulk, type Skipped } from './runner.js'

/**
 * The look-ups before a plan is shown: every id fetched, a few at a time (with a progress bar on
 * a terminal past 20), so that the plan says what the run would do, for 5 ids as for 300: how
 * many would change, how many need nothing (already in that state), how many do not exist, and
 * the money at stake by currency; up to 20 records are described one line each.
 */

/** How a workflow fetches and describes one record for the plan. */
export interface LookUp {
  fetch: (id: string) => Promise<Rec>
  /** One line (not yet sanitised): what the record is. */
  describe: (record: Rec) => string
  /**
   * The status of a record that needs nothing (`already_cancelled` for a subscription cancelled
   * already): it is left out of the plan and of the question, and reported done.
   */
  alreadyDone?: (record: Rec) => string | undefined
  /** The money of a record, added up by currency in the plan, and what that total is (`the packages' prices`). */
  money?: { of: (record: Rec) => { amount: unknown; currency: unknown }; what?: string }
}

export interface Inspection {
  /** The ids to act on: every id, less those found not to exist or to need nothing. */
  ids: string[]
  /** One line per id to act on, when there are at most 20. */
  details?: string[]
  /** The ids found not to exist (404): reported, not planned. */
  missing: Skipped[]
  /** The ids that need nothing (a subscription cancelled already): done, not planned. */
  settled: Skipped[]
  /** What was read of each id looked at. */
  records: Map<string, Rec>
  /** What the look-ups came to, when there were any: the plan's lines, and the totals by currency. */
  lookedUp?: { lines: string[]; totals: CurrencyTotal[] }
}

/** How many records a plan describes one line each; past it, the look-ups show their progress. */
export const DESCRIBE_LIMIT = 20

/** What an inspection needs to know of the run: its words, and where it shows its progress. */
export interface InspectJob {
  action: string
  done: string
  plural: string
  consent: Consent
  out: Output
  io: IO
  concurrency?: number
}

/**
 * Before the plan is shown, every record is fetched (at most `concurrency` at once) so that the
 * plan says what each one is: for a person to confirm on a terminal, for a --dry-run, and for the
 * refusal off a terminal without --yes (where people look next); those that do not exist, or
 * need nothing, are left out of the plan and reported. With --yes (and no --dry-run) nothing is
 * fetched. A refused key stops it at once; Ctrl-C (nothing changed, exit 130), or a service that
 * stopped answering (DOWN_AFTER failures in a row, exit 6), stops it too.
 */
export async function inspect(
  ids: string[],
  lookUp: LookUp | undefined,
  job: InspectJob,
): Promise<Inspection> {
  const records = new Map<string, Rec>()
  const { consent, io, out } = job
  if (!lookUp || (consent.yes && !consent.dryRun) || ids.length === 0) {
    return { ids, missing: [], settled: [], records }
  }
  const stop = new AbortController()
  const stopListening = io.onInterrupt(() => stop.abort())
  const many = ids.length > DESCRIBE_LIMIT
  if (many && io.stderrIsTerminal) out.notice(`Looking up ${ids.length} ${job.plural} for the plan…`)
  const progress =
    many && io.stderrIsTerminal
      ? new ProgressBar(out.stderr, ids.length, { plain: !io.canRedraw, width: () => io.width })
      : undefined
  const toAct = `to_${job.action}`
  let run: Awaited<ReturnType<typeof runBulk>>
  try {
    run = await runBulk(
      ids,
      async (id) => {
        const record = await lookUp.fetch(id)
        records.set(id, record)
        return lookUp.alreadyDone?.(record) ?? toAct
      },
      {
        concurrency: job.concurrency ?? 4,
        stop: stop.signal,
        onResult: (result) =>
          progress?.tick(result.ok || result.status === 'not_found' ? result.status : 'unread'),
      },
    )
  } finally {
    stopListening()
    progress?.clear()
  }
  if (run.authFailure) throw run.authFailure
  if (run.interrupted) {
    throw new PayError(`Cancelled while looking up the ${job.plural}.`, {
      kind: 'cancelled',
      hint: `Nothing was ${job.done}.`,
    })
  }
  if (run.serviceDown) {
    const why = run.serviceDown.ends
      ? run.serviceDown.message
      : `${DOWN_AFTER} failures in a row to reach the service (last: ${run.serviceDown.message})`
    throw new PayError(`Stopped looking up the ${job.plural} after ${why}; nothing was ${job.done}.`, {
      kind: 'unavailable',
      hint: run.serviceDown.ends ? run.serviceDown.hint : 'Try again once the service answers.',
    })
  }
  const statusOf = new Map(run.results.map((result) => [result.id, result]))
  const planned = ids.filter((id) => {
    const status = statusOf.get(id)?.status
    return status === toAct || status === 'failed'
  })
  const missing = ids.filter((id) => statusOf.get(id)?.status === 'not_found')
  const settled = ids.filter((id) => statusOf.get(id)?.ok && statusOf.get(id)?.status !== toAct)
  return {
    ids: planned,
    details: many
      ? undefined
      : planned.map((id) => {
          const record = records.get(id)
          return sanitizeText(`  ${id}  ${record ? lookUp.describe(record) : '(could not be read)'}`)
        }),
    missing: missing.map((id) => ({
      result: statusOf.get(id) as Skipped['result'],
      error: run.errors.get(id),
    })),
    settled: settled.map((id) => ({ result: statusOf.get(id) as Skipped['result'], error: undefined })),
    records,
    lookedUp: lookedUpLines(job, lookUp, { ids, planned, missing, settled, records }),
  }
}

/**
 * The plan's lines of what the look-ups came to: `looked up 300: 280 to cancel, 15 already
 * cancelled, 5 not found` and `total:    33600.00 USD (the packages' prices)`.
 */
function lookedUpLines(
  job: InspectJob,
  lookUp: LookUp,
  found: {
    ids: string[]
    planned: string[]
    missing: string[]
    settled: string[]
    records: Map<string, Rec>
  },
): { lines: string[]; totals: CurrencyTotal[] } {
  const unread = found.planned.filter((id) => !found.records.has(id)).length
  const counts = [
    `${found.planned.length - unread} to ${job.action}`,
    ...(lookUp.alreadyDone ? [`${found.settled.length} already ${job.done}`] : []),
    `${found.missing.length} not found`,
    ...(unread > 0 ? [`${unread} could not be read (tried all the same)`] : []),
  ]
  const lines = [`  looked up ${found.ids.length}: ${counts.join(', ')}`]
  const money = lookUp.money
  const read = found.planned.flatMap((id) => {
    const record = found.records.get(id)
    return record ? [record] : []
  })
  if (!money || read.length === 0) return { lines, totals: [] }
  const { totals, unknown } = totalsByCurrency(read.map(money.of))
  const sums = totals.map((total) => formatAmount(total.amount, total.currency))
  if (unknown > 0) sums.push(`${unknown} without an amount`)
  lines.push(`  total:    ${sums.join(', ')}${money.what ? ` (${money.what})` : ''}`)
  return { lines, totals }
}

/** At most 20 ids in a line of words: `a, b, c`, or `a, b, … and 280 more`. */
export function someIds(ids: string[]): string {
  const shown = ids.slice(0, DESCRIBE_LIMIT).join(', ')
  return ids.length > DESCRIBE_LIMIT ? `${shown} … and ${ids.length - DESCRIBE_LIMIT} more` : shown
}
