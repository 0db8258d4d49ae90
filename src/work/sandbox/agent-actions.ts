import type { SandboxActions } from '../../agent/sandbox-tools.js'
import { OUTCOMES, type Outcome } from '../../sandbox/index.js'
import { sandboxRequests } from './controls.js'
import { runningSandbox, settle } from './double/double.js'
import { outcomeText } from './double/view.js'
import { moveClock } from './store/clock.js'
import { movedText } from './store/view.js'
import { sandboxAt } from './where.js'

/**
 * What `pay mcp` may do on the sandbox profile, handed to its sandbox tools (src/agent imports
 * nothing of the sandbox): the plain functions of `sandbox pay`, `sandbox clock advance` and
 * `sandbox requests`, saying what they did in those commands' words.
 */
export const SANDBOX_ACTIONS: SandboxActions = {
  outcomes: OUTCOMES,
  async pay(where, id, outcome) {
    const { settled, place, paidBefore } = await settle(where, id, outcome as Outcome)
    let said = `Paid ${place}: payment link ${settled.link._id as string} is paid.`
    if (outcome !== 'paid') said = outcomeText(settled, outcome, place)
    else if (paidBefore) said = `Payment link ${id} was already paid: nothing changed.`
    return { settled: { ...settled }, said }
  },
  async advanceClock(where, duration) {
    const clock = await moveClock({ advance: duration }, sandboxAt(where))
    return { moved: clock.moved, said: movedText(clock) }
  },
  requests: (where, limit) => sandboxRequests(runningSandbox(where, 'sandbox requests').api, { limit }),
}
