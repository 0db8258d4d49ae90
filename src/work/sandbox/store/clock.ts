/**
 * The sandbox clock (`pay sandbox clock`, `clock advance|set`, and `pay mcp`'s
 * sandbox_clock_advance): read or moved through the sandbox that serves the profile
 * (`/_sandbox/clock`), else in the local store, as `sandbox pay` and `reset` act.
 */
import { PayError, usageError } from '../../../errors.js'
import { loadLocalStore } from '../../../sandbox/index.js'
import { DURATION_FORMS, POINT_FORMS, parseDuration, parsePoint } from '../../../shared/duration.js'
import type { Rec } from '../../../values.js'
import { placeOf, type SandboxContext } from '../where.js'

/** `{now, offset_seconds}` as the clock answers; `place`: where it was read, for the message. */
export interface ClockRead {
  clock: Rec
  place: string
}

/** `{now, charges_created}` once moved; `place`: where it moved, for the message. */
export interface ClockMoved {
  moved: Rec
  place: string
}

/** How far: forward by a duration (`30d`, `P1M`), or to a later date or time. */
export type ClockMove = { advance: string } | { to: string }

/** `sandbox clock`: sandbox time and how far it is ahead of real time. */
export async function readClock(context: SandboxContext): Promise<ClockRead> {
  const where = await context.sandboxTarget()
  if (where.server) return { clock: await where.api.send('sandboxClock'), place: placeOf(where) }
  const { clockIn } = await loadLocalStore()
  return { clock: clockIn(where.dir), place: placeOf(where) }
}

/**
 * `sandbox clock advance|set`: the clock moved forward, and the subscription charges that came
 * due made. A duration or time that cannot be read is exit 2, before anything is asked.
 */
export async function moveClock(move: ClockMove, context: SandboxContext): Promise<ClockMoved> {
  if ('advance' in move && !parseDuration(move.advance))
    throw usageError(`"${move.advance}" is not a duration.`, `Durations: ${DURATION_FORMS}.`)
  if ('to' in move && !parsePoint(move.to))
    throw usageError(`"${move.to}" is not a date or time.`, `Give ${POINT_FORMS}.`)
  const where = await context.sandboxTarget()
  const place = placeOf(where)
  if (where.server) {
    try {
      return { moved: await where.api.send('sandboxMoveClock', { body: move }), place }
    } catch (error) {
      throw refused(error, place)
    }
  }
  const { moveClockIn, ClockRefused } = await loadLocalStore()
  try {
    return { moved: moveClockIn(where.dir, move), place }
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
