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

/** A walk over a list's pages: the matching records in batches, then what the notes need. */
export interface RecordWalk {
  /** The records to show, a page's worth at a time, as the pages arrive. */
  batches: AsyncIterable<Rec[]>
  /** Known once the batches are spent. */
  outcome(): ListOutcome
}

/**
 * Walks the pages of a list: with a filter every page is searched (until `limit` matches);
 * without one only the first page is read, unless `all` or an explicit limit asks for more. The
 * next page is requested only once the batch of the one before has been taken, so a reader that
 * prints each batch (--jsonl) holds one page at a time.
 */
export function walkRecords(
  pages: AsyncIterable<ListPage>,
  match: ((record: Rec) => boolean) | undefined,
  scope: ListScope & { limitGiven: boolean },
): RecordWalk {
  const walk = scope.all || match !== undefined || scope.limitGiven
  const outcome: ListOutcome = { shown: 0, more: undefined, pages: 0, scanned: 0, filtered: Boolean(match) }
  async function* batches(): AsyncGenerator<Rec[]> {
    for await (const page of pages) {
      outcome.pages += 1
      const batch: Rec[] = []
      for (const [index, record] of page.items.entries()) {
        outcome.scanned += 1
        if (match && !match(record)) continue
        batch.push(record)
        outcome.shown += 1
        const rest = index < page.items.length - 1 || page.more
        if (scope.limit !== undefined && outcome.shown >= scope.limit && rest) {
          outcome.more = 'limit'
          yield batch
          return
        }
      }
      if (batch.length > 0) yield batch
      if (!walk && page.more) {
        outcome.more = 'pages'
        return
      }
    }
  }
  return { batches: batches(), outcome: () => ({ ...outcome }) }
}
