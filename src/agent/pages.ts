import { createHash, randomBytes } from 'node:crypto'
import { usageError } from '../errors.js'
import type { Rec } from '../values.js'
import { canonical } from './confirm.js'

/**
 * The list tools' pages: `limit` records at a time from the list a run function walks (every
 * page of the service, filters applied to each), and a `next_cursor` while more remain. The
 * service's lists have pages, not cursors, so a cursor says how many records of that query were
 * handed out; the walk it came from is kept open (a few at a time), so the next call goes on
 * where it stopped. A cursor whose walk is gone (evicted, another server) starts the walk again
 * and skips what was handed out.
 */

/** Walks kept open at once; the one used least recently goes first. */
const OPEN_WALKS = 16

interface Walk {
  id: string
  query: string
  records: AsyncIterator<Rec[]>
  /** Records read but not handed out yet. */
  buffer: Rec[]
  /** Records handed out so far. */
  offset: number
  done: boolean
  busy: boolean
}

interface Cursor {
  /** The walk it came from. */
  w: string
  /** Records handed out before it. */
  o: number
  /** The query it belongs to (the tool and its filters), hashed. */
  q: string
}

export interface Page {
  items: Rec[]
  next_cursor?: string
}

const hash = (query: string) => createHash('sha256').update(query).digest('base64url').slice(0, 16)

function readCursor(text: string, query: string): Cursor {
  let cursor: Partial<Cursor> | undefined
  try {
    cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor>
  } catch {}
  if (
    typeof cursor?.w !== 'string' ||
    typeof cursor.q !== 'string' ||
    !Number.isInteger(cursor.o) ||
    (cursor.o as number) < 0
  ) {
    throw usageError(
      'The cursor is not one a list tool gave.',
      'Pass next_cursor from the answer before, as it was.',
    )
  }
  if (cursor.q !== hash(query)) {
    throw usageError(
      'The cursor belongs to another list or other filters.',
      'Give the same filters as the call that answered it, or leave cursor out to start over.',
    )
  }
  return cursor as Cursor
}

export class Pager {
  private readonly walks = new Map<string, Walk>()

  /**
   * One page of `tool`'s list with these filters: from the cursor's place (the start without
   * one), `limit` records, read from `start()` (the run function's batches) as needed.
   */
  async page(
    tool: string,
    filters: Record<string, unknown>,
    cursorText: string | undefined,
    limit: number,
    start: () => Promise<AsyncIterable<Rec[]>>,
  ): Promise<Page> {
    const query = canonical([tool, filters])
    const cursor = cursorText === undefined ? undefined : readCursor(cursorText, query)
    let walk = cursor ? this.walks.get(cursor.w) : undefined
    if (!walk || walk.busy || walk.offset !== cursor?.o) walk = await this.open(query, start, cursor?.o ?? 0)
    walk.busy = true
    // The most recently used last: the first found idle is the one to close.
    this.walks.delete(walk.id)
    this.walks.set(walk.id, walk)
    try {
      await this.fill(walk, limit + 1)
      const items = walk.buffer.splice(0, limit)
      walk.offset += items.length
      if (walk.buffer.length === 0 && walk.done) {
        this.walks.delete(walk.id)
        return { items }
      }
      const next: Cursor = { w: walk.id, o: walk.offset, q: hash(query) }
      return { items, next_cursor: Buffer.from(JSON.stringify(next)).toString('base64url') }
    } catch (error) {
      this.close(walk)
      throw error
    } finally {
      walk.busy = false
    }
  }

  /** A new walk of the query, past its first `skip` records, kept among the open ones. */
  private async open(query: string, start: () => Promise<AsyncIterable<Rec[]>>, skip: number): Promise<Walk> {
    const records = (await start())[Symbol.asyncIterator]()
    const walk: Walk = {
      id: randomBytes(9).toString('base64url'),
      query,
      records,
      buffer: [],
      offset: 0,
      done: false,
      busy: false,
    }
    while (walk.offset < skip) {
      await this.fill(walk, 1)
      if (walk.buffer.length === 0) break
      const dropped = walk.buffer.splice(0, skip - walk.offset)
      walk.offset += dropped.length
    }
    if (this.walks.size >= OPEN_WALKS) {
      const oldest = [...this.walks.values()].find((open) => !open.busy)
      if (oldest) this.close(oldest)
    }
    this.walks.set(walk.id, walk)
    return walk
  }

  /** Reads until the walk holds `count` records, or its list ends. */
  private async fill(walk: Walk, count: number): Promise<void> {
    while (walk.buffer.length < count && !walk.done) {
      const next = await walk.records.next()
      if (next.done) walk.done = true
      else walk.buffer.push(...next.value)
    }
  }

  private close(walk: Walk): void {
    this.walks.delete(walk.id)
    walk.records.return?.().catch(() => {})
  }

  /** Ends every open walk (the server stops). */
  closeAll(): void {
    for (const walk of [...this.walks.values()]) this.close(walk)
  }
}
