import type { ListPage } from '../api/types.js'
import { usageError } from '../errors.js'
import type { ListOutcome } from '../render/output.js'
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

export interface ListScope {
  /** Follow every page. */
  all: boolean
  /** Stop after this many records (matches, when filtering). */
  limit?: number
}

/** What a list command found: the records, and what the notes under the list need. */
export interface Found extends ListOutcome {
  items: Rec[]
}

/**
 * Walks the pages of a list: with a filter every page is searched (until `limit` matches);
 * without one only the first page is read, unless `all` or an explicit limit asks for more.
 */
export async function findRecords(
  pages: AsyncIterable<ListPage>,
  match: ((record: Rec) => boolean) | undefined,
  scope: ListScope & { limitGiven: boolean },
): Promise<Found> {
  const items: Rec[] = []
  const walk = scope.all || match !== undefined || scope.limitGiven
  let count = 0
  let scanned = 0
  for await (const page of pages) {
    count += 1
    for (const [index, record] of page.items.entries()) {
      scanned += 1
      if (match && !match(record)) continue
      items.push(record)
      const rest = index < page.items.length - 1 || page.more
      if (scope.limit !== undefined && items.length >= scope.limit && rest) {
        return { items, more: 'limit', pages: count, scanned, filtered: Boolean(match) }
      }
    }
    if (!walk && page.more) return { items, more: 'pages', pages: count, scanned, filtered: false }
  }
  return { items, more: undefined, pages: count, scanned, filtered: Boolean(match) }
}
