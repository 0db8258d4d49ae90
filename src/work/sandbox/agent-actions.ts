import type { SandboxTarget } from '../../runtime/context.js'
import { OUTCOMES, type Outcome } from '../../sandbox/index.js'
import type { Rec } from '../../values.js'
import { payLink } from './double/pay.js'
import { listRequests } from './double/requests.js'
import { paidText } from './double/view.js'
import { moveClock } from './store/clock.js'
import { movedText } from './store/view.js'
import { sandboxAt } from './where.js'

/** The sandbox commands' work that `pay mcp`'s sandbox tools call (src/agent/sandbox-tools.ts), where the sandbox is. */
export interface SandboxActions {
  /** The customer's outcomes (`sandbox pay --outcome`), `paid` first. */
  outcomes: readonly string[]
  /** `{outcome, link, redirect_to}`, and what `sandbox pay` says of it. */
  pay(where: SandboxTarget, id: string, outcome: string): Promise<{ settled: Rec; said: string }>
  /** `{now, charges_created}`, and what `sandbox clock advance` says of it. */
  advanceClock(where: SandboxTarget, duration: string): Promise<{ moved: Rec; said: string }>
  /** The newest `limit` requests the business sent, newest last. */
  requests(where: SandboxTarget, limit?: number): Promise<Rec[]>
}

/**
 * What `pay mcp` may do on the sandbox profile, handed to its sandbox tools (src/agent imports
 * nothing of the sandbox): the work of `sandbox pay`, `sandbox clock advance` and `sandbox
 * requests`, the same functions the commands call, on the sandbox the tool's profile reaches; what
 * they did said in those commands' words (their views' texts).
 */
export const SANDBOX_ACTIONS: SandboxActions = {
  outcomes: OUTCOMES,
  async pay(where, id, outcome) {
    const paid = await payLink({ id, outcome: outcome as Outcome }, sandboxAt(where))
    return { settled: { ...paid.settled }, said: paidText(paid, true) }
  },
  async advanceClock(where, duration) {
    const clock = await moveClock({ advance: duration }, sandboxAt(where))
    return { moved: clock.moved, said: movedText(clock) }
  },
  async requests(where, limit) {
    return (await listRequests({ limit }, sandboxAt(where))).requests
  },
}
