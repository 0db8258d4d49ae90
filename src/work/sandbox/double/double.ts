/**
 * What the sandbox's test-double commands share: `--fault RULE`, `--webhook URL`, the running
 * sandbox they act through, and `pay sandbox requests --follow`.
 */
import { Flags } from '@oclif/core'
import type { PayApi } from '../../../api/client.js'
import { PayError, usageError } from '../../../errors.js'
import type { Output } from '../../../render/output.js'
import type { SandboxTarget, Target } from '../../../runtime/context.js'
import type { IO } from '../../../runtime/io.js'
import { followStopper } from '../../../runtime/stop.js'
import {
  FAULT_GRAMMAR,
  isWebhookUrl,
  loadLocalStore,
  MAX_SEED,
  type Outcome,
  parseFaultRule,
} from '../../../sandbox/index.js'
import type { Rec } from '../../../values.js'
import { type SettledAnswer, sandboxRequests, sandboxSettle } from '../controls.js'
import { attemptedText } from '../webhooks/webhook-views.js'
import { REQUEST_VIEW, requestText, requestTsv } from './view.js'

/** A fault rule, checked as the sandbox checks it: one that cannot be read is exit 2, naming what is wrong. */
export const faultFlag = Flags.custom<string>({
  helpValue: 'RULE',
  parse: async (input) => parseFaultRule(input).text,
})

/** `sandbox start --webhook URL`: an http(s) URL (exit 2 otherwise), an endpoint of the first key's business. */
export const webhookFlag = Flags.custom<string>({
  helpValue: 'URL',
  description:
    "A webhook endpoint of the first key's business (repeatable), added unless it has it: payment attempts " +
    'are POSTed there (see `pay sandbox webhooks add`).',
  multiple: true,
  parse: async (input) => {
    if (isWebhookUrl(input)) return input
    throw usageError(`"${input}" is not an http:// or https:// URL.`)
  },
})

/** `sandbox start`'s flags of the test double: the fault rules it starts with, their seed, its webhooks. */
export const startDoubleFlags = {
  fault: faultFlag({
    description:
      'A fault rule, METHOD PATH EFFECT [xN|P%] [after] (repeatable), e.g. "POST /payment-links 503 x2": ' +
      'see `pay sandbox faults set`.',
    multiple: true,
  }),
  'fault-seed': Flags.integer({
    description: 'Seed of the P% rules, to repeat a run (default: a random one, said on stderr).',
    min: 0,
    max: MAX_SEED,
  }),
  webhook: webhookFlag(),
}

/** Rules given as arguments, each checked (exit 2 naming the one that cannot be read); at least one. */
export function readRules(texts: string[]): string[] {
  if (texts.length === 0) throw usageError('Give at least one fault rule, e.g. "POST /payment-links 503 x2".')
  return texts.map((text) => {
    try {
      return parseFaultRule(text).text
    } catch (error) {
      throw usageError((error as Error).message, `A rule is ${FAULT_GRAMMAR}.`)
    }
  })
}

/**
 * The running sandbox a command acts through (RunContext.sandboxTarget). Faults and the requests
 * sent live in a running server's memory: with none, there is nothing to act on (exit 6).
 */
export function runningSandbox(where: SandboxTarget, command: string): { api: PayApi; target: Target } {
  if (where.server) return where
  throw new PayError(`No sandbox of yours is running at ${where.baseUrl}.`, {
    kind: 'unavailable',
    hint:
      `\`pay ${command}\` acts on a running sandbox: start one with \`pay sandbox start\` ` +
      '(or point at yours with --base-url or PAY_SANDBOX_PORT).',
  })
}

/** The requests of the key's business (newest last, the newest `limit`), shown as they come until Ctrl-C. */
export async function followRequests(
  api: PayApi,
  options: { out: Output; io: IO; limit?: number; timeoutSeconds: number; baseUrl: string },
): Promise<never> {
  const { out, io } = options
  const show = (records: Rec[]) =>
    out.entries(records, REQUEST_VIEW, { text: (r) => requestText(r, io.colour), tsv: requestTsv }, true)
  const { stopped, stopListening } = followStopper(io, out)
  // The server holds each poll until a request comes, for at most half the time a request may take.
  const wait = Math.min(20, options.timeoutSeconds / 2)
  try {
    const first = await Promise.race([sandboxRequests(api, { limit: options.limit }), stopped])
    show(first)
    let cursor = seqOf(first.at(-1)) ?? 0
    out.note(`Following new requests to the sandbox at ${options.baseUrl}; Ctrl-C stops.`)
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

/**
 * The customer's `outcome` on link `id` (`pay sandbox pay`), through the running sandbox when
 * there is one, else in the local store; where it was done, for the message; whether the link
 * was paid before (paying it again changes nothing, and every outcome is then answered as paid);
 * and, in the local store, what came of the first attempts of its notifications (a running
 * sandbox makes them itself).
 */
export async function settle(
  where: SandboxTarget,
  id: string,
  outcome: Outcome,
): Promise<{ settled: SettledAnswer; place: string; paidBefore: boolean; notified: string[] }> {
  if (where.server) {
    const place = `through the sandbox at ${where.target.baseUrl}`
    // Looked at first, so that paying a paid link says so.
    const paidBefore = await where.api.send('getLink', { id: id }).then(
      (before) => before.paid === true,
      () => false,
    )
    try {
      return { settled: await sandboxSettle(where.api, id, outcome), place, paidBefore, notified: [] }
    } catch (error) {
      if (error instanceof PayError && error.kind === 'not_found') {
        throw new PayError(`No payment link ${id} in the sandbox at ${where.target.baseUrl}.`, {
          kind: 'not_found',
          status: error.status,
        })
      }
      throw error
    }
  }
  const place = `in the local sandbox store ${where.dir} (no sandbox is running at ${where.baseUrl})`
  const { linkPaidIn, settleNotifyingIn } = await loadLocalStore()
  const paidBefore = linkPaidIn(where.dir, id)
  const { result: settled, attempted } = await settleNotifyingIn(where.dir, id, outcome)
  if (!settled) {
    throw new PayError(`No payment link ${id} in the local sandbox store ${where.dir}.`, {
      kind: 'not_found',
      hint: `No sandbox is running at ${where.baseUrl}; the local store was searched.`,
    })
  }
  return { settled, place, paidBefore, notified: attemptedText(attempted, where.dir) }
}

const seqOf = (entry: Rec | undefined) => (typeof entry?.seq === 'number' ? entry.seq : undefined)
