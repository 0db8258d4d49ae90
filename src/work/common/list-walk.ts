import type { ListPage } from '../../api/types.js'
import type { ListOutcome } from '../../render/output.js'
import type { Rec } from '../../values.js'
import { type SortOrder, sortRecords } from './sort.js'

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
  scope: ListScope & { limitGiven: boolean; takesAll?: boolean },
): RecordWalk {
  const walk = scope.all || match !== undefined || scope.limitGiven
  const asked = { takesAll: scope.takesAll ?? true, all: scope.all, limitGiven: scope.limitGiven }
  const outcome: ListOutcome = {
    shown: 0,
    more: undefined,
    pages: 0,
    scanned: 0,
    filtered: Boolean(match),
    asked,
  }
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

/**
 * The walk of a list, sorted (`--sort`) when an order is given: every page is read (with the
 * filter, if any), the matches sorted, then as many shown as the scope says. Without an order,
 * walkRecords.
 */
export function walkList(
  pages: AsyncIterable<ListPage>,
  match: ((record: Rec) => boolean) | undefined,
  order: SortOrder | undefined,
  scope: ListScope & { limitGiven: boolean; takesAll?: boolean },
): RecordWalk {
  if (order === undefined) return walkRecords(pages, match, scope)
  const every = walkRecords(pages, match, { all: true, limitGiven: false })
  let outcome: ListOutcome | undefined
  async function* batches(): AsyncGenerator<Rec[]> {
    const found: Rec[] = []
    for await (const batch of every.batches) found.push(...batch)
    const sorted = sortRecords(found, order as SortOrder)
    const shown = scope.limit === undefined ? sorted : sorted.slice(0, scope.limit)
    outcome = {
      ...every.outcome(),
      shown: shown.length,
      more: shown.length < sorted.length ? 'limit' : undefined,
      // Every page was read to sort, but the notes answer what the command line asked.
      asked: { takesAll: scope.takesAll ?? true, all: scope.all, limitGiven: scope.limitGiven },
    }
    if (shown.length > 0) yield shown
  }
  return { batches: batches(), outcome: () => outcome ?? every.outcome() }
}
