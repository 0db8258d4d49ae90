import type { RunContext } from '../../runtime/context.js'
import { waitFor } from '../../runtime/wait.js'
import type { Duration } from '../../shared/duration.js'
import type { Rec } from '../../values.js'

/** How long `links wait` waits when not told. */
export const WAIT_TIMEOUT: Duration = { months: 0, ms: 10 * 60 * 1000 }

/** `links wait`: the link looked at until it is paid (runtime/wait.ts); the link once paid. */
export async function waitForPayment(
  options: { id: string; timeout?: Duration },
  context: RunContext,
): Promise<Rec> {
  const { id } = options
  const { api } = await context.api()
  return waitFor({
    what: `payment link ${id} to be paid`,
    short: `link ${id} to be paid`,
    look: () => api.send('getLink', { id }),
    done: (record) => record.paid === true,
    timeout: options.timeout ?? WAIT_TIMEOUT,
    io: context.io,
    out: context.out,
  })
}
