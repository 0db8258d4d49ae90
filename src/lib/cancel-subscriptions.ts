import type { PayApi } from '../api/client.js'
import type { Target } from '../base-command.js'
import { PayError } from '../errors.js'
import { formatAmount, isRecord, plain, type Rec } from '../render/format.js'
import type { Output } from '../render/output.js'
import { ProgressBar } from '../render/progress.js'
import { sanitizeText } from '../render/sanitize.js'
import { SUBSCRIPTION_VIEW } from '../render/views.js'
import { type BulkResult, bulkOutcome, runBulk } from './bulk.js'
import { type Consent, confirmPlan } from './confirm.js'
import { CsvReport } from './report.js'

export const CANCELLED_STATUS = 'cancel'

/** How many subscriptions a terminal confirmation describes one by one. */
const DESCRIBE_LIMIT = 20

export interface CancelJob {
  api: PayApi
  ids: string[]
  target: Target
  consent: Consent
  out: Output
  concurrency: number
  /** --report: CSV written as results come in. */
  reportFile?: string
}

/** Cancels one subscription: already cancelled is done; otherwise PUT status=cancel. */
async function cancelOne(api: PayApi, id: string): Promise<string> {
  const isCancelled = (sub: Rec) => plain(sub.status).toLowerCase() === CANCELLED_STATUS
  const current = await api.getSubscription(id)
  if (isCancelled(current)) return 'already_cancelled'
  let updated: Rec
  try {
    updated = await api.updateSubscription(id, { status: CANCELLED_STATUS })
  } catch (error) {
    // The service may have acted on the PUT and only its answer was lost (5xx, reset): report
    // what the service now holds rather than "failed" for a subscription that is cancelled.
    if (!(error instanceof PayError) || error.kind !== 'unavailable') throw error
    const after = await api.getSubscription(id).catch(() => undefined)
    if (after && isCancelled(after)) return 'cancelled'
    throw error
  }
  if (!isCancelled(updated)) {
    throw new PayError(`The service answered with status "${plain(updated.status)}", not "cancel".`, {
      kind: 'unavailable',
    })
  }
  return 'cancelled'
}

function describe(id: string, sub: Rec | undefined): string {
  if (!sub) return `  ${id}  (not found or not readable)`
  const pkg = isRecord(sub.package) ? sub.package : {}
  const what = [
    plain(sub.email),
    plain(pkg.name),
    pkg.amount === undefined ? '' : formatAmount(pkg.amount, pkg.currency),
  ]
    .filter((part) => part !== '')
    .join(' · ')
  return sanitizeText(`  ${id}  ${what}  [${plain(sub.status)}]`)
}

/**
 * `pay subs cancel`: the plan, consent, then the cancellations with bounded concurrency, a
 * progress bar on a terminal, one result per id, and Ctrl-C stopping new work cleanly.
 */
export async function cancelSubscriptions(job: CancelJob): Promise<void> {
  const { api, ids, out } = job
  let details: string[] | undefined
  if (job.consent.interactive && !job.consent.yes && !job.consent.dryRun && ids.length <= DESCRIBE_LIMIT) {
    const subs = await Promise.all(ids.map((id) => api.getSubscription(id).catch(() => undefined)))
    details = ids.map((id, i) => describe(id, subs[i]))
  }
  const { noun, plural } = SUBSCRIPTION_VIEW
  const plan = { action: 'cancel', done: 'cancelled', noun, plural, ids, target: job.target, details }
  if (!(await confirmPlan(plan, job.consent, out))) return
  const report = job.reportFile === undefined ? undefined : new CsvReport(job.reportFile)

  const stop = new AbortController()
  const onSigint = () => {
    if (stop.signal.aborted) process.exit(130)
    stop.abort()
    out.stderr.write(
      '\nStopping: no new cancellations; waiting for those in flight (Ctrl-C again to quit now).\n',
    )
  }
  process.on('SIGINT', onSigint)
  const progress = out.stderr.isTTY ? new ProgressBar(out.stderr, ids.length) : undefined
  let run: Awaited<ReturnType<typeof runBulk>>
  try {
    run = await runBulk(ids, (id) => cancelOne(api, id), {
      concurrency: job.concurrency,
      stop: stop.signal,
      onResult: (result) => {
        report?.write(result)
        progress?.tick(result.status)
      },
    })
  } finally {
    process.off('SIGINT', onSigint)
    progress?.clear()
  }
  for (const result of run.results) if (result.status === 'not_done') report?.write(result)
  report?.close()

  out.bulk(run.results)
  out.stderr.write(`${summaryLine(run.results)}\n`)
  if (report) out.stderr.write(`Report written to ${report.file}\n`)
  const problem = bulkOutcome(run, noun, plural, 'cancelled')
  if (problem) throw problem
}

export function summaryLine(results: BulkResult[]): string {
  const count = (status: string) => results.filter((r) => r.status === status).length
  const parts = [
    `${count('cancelled')} cancelled`,
    `${count('already_cancelled')} already cancelled`,
    `${count('not_found')} not found`,
    `${count('failed')} failed`,
  ]
  const notDone = count('not_done')
  if (notDone > 0) parts.push(`${notDone} not done`)
  return `${parts.join(', ')} (of ${results.length}).`
}
