import { PayError } from '../errors.js'
import type { Output } from '../render/output.js'
import { StatusLine } from '../render/status-line.js'
import { type Duration, describeDuration, isZero, shift } from '../shared/duration.js'
import { type Rec, sanitizeText } from '../values.js'
import type { IO } from './io.js'
import { stopper } from './stop.js'

/** The first pause between two looks, the longest, and how much each grows. */
const FIRST_PAUSE_MS = 1000
const LONGEST_PAUSE_MS = 5000
const GROWTH = 1.5
/** The longest delay a timer holds (2^31 - 1 ms, 24.8 days). */
const LONGEST_TIMER_MS = 2 ** 31 - 1

/**
 * The pause before look number `attempt + 1`: 1 s, growing to 5 s, each shortened by up to a
 * fifth at random (jitter), so that many waiting clients do not ask in step.
 */
export function pauseMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * GROWTH ** attempt)
  return Math.round(base * (1 - 0.2 * random()))
}

/**
 * What is heard of the record from elsewhere while the wait looks at it (on the sandbox, the
 * notification of a customer's payment attempt): each said once, as it comes.
 */
export type News =
  /** Look again now: the record may be what was waited for. */
  | { kind: 'look' }
  /** A state of the record to say: after the times on the redrawn line (`short`), else a line once. */
  | { kind: 'state'; short: string; line: string }
  /** The wait is over, whatever the record says: one last look, and that record is the answer. */
  | { kind: 'end' }

export interface Wait {
  /** What is waited for, for people: `payment link 65a… to be paid`. */
  what: string
  /** The same, shorter, for the redrawn line: `link 65a… to be paid`. */
  short: string
  /** One look at the record (a GET). */
  look: () => Promise<Rec>
  /** Whether the record is what was waited for. */
  done: (record: Rec) => boolean
  /** How long to wait; 0: for ever. */
  timeout: Duration
  io: IO
  out: Output
  random?: () => number
  /** Given, before the first look, the function with which what is heard is told (News). */
  hear?: (tell: (news: News) => void) => void
}

/**
 * Looks at a record until `done` says yes, and returns it (at once if it already is); or, once
 * told that the wait is over (News `end`), returns the record as one last look finds it. Between
 * looks it pauses (pauseMs), or looks again at once when told to. The service failing for a while (a 5xx, a reset, a timeout: exit 6's
 * kind) does not end the wait; any other error does (401, 404), and so does one that says no later
 * look can do better (the sandbox is no longer the user's: PayError.ends). Ctrl-C ends it at once (exit 130),
 * and so does the end of `timeout` (exit 8).
 *
 * What it says on stderr: on a terminal that can redraw (TERM not dumb, NO_COLOR and PAY_ACCESSIBLE unset), one line
 * redrawn every second with the time waited and left; elsewhere a plain line when it starts and
 * whenever the service stops or starts answering, never a line a second.
 */
export async function waitFor(wait: Wait): Promise<Rec> {
  const { io, out } = wait
  const started = Date.now()
  const limitMs = isZero(wait.timeout) ? 0 : shift(started, wait.timeout) - started
  const limitText = limitMs ? describeDuration(wait.timeout) : undefined
  const what = sanitizeText(wait.what)
  // stderrColour is false exactly when stderr is no terminal, TERM is dumb or NO_COLOR is set;
  // in accessible mode (PAY_ACCESSIBLE) nothing is redrawn either.
  const line = io.stderrColour && io.canRedraw ? new StatusLine(io.stderr, () => io.width) : undefined
  let failing: string | undefined
  /** What was heard of the record's state (`attempt pending`), said after the times. */
  let heard: string | undefined
  let ending = false
  let wake: (() => void) | undefined

  const say = () => {
    if (!line) return
    const waited = Date.now() - started
    const left = limitMs ? Math.max(0, limitMs - waited) : undefined
    // At 80 columns a whole id leaves little room: the times are shortened, then the time
    // waited goes, never the state ("no answer" is the one sign that the service is down).
    const state = [failing ? 'no answer' : undefined, heard]
      .map((part) => (part ? ` · ${part}` : ''))
      .join('')
    const versions = [
      [clock(waited), left === undefined ? '' : `${clock(left)} left`],
      [clock(waited, true), left === undefined ? '' : `${clock(left, true)} left`],
      [left === undefined ? clock(waited, true) : `${clock(left, true)} left`],
      [left === undefined ? clock(waited, true, true) : `${clock(left, true, true)} left`],
      [],
    ].map(
      (times) => [`Waiting for ${sanitizeText(wait.short)}`, ...times.filter(Boolean)].join(' · ') + state,
    )
    line.draw(versions, state)
  }
  const tell = (message: string) => {
    if (!line) out.note(message)
  }

  const { stopped, stop } = stopper()
  const timers: NodeJS.Timeout[] = []
  const stopListening = io.onInterrupt(() => stop(new PayError('Cancelled.', { kind: 'cancelled' })))
  if (limitMs) {
    const timedOut = () =>
      stop(
        new PayError(`Still waiting for ${what} after ${limitText}.`, {
          kind: 'wait_timeout',
          hint: 'Wait longer with --timeout DURATION (0: no limit).',
        }),
      )
    // A timer holds at most 24.8 days (a longer one fires at once): a longer wait is timed in steps.
    const deadline = started + limitMs
    const arm = () => {
      const left = deadline - Date.now()
      timers.push(left > LONGEST_TIMER_MS ? setTimeout(arm, LONGEST_TIMER_MS) : setTimeout(timedOut, left))
    }
    arm()
  }
  // The first look comes first: a link paid already, or unknown, is said nothing about waiting.
  let announced = false
  const announce = () => {
    if (!announced) tell(`Waiting for ${what}${limitText ? ` (at most ${limitText})` : ''}.`)
    announced = true
  }
  if (line) timers.push(setInterval(say, 1000))
  wait.hear?.((news) => {
    if (news.kind === 'state') {
      heard = sanitizeText(news.short)
      tell(sanitizeText(news.line))
      say()
      return
    }
    if (news.kind === 'end') ending = true
    wake?.()
  })
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const record = await Promise.race([wait.look(), stopped])
        if (wait.done(record) || ending) return record
        announce()
        if (failing !== undefined) tell('The service answers again; still waiting.')
        failing = undefined
      } catch (error) {
        // Ctrl-C and the timeout end the race with errors of their own kinds: thrown here too.
        if (!(error instanceof PayError) || error.kind !== 'unavailable' || error.ends) throw error
        announce()
        if (failing === undefined) {
          tell(`The service does not answer (${sanitizeText(error.message)}); still waiting.`)
        }
        failing = error.message
      }
      say()
      const woken = new Promise<void>((resolve) => {
        wake = resolve
      })
      await Promise.race([pause(pauseMs(attempt, wait.random), timers), woken, stopped])
      wake = undefined
    }
  } finally {
    for (const timer of timers) clearTimeout(timer)
    stopListening()
    line?.clear()
  }
}

function pause(ms: number, timers: NodeJS.Timeout[]): Promise<void> {
  return new Promise((resolve) => {
    timers.push(setTimeout(resolve, ms))
  })
}

/** `1m 05s`, `12s`, `2h 03m`; `tight`: `1m05s`, `2h03m`; `whole`: minutes at most (`1m`, `2h03m`). */
function clock(ms: number, tight = false, whole = false): string {
  const seconds = Math.floor(ms / 1000)
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60]
  const pad = (n: number) => String(n).padStart(2, '0')
  const gap = tight ? '' : ' '
  if (h) return `${h}h${gap}${pad(m)}m`
  if (m) return whole ? `${m}m` : `${m}m${gap}${pad(s)}s`
  return `${s}s`
}
