/**
 * `pay sandbox clock` on the local store, when no sandbox serves the profile: the same clock and
 * the same billing as `GET/POST /_sandbox/clock` (billing.ts), on the database in `dir`.
 */

import { readClock } from '../../store/clock.js'
import { inStore } from '../../store/local.js'
import { applyClockMove, ClockRefused } from './billing.js'

/** The clock of the store in `dir`: `{now, offset_seconds}`. */
export function clockIn(dir: string): { now: string; offset_seconds: number } {
  return inStore(dir, readClock)
}

/**
 * Moves the clock of the store in `dir` (`{advance: "30d"}` or `{to: "2027-01-01"}`, as the route
 * takes them) and bills what came due. A move that
 * means nothing, or goes back, throws ClockRefused and changes nothing.
 */
export function moveClockIn(
  dir: string,
  body: { advance: string } | { to: string },
): { now: string; charges_created: number } {
  return inStore(dir, (store) => {
    const moved = applyClockMove(store, body)
    if (moved.ok) return moved.value
    const [field, [message]] = Object.entries(moved.errors)[0]
    throw new ClockRefused(field as 'advance' | 'to', message)
  })
}

export { ClockRefused }
