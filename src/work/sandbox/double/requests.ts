/**
 * `pay sandbox requests [--follow]` (and `pay mcp`'s sandbox_requests): the requests the key's
 * business sent to the running sandbox, which keeps them in its memory (none running: exit 6).
 */
import type { RunContext } from '../../../runtime/context.js'
import { followStopper } from '../../../runtime/stop.js'
import type { Rec } from '../../../values.js'
import { sandboxRequests } from '../controls.js'
import { placeOf, runningSandbox, type SandboxContext } from '../where.js'
import { REQUEST_VIEW, requestShow } from './view.js'

/** The requests, newest last, and where they were sent (for the message). */
export interface SentRequests {
  requests: Rec[]
  place: string
}

/** The newest `limit` requests of the key's business, newest last. */
export async function listRequests(
  options: { limit?: number },
  context: SandboxContext,
): Promise<SentRequests> {
  const where = await context.sandboxTarget()
  const { api } = runningSandbox(where, 'sandbox requests')
  return { requests: await sandboxRequests(api, { limit: options.limit }), place: placeOf(where) }
}

/**
 * `requests --follow`: the newest `limit`, then each new one as it comes, until Ctrl-C (exit 130).
 * It goes on printing: each batch is written through the run's output as it comes (one JSON
 * line each under --json), with a note when it starts and a warning when some were lost.
 * `timeoutSeconds`: what a request may take, half of which the server holds each poll.
 */
export async function followRequests(
  options: { limit?: number; timeoutSeconds: number },
  context: Pick<RunContext, 'sandboxTarget' | 'io' | 'out'>,
): Promise<never> {
  const { out, io } = context
  const where = await context.sandboxTarget()
  const { api } = runningSandbox(where, 'sandbox requests')
  const show = (records: Rec[]) => out.entries(records, REQUEST_VIEW, requestShow(io.colour), true)
  const { stopped, stopListening } = followStopper(io, out)
  // The server holds each poll until a request comes, for at most half the time a request may take.
  const wait = Math.min(20, options.timeoutSeconds / 2)
  try {
    const first = await Promise.race([sandboxRequests(api, { limit: options.limit }), stopped])
    show(first)
    let cursor = seqOf(first.at(-1)) ?? 0
    out.note(`Following new requests to ${placeOf(where)}; Ctrl-C stops.`)
    for (;;) {
      const next = await Promise.race([sandboxRequests(api, { after: cursor, wait }), stopped])
      const firstSeq = seqOf(next[0])
      if (firstSeq !== undefined && firstSeq > cursor + 1) {
        const lost = firstSeq - cursor - 1
        out.warn(
          `${lost} request${lost === 1 ? ' was' : 's were'} not shown: the sandbox keeps the last 1,000 of each business.`,
        )
      }
      show(next)
      cursor = seqOf(next.at(-1)) ?? cursor
      if (wait < 1 && next.length === 0) await Promise.race([new Promise((r) => setTimeout(r, 500)), stopped])
    }
  } finally {
    stopListening()
  }
}

const seqOf = (entry: Rec | undefined) => (typeof entry?.seq === 'number' ? entry.seq : undefined)
