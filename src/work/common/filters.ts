import { usageError } from '../../errors.js'
import { lookup } from '../../render/format.js'
import { parseDuration, parsePoint, shift } from '../../shared/duration.js'
import { plain, type Rec } from '../../values.js'
import type { OptionSpecs } from './options.js'

/** One client-side list filter: a flag's value compared with a field of each record. */
interface Filter {
  field: string
  /** The flag's value; undefined when the flag was not given. */
  value: string | boolean | undefined
}

/** A record matches when every filter that was given matches its field; text ignores case. */
export function matchesAll(filters: Filter[]): ((record: Rec) => boolean) | undefined {
  const given = filters.filter((filter) => filter.value !== undefined)
  if (given.length === 0) return undefined
  return (record) =>
    given.every(({ field, value }) => {
      const actual = record[field]
      if (typeof value === 'boolean') return actual === value
      return plain(actual).toLowerCase() === String(value).toLowerCase()
    })
}

/** The statuses a resource knows, and the words people (and pay's own output) use for them. */
export interface Statuses {
  known: string[]
  /** Another word -> the service's value: `cancelled` -> `cancel`. */
  aliases: Record<string, string>
}

/**
 * The service's value for a --status a user typed: case-insensitive, aliases allowed; anything
 * else is a usage error listing the known values.
 */
export function canonicalStatus(typed: string | undefined, statuses: Statuses): string | undefined {
  if (typed === undefined) return undefined
  const word = typed.trim().toLowerCase()
  const known = statuses.known.find((status) => status.toLowerCase() === word)
  if (known) return known
  if (Object.hasOwn(statuses.aliases, word)) return statuses.aliases[word]
  const words = [
    ...statuses.known,
    ...Object.entries(statuses.aliases).map(([alias, status]) => `${alias} (= ${status})`),
  ]
  throw usageError(`Unknown status "${typed}" for --status.`, `Known: ${words.join(', ')}.`)
}

/** A test of a record; undefined where nothing was asked. */
export type Match = ((record: Rec) => boolean) | undefined

/** Records that pass every test given; undefined when none was. */
export function allOf(...tests: Match[]): Match {
  const given = tests.filter((test): test is (record: Rec) => boolean => test !== undefined)
  if (given.length === 0) return undefined
  return (record) => given.every((test) => test(record))
}

/** Text as --search compares it: without accents (`cafe` finds `Café`), lower-cased. */
const folded = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()

/** --search TEXT: records with TEXT in any of `fields`, in any case, with or without accents. */
export function containsText(fields: string[], text: string | undefined): Match {
  if (text === undefined) return undefined
  const needle = folded(text.trim())
  if (needle === '') throw usageError('--search needs some text to look for.')
  return (record) => fields.some((field) => folded(plain(lookup(record, field).value)).includes(needle))
}

/** --created-after and --created-before of the list commands. */
export const CREATED_OPTIONS = {
  'created-after': {
    kind: 'text',
    description:
      'Only records created at or after this: a date (2026-11-01), a date and time, or a span back (7d).',
    helpValue: 'DATE',
  },
  'created-before': {
    kind: 'text',
    description:
      'Only records created before this: a date (2026-12-01), a date and time, or a span back (24h).',
    helpValue: 'DATE',
  },
} as const satisfies OptionSpecs

/**
 * A moment a flag names: a date (midnight UTC), a date and time (UTC unless a zone is given), or
 * a span back from `now` (`7d`, `12h`, `1mo`); anything else is a usage error naming the flag.
 */
export function momentOf(text: string, flag: string, now: number): number {
  const point = parsePoint(text)
  if (point) return point.at
  const span = parseDuration(text)
  if (span) return shift(now, span, -1)
  throw usageError(
    `--${flag}: "${text}" is neither a date nor a span back from now.`,
    'Give a date (2026-11-01), a date and time (2026-11-01T09:00:00Z), or a span such as 7d, 12h or 1mo.',
  )
}

/**
 * Records created from `created-after` on and before `created-before` (so that `--created-after
 * 2026-11-01 --created-before 2026-12-01` is November); a record whose created_at is no date is
 * left out once either is given.
 */
export function createdWithin(
  range: { 'created-after'?: string; 'created-before'?: string },
  now: number,
): Match {
  const after =
    range['created-after'] === undefined ? undefined : momentOf(range['created-after'], 'created-after', now)
  const before =
    range['created-before'] === undefined
      ? undefined
      : momentOf(range['created-before'], 'created-before', now)
  if (after === undefined && before === undefined) return undefined
  return (record) => {
    const at = typeof record.created_at === 'string' ? Date.parse(record.created_at) : Number.NaN
    if (Number.isNaN(at)) return false
    return (after === undefined || at >= after) && (before === undefined || at < before)
  }
}
