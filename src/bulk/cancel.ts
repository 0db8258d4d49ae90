import type { PayApi } from '../api/client.js'
import type { Target } from '../cli/base-command.js'
import type { IO } from '../cli/io.js'
import { PayError } from '../errors.js'
import type { Output } from '../render/output.js'
import { ProgressBar } from '../render/progress.js'
import {
  CANCELLED_STATUS,
  describeSubscription,
  isCancelled,
  SUBSCRIPTION_VIEW,
} from '../resources/subscriptions.js'
import { plain, type Rec } from '../values.js'
import { agree, type Consent } from './consent.js'
import { CsvReport } from './report.js'
import { type BulkResult, bulkOutcome, runBulk } from './runner.js'

interface CancelJob {
  api: PayApi
  ids: string[]
  target: Target
  consent: Consent
  out: Output
  io: IO
  concurrency: number
  /** --report: CSV written as results come in. */
  reportFile?: string
}

/** Cancels one subscription: already cancelled is done; otherwise PUT status=cancel. */
async function cancelOne(api: PayApi, id: string): Promise<string> {
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

/**
 * `pay subs cancel`: the plan, consent, then the cancellations with bounded concurrency, a
 * progress bar on a terminal, one result per id, and Ctrl-C stopping new work cleanly.
 */
export async function cancelSubscriptions(job: CancelJob): Promise<void> {
  const { api, out, io } = job
  const ids = [...new Set(job.ids)]
  const what = { action: 'cancel', done: 'cancelled', view: SUBSCRIPTION_VIEW }
  const lookUp = { fetch: (id: string) => api.getSubscription(id), describe: describeSubscription }
  const agreed = await agree(ids, what, job, lookUp)
  if (!agreed) return
  const { noun, plural } = SUBSCRIPTION_VIEW
  const report = job.reportFile === undefined ? undefined : new CsvReport(job.reportFile)

  const stop = new AbortController()
  const stopListening = io.onInterrupt(() => {
    stop.abort()
    out.stderr.write(
      '\nStopping: no new cancellations; waiting for those in flight (Ctrl-C again to quit now).\n',
    )
  })
  const progress = io.stderrIsTerminal ? new ProgressBar(out.stderr, agreed.ids.length) : undefined
  let run: Awaited<ReturnType<typeof runBulk>>
  try {
    run = await runBulk(agreed.ids, (id) => cancelOne(api, id), {
      concurrency: job.concurrency,
      skipped: agreed.skipped,
      order: ids,
      stop: stop.signal,
      onResult: (result) => {
        report?.write(result)
        progress?.tick(result.status)
      },
    })
  } finally {
    stopListening()
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

function summaryLine(results: BulkResult[]): string {
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
