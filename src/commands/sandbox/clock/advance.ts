import { Args } from '@oclif/core'
import { ClockMoveCommand } from '../../../cli/clock-command.js'
import { usageError } from '../../../errors.js'
import type { Result } from '../../../render/result.js'
import { DURATION_FORMS, parseDuration } from '../../../shared/duration.js'
import type { EndpointName } from '../../../shared/endpoints.js'

export default class SandboxClockAdvance extends ClockMoveCommand<typeof SandboxClockAdvance> {
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

  static args = {
    duration: Args.string({
      description: 'How far: 12h, 30d, 2w, 3mo, 1y, 1d12h, or ISO 8601 (P1Y2M).',
      required: true,
      ignoreStdin: true,
    }),
  }

  async run(): Promise<Result> {
    const { duration } = this.args
    if (!parseDuration(duration)) {
      throw usageError(`"${duration}" is not a duration.`, `Durations: ${DURATION_FORMS}.`)
    }
    return this.moveClock({ advance: duration })
  }
}
