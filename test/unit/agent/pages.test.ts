import { describe, expect, it } from 'vitest'
import { Pager } from '../../../src/agent/pages.js'
import type { PayError } from '../../../src/errors.js'
import type { Rec } from '../../../src/values.js'

/** The list tools' pages (src/agent/pages.ts): a cursor goes on where the walk stopped, or walks again. */

/** A list of `count` records in pages of 7, counting the pages read. */
function list(count: number) {
  const read = { pages: 0 }
  const start = async () =>
    (async function* (): AsyncGenerator<Rec[]> {
      for (let first = 0; first < count; first += 7) {
        read.pages += 1
        yield Array.from({ length: Math.min(7, count - first) }, (_, i) => ({ _id: `r${first + i}` }))
      }
    })()
  return { read, start }
}

const ids = (items: Rec[]) => items.map((item) => item._id)

describe('pages of a list', () => {
  it('hands out `limit` records at a time, with a cursor until the last', async () => {
    const pager = new Pager()
    const { read, start } = list(20)
    const first = await pager.page('links_list', {}, undefined, 8, start)
    expect(ids(first.items)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'])
    const second = await pager.page('links_list', {}, first.next_cursor, 8, start)
    expect(ids(second.items)).toEqual(['r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15'])
    const last = await pager.page('links_list', {}, second.next_cursor, 8, start)
    expect(last).toEqual({ items: [{ _id: 'r16' }, { _id: 'r17' }, { _id: 'r18' }, { _id: 'r19' }] })
    // One walk: each page of the list read once.
    expect(read.pages).toBe(3)
  })

  it('a cursor used again, or from a walk no longer open, walks the list again past what was handed out', async () => {
    const pager = new Pager()
    const { read, start } = list(20)
    const first = await pager.page('links_list', {}, undefined, 5, start)
    await pager.page('links_list', {}, first.next_cursor, 5, start)
    const again = await pager.page('links_list', {}, first.next_cursor, 5, start)
    expect(ids(again.items)).toEqual(['r5', 'r6', 'r7', 'r8', 'r9'])
    expect(read.pages).toBe(4)
    const fresh = new Pager()
    const elsewhere = await fresh.page('links_list', {}, first.next_cursor, 100, start)
    expect(ids(elsewhere.items)).toEqual(Array.from({ length: 15 }, (_, i) => `r${i + 5}`))
    expect(elsewhere.next_cursor).toBeUndefined()
  })

  it('refuses a cursor of other filters or that no list tool gave', async () => {
    const pager = new Pager()
    const { start } = list(20)
    const first = await pager.page('links_list', { email: 'a@b.co' }, undefined, 5, start)
    const refusal = (cursor: string, filters: Record<string, unknown>) =>
      pager.page('links_list', filters, cursor, 5, start).then(
        () => 'accepted',
        (error: PayError) => `${error.kind}: ${error.message}`,
      )
    expect(await refusal(first.next_cursor as string, { email: 'b@b.co' })).toBe(
      'usage: The cursor belongs to another list or other filters.',
    )
    expect(await refusal('garbage', {})).toBe('usage: The cursor is not one a list tool gave.')
  })
})
