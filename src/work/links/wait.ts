import { PayError } from '../../errors.js'
import type { RunContext } from '../../runtime/context.js'
import { waitFor } from '../../runtime/wait.js'
import type { Duration } from '../../shared/duration.js'
import { plain, type Rec } from '../../values.js'
import { hearAttempts } from '../sandbox/webhooks/attempts.js'

/** How long `links wait` waits when not told. */
export const WAIT_TIMEOUT: Duration = { months: 0, ms: 10 * 60 * 1000 }

/**
 * What ends the wait (`--until`): `attempt`, the customer's attempt, paid or failed (a pending one
 * is waited through); `paid`, a payment only (a failed attempt is waited through).
 */
export const WAIT_UNTIL = ['attempt', 'paid'] as const
export type WaitUntil = (typeof WAIT_UNTIL)[number]

/** How a wait ended: the link as it is then, and what ended it; a failed attempt's error (exit 1). */
export interface WaitEnded {
  link: Rec
  outcome: 'paid' | 'failed'
  failure?: PayError
}

/**
 * `links wait`: the link looked at until it is paid (runtime/wait.ts), or, `until` an attempt, until
 * the customer's attempt fails. The link record says only whether it is paid: what else an attempt
 * came to is heard where pay can hear it, on the user's sandbox (the `sandbox` profile), from the
 * notification the sandbox sends of it (work/sandbox/webhooks/attempts.ts); elsewhere only a
 * payment ends the wait.
 */
export async function waitForPayment(
  options: { id: string; timeout?: Duration; until?: WaitUntil },
  context: RunContext,
): Promise<WaitEnded> {
  const { id, until = 'attempt' } = options
  const { api, sandbox } = await context.api()
  // Heard from before the first look: an attempt made after it is never missed.
  const attempts = until === 'attempt' && sandbox ? await hearAttempts(api, id) : undefined
  // A sandbox gone, or no longer the user's, is sent nothing more: its lease ends the endpoint.
  let gone = false
  try {
    const link = await waitFor({
      what: `payment link ${id} to be paid`,
      short: `link ${id} to be paid`,
      look: () => api.send('getLink', { id }),
      done: (record) => record.paid === true,
      timeout: options.timeout ?? WAIT_TIMEOUT,
      io: context.io,
      out: context.out,
      hear: attempts?.hear,
    })
    const failed = attempts?.failed()
    if (link.paid === true || !failed) return { link, outcome: 'paid' }
    return { link, outcome: 'failed', failure: attemptFailed(id, failed) }
  } catch (error) {
    gone = error instanceof PayError && error.kind === 'unavailable'
    throw error
  } finally {
    await attempts?.end({ left: gone })
  }
}

/** A failed attempt, said with the service's message: exit 1. */
function attemptFailed(id: string, data: Rec): PayError {
  const message = plain(data.payment_message)
  return new PayError(
    `The customer's payment attempt on payment link ${id} failed${message ? ` (${message})` : ''}.`,
    {
      kind: 'general',
      hint: `The link stays payable: \`pay links wait ${id}\` waits for the next attempt, and --until paid for a payment only.`,
    },
  )
}
