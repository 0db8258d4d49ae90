import { usageError } from '../errors.js'
import { plain, type Rec } from '../values.js'

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
