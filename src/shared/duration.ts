/**
 * The one grammar of durations and points in time that pay and its sandbox read: the sandbox's
 * clock route (`{"advance": "30d"}`, `{"to": "2027-01-01"}`) and pay's flags (`sandbox clock
 * advance`, `subs list --overdue`, `links wait --timeout`) read the same, so it is ground both
 * stand on (src/shared/): it imports nothing.
 *
 * A duration is calendar months (months, years) and a fixed length (weeks and below), kept apart:
 * a month is not a number of days (Jan 31 + 1mo is Feb 28 or 29).
 */

export interface Duration {
  /** Calendar months: `mo` and `y` (12 each), ISO `M` and `Y`. */
  months: number
  /** Milliseconds: `w`, `d`, `h`, `m`, `s`, ISO `W`, `D`, `H`, `M` (after T), `S`. */
  ms: number
}

/** What the error of a duration that means nothing names. */
export const DURATION_FORMS =
  'a whole number and a unit: 90s, 15m, 12h, 30d, 2w, 3mo, 1y (combined: 1d12h), or ISO 8601: P1Y2M, P2W, P1DT12H, PT30M'

export const POINT_FORMS = 'a date, 2027-01-01 (midnight UTC), or a date and time, 2027-01-01T09:30:00Z'

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

const UNITS: Record<string, Duration> = {
  s: { months: 0, ms: SECOND },
  m: { months: 0, ms: MINUTE },
  h: { months: 0, ms: HOUR },
  d: { months: 0, ms: DAY },
  w: { months: 0, ms: 7 * DAY },
  mo: { months: 1, ms: 0 },
  y: { months: 12, ms: 0 },
}

/** Longer than this (10,000 years) is no duration anyone means: refused, so dates stay valid. */
const MAX_MONTHS = 12 * 10_000
const MAX_MS = 10_000 * 366 * DAY

const ISO = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i

/** A duration as written (`30d`, `1d12h`, `3mo`, `P1Y2M`, `0`); undefined when it means nothing. */
export function parseDuration(text: string): Duration | undefined {
  const written = text.trim()
  if (written === '0') return { months: 0, ms: 0 }
  let duration: Duration | undefined
  const iso = ISO.exec(written)
  if (iso) {
    const [, y, mo, w, d, h, m, s] = iso.map((part) => (part === undefined ? undefined : Number(part)))
    if ([y, mo, w, d, h, m, s].every((part) => part === undefined)) return undefined
    if (/T$/i.test(written)) return undefined // "P1DT": a T with nothing after it
    duration = {
      months: (y ?? 0) * 12 + (mo ?? 0),
      ms: (w ?? 0) * 7 * DAY + (d ?? 0) * DAY + (h ?? 0) * HOUR + (m ?? 0) * MINUTE + (s ?? 0) * SECOND,
    }
  } else {
    if (!/^(?:\d+(?:mo|[smhdwy]))+$/.test(written)) return undefined
    duration = { months: 0, ms: 0 }
    for (const [, count, unit] of written.matchAll(/(\d+)(mo|[smhdwy])/g)) {
      duration.months += Number(count) * UNITS[unit].months
      duration.ms += Number(count) * UNITS[unit].ms
    }
  }
  return duration.months <= MAX_MONTHS && duration.ms <= MAX_MS ? duration : undefined
}

/** A number of seconds (`--timeout 2`, `0.5`) as a duration; undefined past the longest one. */
export function durationOfSeconds(seconds: number): Duration | undefined {
  const ms = Math.round(seconds * SECOND)
  return ms >= 0 && ms <= MAX_MS ? { months: 0, ms } : undefined
}

export const isZero = (duration: Duration) => duration.months === 0 && duration.ms === 0

/**
 * `at` (milliseconds since the epoch) moved by `duration` (`sign` -1: back): calendar months
 * first, in UTC, keeping the day of the month where the month has it (Jan 31 + 1mo = Feb 28 or
 * 29), then the fixed part.
 */
export function shift(at: number, duration: Duration, sign: 1 | -1 = 1): number {
  let result = at
  if (duration.months !== 0) {
    const date = new Date(at)
    const month = date.getUTCFullYear() * 12 + date.getUTCMonth() + sign * duration.months
    const year = Math.floor(month / 12)
    const monthOfYear = month - year * 12
    const lastDay = new Date(Date.UTC(year, monthOfYear + 1, 0)).getUTCDate()
    const moved = new Date(at)
    moved.setUTCFullYear(year, monthOfYear, Math.min(date.getUTCDate(), lastDay))
    result = moved.getTime()
  }
  return result + sign * duration.ms
}

/** A duration as people read it: `30d`, `1mo 2d 3h`, `45s`, `0s`. */
export function describeDuration(duration: Duration): string {
  const parts: string[] = []
  const years = Math.floor(duration.months / 12)
  if (years) parts.push(`${years}y`)
  if (duration.months % 12) parts.push(`${duration.months % 12}mo`)
  let rest = Math.round(duration.ms / SECOND)
  for (const [unit, size] of [
    ['d', DAY / SECOND],
    ['h', HOUR / SECOND],
    ['m', MINUTE / SECOND],
    ['s', 1],
  ] as const) {
    const count = Math.floor(rest / size)
    rest -= count * size
    if (count) parts.push(`${count}${unit}`)
  }
  return parts.length === 0 ? '0s' : parts.join(' ')
}

/** How finely a point in time was written: `set` compares the clock with it at that precision. */
export type Precision = 'day' | 'minute' | 'second' | 'millisecond'

export interface Point {
  /** Milliseconds since the epoch. */
  at: number
  precision: Precision
}

const POINT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})?)?$/i

/**
 * A date (`2027-01-01`: midnight UTC) or a date and time (`2027-01-01T09:30`, `…:00Z`,
 * `…+02:00`; UTC when no zone is given); undefined when it is none, or no real day (Feb 30).
 */
export function parsePoint(text: string): Point | undefined {
  const match = POINT.exec(text.trim())
  if (!match) return undefined
  const [, y, mo, d, h, mi, s, fraction, zone] = match
  const [year, month, day] = [Number(y), Number(mo), Number(d)]
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) {
    return undefined
  }
  if (h === undefined) return { at: Date.UTC(year, month - 1, day), precision: 'day' }
  const [hour, minute, second] = [Number(h), Number(mi), Number(s ?? 0)]
  if (hour > 23 || minute > 59 || second > 59) return undefined
  const ms = fraction === undefined ? 0 : Number(fraction.padEnd(3, '0'))
  let at = Date.UTC(year, month - 1, day, hour, minute, second, ms)
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const offset = (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * MINUTE
    at -= zone[0] === '+' ? offset : -offset
  }
  const precision: Precision = fraction !== undefined ? 'millisecond' : s !== undefined ? 'second' : 'minute'
  return { at, precision }
}

const PRECISION_MS: Record<Precision, number> = { day: DAY, minute: MINUTE, second: SECOND, millisecond: 1 }

/** `at` cut down to a precision (in UTC): the day, minute or second it falls in. */
export function truncate(at: number, precision: Precision): number {
  const size = PRECISION_MS[precision]
  return Math.floor(at / size) * size
}
