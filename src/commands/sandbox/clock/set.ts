import { Args } from '@oclif/core'
import { ClockMoveCommand } from '../../../cli/clock-command.js'
import { usageError } from '../../../errors.js'
import type { Result } from '../../../render/result.js'
import { POINT_FORMS, parsePoint } from '../../../shared/duration.js'
import type { EndpointName } from '../../../shared/endpoints.js'

export default class SandboxClockSet extends ClockMoveCommand<typeof SandboxClockSet> {
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

  static args = {
    time: Args.string({
      description: 'DATE (2027-01-01) or DATETIME (2027-01-01T09:30:00Z).',
      required: true,
      ignoreStdin: true,
    }),
  }

  async run(): Promise<Result> {
    const { time } = this.args
    if (!parsePoint(time)) throw usageError(`"${time}" is not a date or time.`, `Give ${POINT_FORMS}.`)
    return this.moveClock({ to: time })
  }
}
