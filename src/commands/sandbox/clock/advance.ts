import { Args } from '@oclif/core'
import { BaseCommand } from '../../../cli/base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import type { EndpointName } from '../../../shared/endpoints.js'
import { moveClock } from '../../../work/sandbox/store/clock.js'
import { CLOCK_MOVE_VIEW, movedText } from '../../../work/sandbox/store/view.js'

export default class SandboxClockAdvance extends BaseCommand<typeof SandboxClockAdvance> {
  static calls: readonly EndpointName[] = ['sandboxMoveClock']
  static summary = 'Move the sandbox clock forward, and charge the subscriptions that come due'
  static description =
    'Moves sandbox time forward by DURATION: 12h, 30d, 2w, 3mo, 1y (months and years are calendar ones: ' +
    'Jan 31 + 1mo is Feb 28 or 29), units combined (1d12h) or ISO 8601 (P1Y2M). Every subscription charge ' +
    'dated on or before the new day is made as a payment link, in one transaction. Acts through the sandbox ' +
    "serving the profile's base URL when one runs, otherwise on the local store, as `pay sandbox pay` does. " +
    '--json: {"now": ISO, "charges_created": N}.'

  static examples = [
    '<%= config.bin %> sandbox clock advance 30d',
    '<%= config.bin %> sandbox clock advance 1y --json',
    '<%= config.bin %> sandbox clock advance P1M15D',
  ]

  static baseFlags = sandboxGlobalFlags
  static flags = { ...jqFlag }

  static args = {
    duration: Args.string({
      description: 'How far: 12h, 30d, 2w, 3mo, 1y, 1d12h, or ISO 8601 (P1Y2M).',
      required: true,
      ignoreStdin: true,
    }),
  }

  async run(): Promise<Result> {
    const moved = await moveClock({ advance: this.args.duration }, this.context)
    return [shown.record(moved.moved, CLOCK_MOVE_VIEW), shown.note(movedText(moved))]
  }
}
