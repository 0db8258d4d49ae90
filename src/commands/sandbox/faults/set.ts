import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../../cli/base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import { MAX_SEED } from '../../../sandbox/index.js'
import type { EndpointName } from '../../../shared/endpoints.js'
import { setFaults } from '../../../work/sandbox/double/faults.js'
import { FAULT_VIEW, faultsSetText } from '../../../work/sandbox/double/view.js'

export default class SandboxFaultsSet extends BaseCommand<typeof SandboxFaultsSet> {
  static calls: readonly EndpointName[] = ['setSandboxFaults']
  static summary = 'Make the running sandbox fail requests on purpose'
  static description =
    "Replaces the fault rules of the key's business in the running sandbox (each business has its own). A rule " +
    'is METHOD PATH EFFECT [xN|P%] [after]: METHOD a verb or *; PATH a path where * matches one segment; EFFECT ' +
    'a status 400-599 (429 adds Retry-After: 1), latency=300ms (or =2s), reset (the connection is cut) or hang; ' +
    'xN faults the next N matching requests, P% each with that chance (seeded: --seed repeats a run), nothing ' +
    'every one; after carries the request out, then loses its answer (otherwise nothing is done). The ' +
    "sandbox's own /_sandbox/ routes and the customer pages are never faulted. Acts through the sandbox serving " +
    'the profile (--profile, else $PAY_PROFILE, else the built-in "sandbox"; --base-url).'

  static examples = [
    "<%= config.bin %> sandbox faults set 'POST /payment-links 503 x2'",
    "<%= config.bin %> sandbox faults set 'GET /payment-links/* 429 x1' 'POST /payment-links reset after x1'",
    "<%= config.bin %> sandbox faults set '* /payment-links/* 503 20%' --seed 7",
  ]

  static strict = false
  static args = { rule: Args.string({ description: 'A fault rule; give several to set several.' }) }
  static baseFlags = sandboxGlobalFlags
  static flags = {
    seed: Flags.integer({
      description: 'Seed of the P% rules (default: the one in use).',
      min: 0,
      max: MAX_SEED,
    }),
    ...jqFlag,
  }

  async run(): Promise<Result> {
    const faults = await setFaults({ rules: this.positionals, seed: this.flags.seed }, this.context)
    return [shown.list(faults.rules, FAULT_VIEW), shown.note(faultsSetText(faults))]
  }
}
