import { describe, expect, it } from 'vitest'
import type { ListPage } from '../../../../src/api/types.js'
import { walkRecords } from '../../../../src/work/common/list-walk.js'
import { subscriptionFilter } from '../../../../src/work/subs/filters.js'

/** Pages of `size` records numbered from 0; counts the pages read. */
function pagesOf(total: number, size: number) {
  const read = { pages: 0 }
  async function* pages(): AsyncGenerator<ListPage> {
    for (let start = 0; start < total; start += size) {
      read.pages += 1
      const items = Array.from({ length: Math.min(size, total - start) }, (_, i) => ({
        _id: `r${start + i}`,
        status: (start + i) % 10 === 0 ? 'cancel' : 'created',
      }))
      yield { items, more: start + size < total }
    }
  }
  return { pages: pages(), read }
}

const ids = (items: { _id?: unknown }[]) => items.map((item) => item._id)

/** The whole of a walk: its records in one array, and its outcome. */
async function findRecords(...args: Parameters<typeof walkRecords>) {
  const walk = walkRecords(...args)
  const items: Record<string, unknown>[] = []
  for await (const batch of walk.batches) items.push(...batch)
  return { ...walk.outcome(), items }
}

describe('walkRecords', () => {
  it('without a filter reads only the first page, and says more exist', async () => {
    const { pages, read } = pagesOf(120, 50)
    const found = await findRecords(pages, undefined, { all: false, limitGiven: false })
    expect([found.items.length, found.more, found.pages, read.pages]).toEqual([50, 'pages', 1, 1])
  })

  it('with a filter searches every page, whatever page the matches are on', async () => {
    const { pages, read } = pagesOf(120, 50)
    const found = await findRecords(pages, subscriptionFilter({ status: 'cancelled' }), {
      all: false,
      limitGiven: false,
    })
    expect(ids(found.items)).toEqual([
      'r0',
      'r10',
      'r20',
      'r30',
      'r40',
      'r50',
      'r60',
      'r70',
      'r80',
      'r90',
      'r100',
      'r110',
    ])
    expect([found.more, found.pages, found.scanned, found.filtered, read.pages]).toEqual([
      undefined,
      3,
      120,
      true,
      3,
    ])
  })

  it('stops reading at the limit, and says there may be more', async () => {
    const { pages, read } = pagesOf(120, 50)
    const found = await findRecords(pages, subscriptionFilter({ status: 'CANCEL' }), {
      all: false,
      limit: 6,
      limitGiven: true,
    })
    expect(ids(found.items)).toEqual(['r0', 'r10', 'r20', 'r30', 'r40', 'r50'])
    expect([found.more, read.pages]).toEqual(['limit', 2])
  })

  it('a limit reached on the very last record is no cut', async () => {
    const { pages } = pagesOf(30, 50)
    const found = await findRecords(pages, undefined, { all: false, limit: 30, limitGiven: false })
    expect([found.items.length, found.more]).toEqual([30, undefined])
  })

  it('--all reads every page, and a default limit still cuts what a terminal shows', async () => {
    const { pages, read } = pagesOf(120, 50)
    const found = await findRecords(pages, undefined, { all: true, limit: 30, limitGiven: false })
    expect([found.items.length, found.more, read.pages]).toEqual([30, 'limit', 1])
    const everything = await findRecords(pagesOf(120, 50).pages, undefined, { all: true, limitGiven: false })
    expect([everything.items.length, everything.more, everything.pages]).toEqual([120, undefined, 3])
  })

  it('gives the matches of each page as one batch, and reads the next page only once a batch is taken', async () => {
    const { pages, read } = pagesOf(120, 50)
    const walk = walkRecords(pages, subscriptionFilter({ status: 'created' }), {
      all: true,
      limitGiven: false,
    })
    const seen: number[][] = []
    for await (const batch of walk.batches) seen.push([batch.length, read.pages])
    expect(seen).toEqual([
      [45, 1],
      [45, 2],
      [18, 3],
    ])
    expect(walk.outcome()).toEqual({
      shown: 108,
      more: undefined,
      pages: 3,
      scanned: 120,
      filtered: true,
      asked: { takesAll: true, all: true, limitGiven: false },
    })
  })
})
