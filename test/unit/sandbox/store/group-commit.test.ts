import Database from 'libsql'
import { afterEach, describe, expect, it } from 'vitest'
import { newLink } from '../../../../src/sandbox/domain/build.js'
import { businessOf } from '../../../../src/sandbox/domain/business.js'
import { catchUp } from '../../../../src/sandbox/handlers/billing/billing.js'
import { moveClockIn } from '../../../../src/sandbox/handlers/billing/clock.js'
import { inStore } from '../../../../src/sandbox/store/local.js'
import { SandboxStore } from '../../../../src/sandbox/store/store.js'
import { KEY_A, KEY_B, tempDir, VALID_LINK } from '../../../helpers/sandbox.js'

/**
 * The group commit (store/transactions.ts): the requests a server answers in one turn of the event
 * loop share one transaction, each in a savepoint, committed at the end of the turn; each is told
 * only once its write is committed.
 */

const business = businessOf(KEY_A)
const link = (title: string) =>
  newLink(business.businessId, { ...VALID_LINK, amount: 25.5, title }, 'http://127.0.0.1:4010', Date.now())
const endOfTurn = () => new Promise((resolve) => setImmediate(resolve))

const open: SandboxStore[] = []
const storeIn = (dir = tempDir()) => {
  const store = new SandboxStore(dir)
  open.push(store)
  return store
}
afterEach(() => {
  for (const store of open.splice(0)) store.close()
})

/** The titles of the links another connection sees: what was committed. */
function committedTitles(store: SandboxStore): string[] {
  const db = new Database(store.file)
  try {
    const rows = db.prepare('SELECT record FROM payment_links ORDER BY seq').all() as { record: string }[]
    return rows.map((row) => JSON.parse(row.record).title)
  } finally {
    db.close()
  }
}

describe('the group commit', () => {
  it('commits the requests of one turn together at its end, and tells each only then', async () => {
    const store = storeIn()
    const told: string[] = []
    const first = store.grouped(() => store.insert('payment_links', business, link('first')))
    const second = store.grouped(() => store.insert('payment_links', business, link('second')))
    first.then(() => told.push('first'))
    second.then(() => told.push('second'))
    await Promise.resolve()
    expect(told).toEqual([])
    expect(committedTitles(store)).toEqual([])
    await endOfTurn()
    expect(told).toEqual(['first', 'second'])
    expect(committedTitles(store)).toEqual(['first', 'second'])
    expect(JSON.parse(await first).title).toBe('first')
  })

  it('undoes only the writes of a request that fails; the others of its group are kept', async () => {
    const store = storeIn()
    const kept = store.grouped(() => store.insert('payment_links', business, link('kept')))
    const failed = store.grouped(() => {
      store.insert('payment_links', business, link('undone'))
      throw new Error('refused after writing')
    })
    const after = store.grouped(() => store.insert('payment_links', business, link('after')))
    await expect(failed).rejects.toThrow('refused after writing')
    await Promise.all([kept, after])
    expect(committedTitles(store)).toEqual(['kept', 'after'])
  })

  it("keeps a business's first write in a group, and undoes another's whole with the request that failed", async () => {
    const store = storeIn()
    const other = businessOf(KEY_B)
    const otherLink = newLink(
      other.businessId,
      { ...VALID_LINK, amount: 25.5, title: 'other' },
      'http://x',
      0,
    )
    // Both businesses are new: each insert finds no business row, adds it, and runs again.
    const kept = store.grouped(() => store.insert('payment_links', business, link('first of A')))
    const failed = store.grouped(() => {
      store.insert('payment_links', other, otherLink)
      throw new Error('refused after writing')
    })
    const after = store.grouped(() => store.insert('payment_links', business, link('second of A')))
    await expect(failed).rejects.toThrow('refused after writing')
    await Promise.all([kept, after])
    expect(committedTitles(store)).toEqual(['first of A', 'second of A'])
    const db = new Database(store.file)
    try {
      const rows = db.prepare('SELECT key_hash, payment_links FROM businesses').all()
      expect(rows).toEqual([{ key_hash: business.keyHash, payment_links: 2 }])
    } finally {
      db.close()
    }
  })

  it('refuses a request that would wait, and keeps none of its writes', async () => {
    const store = storeIn()
    const waiting = store.grouped(() => {
      store.insert('payment_links', business, link('waiting'))
      return Promise.resolve('later')
    })
    await expect(waiting).rejects.toThrow('A grouped request must answer at once.')
    await endOfTurn()
    expect(committedTitles(store)).toEqual([])
  })

  it('commits an open group before another store of the process writes, rather than wait for its lock', async () => {
    const store = storeIn()
    const grouped = store.grouped(() => store.insert('payment_links', business, link('grouped')))
    // Without the commit first, this write would wait for the busy timeout and fail.
    inStore(store.dir, (other) => other.insert('payment_links', business, link('other store')))
    await grouped
    expect(committedTitles(store)).toEqual(['grouped', 'other store'])
  })

  it('a write outside a request commits the open group first', async () => {
    const store = storeIn()
    const grouped = store.grouped(() => store.insert('payment_links', business, link('grouped')))
    store.insert('payment_links', business, link('alone'))
    expect(committedTitles(store)).toEqual(['grouped', 'alone'])
    await grouped
  })

  it('tells what waits for a commit (a notification to send) only once the group is committed, and never an undone part', async () => {
    const store = storeIn()
    const seen: string[][] = []
    const told = (name: string) => () => seen.push([name, ...committedTitles(store)])
    const kept = store.grouped(() => {
      store.insert('payment_links', business, link('paid'))
      store.afterCommit(told('paid'))
    })
    const undone = store.grouped(() => {
      store.insert('payment_links', business, link('undone'))
      store.afterCommit(told('undone'))
      throw new Error('refused after writing')
    })
    await expect(undone).rejects.toThrow('refused after writing')
    expect(seen).toEqual([])
    await kept
    expect(seen).toEqual([['paid', 'paid']])
  })

  it('tells what waits for the commit of a write transaction after it, and at once outside one', () => {
    const store = storeIn()
    const seen: string[][] = []
    store.write(() => {
      store.insert('payment_links', business, link('written'))
      store.afterCommit(() => seen.push(['in write', ...committedTitles(store)]))
      expect(seen).toEqual([])
    })
    expect(seen).toEqual([['in write', 'written']])
    store.afterCommit(() => seen.push(['outside']))
    expect(seen).toEqual([['in write', 'written'], ['outside']])
    expect(() =>
      store.write(() => {
        store.afterCommit(() => seen.push(['rolled back']))
        throw new Error('no')
      }),
    ).toThrow('no')
    expect(seen).toHaveLength(2)
  })
})

describe('checkpoints', () => {
  it("are SQLite's every 1,000 pages unless the store is opened with another number (the server's)", () => {
    const pages = (store: SandboxStore) =>
      (store.statement('PRAGMA wal_autocheckpoint', 'get') as { wal_autocheckpoint: number })
        .wal_autocheckpoint
    const dir = tempDir()
    expect(pages(storeIn(dir))).toBe(1000)
    const server = new SandboxStore(dir, 10_000)
    open.push(server)
    expect(pages(server)).toBe(10_000)
  })
})

describe('sandbox time as a request reads it', () => {
  const DAY = 86_400_000
  const origin = 'http://127.0.0.1:4010'
  /** Sandbox time read by `read`, and the real time around the reading. */
  const timed = async (read: () => number | Promise<number>) => {
    const from = Date.now()
    const at = await read()
    return { offset: at - from, slack: Date.now() - from }
  }

  it('sees the clock another connection moved, and its reset, at the next request', async () => {
    const dir = tempDir()
    const store = storeIn(dir)
    const first = await timed(() => catchUp(store, origin))
    expect(first.offset).toBeGreaterThanOrEqual(0)
    expect(first.offset).toBeLessThanOrEqual(first.slack)
    moveClockIn(dir, { advance: '30d' }, origin)
    const moved = await timed(() => store.grouped(() => catchUp(store, origin)))
    expect(moved.offset).toBeGreaterThanOrEqual(30 * DAY)
    expect(moved.offset).toBeLessThanOrEqual(30 * DAY + moved.slack)
    inStore(dir, (other) => other.empty())
    const reset = await timed(() => catchUp(store, origin))
    expect(reset.offset).toBeGreaterThanOrEqual(0)
    expect(reset.offset).toBeLessThanOrEqual(reset.slack)
  })
})
