/**
 * `pay sandbox pay` (and `pay mcp`'s sandbox_pay): the customer's outcome on a payment link,
 * through the running sandbox when there is one, else in the local store.
 */
import { PayError } from '../../../errors.js'
import { attemptedText } from '../../../runtime/sandbox/attempted.js'
import { loadLocalStore, type Outcome } from '../../../sandbox/index.js'
import { type SettledAnswer, sandboxSettle } from '../controls.js'
import { placeOf, type SandboxContext } from '../where.js'

/** What the customer's outcome on a link came to. */
export interface LinkSettled {
  /** The link as asked for (its id, or its payment URL). */
  id: string
  /** The outcome asked for. */
  asked: Outcome
  /** `{outcome, link, redirect_to}`: a link paid before is answered as paid, whatever was asked. */
  settled: SettledAnswer
  /** Where it was done, for the message: `through the sandbox at URL`, `in the local sandbox store DIR (…)`. */
  place: string
  /** The link was paid before: paying it again changed nothing. */
  paidBefore: boolean
  /** In the local store, what came of the first attempt of each notification (a running sandbox makes them itself). */
  notified: string[]
}

/** The customer's `outcome` on link `id`: paid, cancelled or failed. */
export async function payLink(
  options: { id: string; outcome: Outcome },
  context: SandboxContext,
): Promise<LinkSettled> {
  const { id, outcome } = options
  const where = await context.sandboxTarget()
  if (where.server) {
    const place = `through ${placeOf(where)}`
    // Looked at first, so that paying a paid link says so.
    const paidBefore = await where.api.send('getLink', { id: id }).then(
      (before) => before.paid === true,
      () => false,
    )
    try {
      const settled = await sandboxSettle(where.api, id, outcome)
      return { id, asked: outcome, settled, place, paidBefore, notified: [] }
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
  const place = `in ${placeOf(where, true)}`
  const { linkPaidIn, settleNotifyingIn } = await loadLocalStore()
  const paidBefore = linkPaidIn(where.dir, id)
  const { result: settled, attempted } = await settleNotifyingIn(where.dir, id, outcome, where.baseUrl)
  if (!settled) {
    throw new PayError(`No payment link ${id} in the local sandbox store ${where.dir}.`, {
      kind: 'not_found',
      hint: `No sandbox is running at ${where.baseUrl}; the local store was searched.`,
    })
  }
  return { id, asked: outcome, settled, place, paidBefore, notified: attemptedText(attempted, where.dir) }
}
