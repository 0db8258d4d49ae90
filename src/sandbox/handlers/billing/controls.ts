/**
 * The sandbox clock's controls (`/_sandbox/clock`, not in docs/spec/), handlers of the route table
 * (http/routes.ts): what `pay sandbox clock` and the library's clock do through a running server.
 * The clock is the whole store's, not the caller's business's.
 */
import { type Reply, success, valid } from '../../domain/answers.js'
import { readClock } from '../../store/clock.js'
import type { KeyContext } from '../context.js'
import { applyClockMove } from './billing.js'

/** `GET /_sandbox/clock`: sandbox time, and how far it is ahead of real time. */
export const showClock = ({ store, now }: KeyContext): Reply => success(readClock(store), now)

/** `POST /_sandbox/clock` `{"advance": "30d"}` or `{"to": "2027-01-01"}`: the clock moved, what came due billed. */
export function moveClock({ store, body }: KeyContext): Reply {
  const moved = valid(applyClockMove(store, body))
  return success(moved, Date.parse(moved.now))
}
