import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../../../helpers/cli.js'
import {
  KEY_B,
  OBJECT_ID,
  startTestSandbox,
  type TestSandbox,
  tempDir,
  VALID_LINK,
  VALID_TOKEN,
} from '../../../helpers/sandbox.js'

/**
 * Ids that cannot be guessed. A payment page is public and payable by whoever
 * has its link's id: an id made of the time and a counter gave other customers' ids away in a
 * few guesses. Every `_id` is 96 random bits (still 24 hex characters), every token 160; ids of
 * records already in a store stay as they were.
 */

let t: TestSandbox
beforeAll(async () => {
  t = await startTestSandbox()
})
afterAll(() => t.close())

/** Whether two of `ids` share the hex characters from `start` to `end`. */
function sharedSlice(ids: string[], start: number, end: number): string | undefined {
  const seen = new Set<string>()
  for (const id of ids) {
    const slice = id.slice(start, end)
    if (seen.has(slice)) return slice
    seen.add(slice)
  }
  return undefined
}

describe('ids and tokens', () => {
  it('no part of an _id follows from another: 300 made in a row share no time, process or counter bytes', async () => {
    const ids: string[] = []
    for (let i = 0; i < 100; i++) {
      ids.push((await t.a.call('POST', '/payment-links', VALID_LINK)).json.data._id)
      ids.push((await t.b.call('POST', '/tokenizations/create-token', VALID_TOKEN)).json.data._id)
      ids.push(
        (await t.a.call('POST', '/subscriptions', { package_id: t.packageIds[0], email: 'a@example.com' }))
          .json.data._id,
      )
    }
    for (const id of ids) expect(id).toMatch(OBJECT_ID)
    // An ObjectId's first 4 bytes are the second, the next 5 the process, the last 3 a counter:
    // with 96 random bits, no two of 300 ids share any of these (odds of a clash: under 1 in 10^5).
    expect(sharedSlice(ids, 0, 8)).toBeUndefined()
    expect(sharedSlice(ids, 8, 18)).toBeUndefined()
    const counters = ids.map((id) => Number.parseInt(id.slice(18), 16))
    const steps = counters.slice(1).filter((value, i) => value - counters[i] === 1)
    expect(steps).toEqual([])
  })

  it('tokens are 40 random hex characters; no two share their first 8', async () => {
    const tokens: string[] = []
    for (let i = 0; i < 100; i++) {
      tokens.push((await t.a.call('POST', '/tokenizations/create-token', VALID_TOKEN)).json.data.token)
    }
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{40}$/)
    expect(sharedSlice(tokens, 0, 8)).toBeUndefined()
  })

  it('a store made before keeps its ids: every record is found under the id it had', async () => {
    const dir = tempDir('pay-ids-')
    fs.copyFileSync(path.join(ROOT, 'test/fixtures/store-1.db'), path.join(dir, 'store.db'))
    const legacy = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/store-0.1.json'), 'utf8'))
    const old = await startTestSandbox({ dir, keys: [t.key, KEY_B] })
    try {
      const links = Object.values(legacy.businesses).flatMap((business) =>
        Object.keys((business as { payment_links: object }).payment_links),
      )
      expect(links.length).toBeGreaterThan(3)
      let found = 0
      for (const client of [old.a, old.b]) {
        for (const id of links) {
          const answer = await client.call('GET', `/payment-links/${id}`)
          if (answer.status === 200) {
            expect(answer.json.data._id).toBe(id)
            found++
          }
        }
      }
      expect(found).toBe(links.length)
    } finally {
      await old.close()
    }
  })
})
