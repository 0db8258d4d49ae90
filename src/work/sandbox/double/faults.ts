/**
 * `pay sandbox faults list|set|clear`: the fault rules of the key's business in the running
 * sandbox (they live in its memory: with none running there is nothing to act on, exit 6).
 */
import { usageError } from '../../../errors.js'
import { FAULT_GRAMMAR, parseFaultRule } from '../../../sandbox/index.js'
import type { Rec } from '../../../values.js'
import { sandboxFaults, setSandboxFaults } from '../controls.js'
import { placeOf, runningSandbox, type SandboxContext } from '../where.js'

/** The rules with what each did so far, the seed of their P% draws, and where they are (for the message). */
export interface FaultRules {
  rules: Rec[]
  seed: number | undefined
  place: string
}

/** `faults list`: the rules of the key's business. */
export async function listFaults(context: SandboxContext): Promise<FaultRules> {
  const where = await context.sandboxTarget()
  const { api } = runningSandbox(where, 'sandbox faults list')
  return { ...(await sandboxFaults(api)), place: placeOf(where) }
}

/**
 * `faults set RULE...`: the rules of the key's business replaced by these, each checked first
 * (exit 2 naming the one that cannot be read, before anything is asked); `seed` for their P% draws.
 */
export async function setFaults(
  options: { rules: string[]; seed?: number },
  context: SandboxContext,
): Promise<FaultRules> {
  const rules = readRules(options.rules)
  const where = await context.sandboxTarget()
  const { api } = runningSandbox(where, 'sandbox faults set')
  return { ...(await setSandboxFaults(api, rules, options.seed)), place: placeOf(where) }
}

/** `faults clear`: no rule left in the key's business; where, for the message. */
export async function clearFaults(context: SandboxContext): Promise<{ place: string }> {
  const where = await context.sandboxTarget()
  await setSandboxFaults(runningSandbox(where, 'sandbox faults clear').api, [])
  return { place: placeOf(where) }
}

/** Rules given as arguments, each checked (exit 2 naming the one that cannot be read); at least one. */
function readRules(texts: string[]): string[] {
  if (texts.length === 0) throw usageError('Give at least one fault rule, e.g. "POST /payment-links 503 x2".')
  return texts.map((text) => {
    try {
      return parseFaultRule(text).text
    } catch (error) {
      throw usageError((error as Error).message, `A rule is ${FAULT_GRAMMAR}.`)
    }
  })
}
