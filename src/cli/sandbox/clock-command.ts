import type { Command } from '@oclif/core'
import { PayError, usageError } from '../../errors.js'
import { type Result, shown } from '../../render/result.js'
import { loadLocalStore } from '../../sandbox/index.js'
import type { Rec } from '../../values.js'
import { BaseCommand } from '../base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../flags.js'
import { CLOCK_MOVE_VIEW, chargesText } from './clock.js'

/**
 * `pay sandbox clock advance` and `set`: the clock moved through the sandbox that serves the
 * profile (`POST /_sandbox/clock`), else in the local store, as `sandbox pay` and `reset` act
 * (RunContext.sandboxTarget); then `{now, charges_created}` printed.
 */
export abstract class ClockMoveCommand<T extends typeof Command> extends BaseCommand<T> {
  static baseFlags = sandboxGlobalFlags
  static flags = { ...jqFlag }

  protected async moveClock(body: { advance: string } | { to: string }): Promise<Result> {
    const where = await this.context.sandboxTarget()
    let moved: Rec
    let place: string
    if (where.server) {
      place = `the sandbox at ${where.target.baseUrl}`
      try {
        moved = await where.api.sandboxMoveClock(body)
      } catch (error) {
        throw refused(error, place)
      }
    } else {
      place = `the local sandbox store ${where.dir}`
      const { moveClockIn, ClockRefused } = await loadLocalStore()
      try {
        moved = moveClockIn(where.dir, body, where.baseUrl)
      } catch (error) {
        if (error instanceof ClockRefused) throw usageError(error.message)
        throw error
      }
    }
    return [
      shown.record(moved, CLOCK_MOVE_VIEW),
      shown.note(
        `Sandbox time is now ${String(moved.now)} (${place}): ${chargesText(moved.charges_created)}.`,
      ),
    ]
  }
}

/** What the sandbox refused (a time before its own, a duration it cannot read) as a usage error. */
function refused(error: unknown, place: string): unknown {
  if (!(error instanceof PayError)) return error
  if (error.kind === 'validation' && error.errors) {
    const [message] = Object.values(error.errors).flat()
    return usageError(message ?? error.message)
  }
  if (error.kind === 'not_found') {
    return new PayError(`${place} has no clock.`, {
      kind: 'general',
      status: error.status,
      hint: 'It runs an older pay: restart it (`pay sandbox start`) with this one.',
    })
  }
  return error
}
