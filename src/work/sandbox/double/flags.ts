/** The test double's flags of `sandbox start`: `--fault RULE`, `--fault-seed`, `--webhook URL`. */
import { Flags } from '@oclif/core'
import { usageError } from '../../../errors.js'
import { MAX_SEED, parseFaultRule } from '../../../sandbox/index.js'
import { webhookUrlProblem } from '../../../shared/webhook-url.js'

/** A fault rule, checked as the sandbox checks it: one that cannot be read is exit 2, naming what is wrong. */
export const faultFlag = Flags.custom<string>({
  helpValue: 'RULE',
  parse: async (input) => parseFaultRule(input).text,
})

/**
 * `sandbox start --webhook URL`: an http(s) URL (exit 2 otherwise), an endpoint of the first key's
 * business.
 */
export const webhookFlag = Flags.custom<string>({
  helpValue: 'URL',
  description:
    "A webhook endpoint of the first key's business (repeatable), added unless it has it: payment attempts " +
    'are POSTed there (see `pay sandbox webhooks add`).',
  multiple: true,
  parse: async (input) => {
    // One with a user name or password is the sandbox's own rule, refused as it is (serve.ts: exit 3).
    if (webhookUrlProblem(input) !== 'not-http') return input
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
