import type { Command } from '@oclif/core'
import { PayError, usageError } from '../errors.js'
import { type Result, shown } from '../render/result.js'
import type { SandboxTarget } from '../runtime/context.js'
import { loadLocalStore } from '../sandbox/index.js'
import type { Rec } from '../values.js'
import { CLOCK_MOVE_VIEW, chargesText } from '../work/sandbox/store/view.js'
import { BaseCommand } from './base-command.js'
import { jqFlag, sandboxGlobalFlags } from './flags.js'

/**
 * `pay sandbox clock advance` and `set`: the clock moved through the sandbox that serves the
 * profile (`POST /_sandbox/clock`), else in the local store, as `sandbox pay` and `reset` act
 * (RunContext.sandboxTarget); then `{now, charges_created}` printed.
 */
export abstract class ClockMoveCommand<T extends typeof Command> extends BaseCommand<T> {
  static baseFlags = sandboxGlobalFlags
  static flags = { ...jqFlag }

  protected async moveClock(body: { advance: string } | { to: string }): Promise<Result> {
    const { moved, place } = await moveClock(await this.context.sandboxTarget(), body)
    return [
      shown.record(moved, CLOCK_MOVE_VIEW),
      shown.note(
        `Sandbox time is now ${String(moved.now)} (${place}): ${chargesText(moved.charges_created)}.`,
      ),
    ]
  }
}

/**
 * The clock moved where a sandbox command acts (`sandbox clock advance` and `set`, and `pay
 * mcp`'s sandbox_clock_advance): `{now, charges_created}`, and where it moved, for the message.
 */
export async function moveClock(
  where: SandboxTarget,
  body: { advance: string } | { to: string },
): Promise<{ moved: Rec; place: string }> {
  if (where.server) {
    const place = `the sandbox at ${where.target.baseUrl}`
    try {
      return { moved: await where.api.send('sandboxMoveClock', { body }), place }
    } catch (error) {
      throw refused(error, place)
    }
  }
  const place = `the local sandbox store ${where.dir}`
  const { moveClockIn, ClockRefused } = await loadLocalStore()
  try {
    return { moved: moveClockIn(where.dir, body, where.baseUrl), place }
  } catch (error) {
    if (error instanceof ClockRefused) throw usageError(error.message)
    throw error
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
