import { Args } from '@oclif/core'
import { BaseCommand } from '../../../cli/base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../../../cli/flags.js'
import { type Result, shown } from '../../../render/result.js'
import type { EndpointName } from '../../../shared/endpoints.js'
import { moveClock } from '../../../work/sandbox/store/clock.js'
import { CLOCK_MOVE_VIEW, movedText } from '../../../work/sandbox/store/view.js'

export default class SandboxClockSet extends BaseCommand<typeof SandboxClockSet> {
  static calls: readonly EndpointName[] = ['sandboxMoveClock']
  static summary = 'Set the sandbox clock to a later date or time, and charge what comes due'
  static description =
    'Moves sandbox time forward to DATE (2027-01-01: midnight UTC) or DATETIME (2027-01-01T09:30:00Z; UTC ' +
    'when no zone is given). The clock only goes forward: a time before sandbox time, at the precision given ' +
    '(a date is a day), is refused (exit 2) and changes nothing; the same time changes nothing. Every ' +
    'subscription charge dated on or before the new day is made as a payment link, in one transaction. ' +
    '--json: {"now": ISO, "charges_created": N}.'

  static examples = [
    '<%= config.bin %> sandbox clock set 2027-01-01',
    '<%= config.bin %> sandbox clock set 2027-03-31T23:00:00Z --json',
  ]

  static baseFlags = sandboxGlobalFlags
  static flags = { ...jqFlag }

  static args = {
    time: Args.string({
      description: 'DATE (2027-01-01) or DATETIME (2027-01-01T09:30:00Z).',
      required: true,
      ignoreStdin: true,
    }),
  }

  async run(): Promise<Result> {
    const moved = await moveClock({ to: this.args.time }, this.context)
    return [shown.record(moved.moved, CLOCK_MOVE_VIEW), shown.note(movedText(moved))]
  }
}
