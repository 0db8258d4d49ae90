import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keyHash } from '../../../../src/sandbox/domain/business.js'
import { settleLinkIn } from '../../../../src/sandbox/handlers/notify/local.js'
import { resetSandbox } from '../../../../src/sandbox/store/local.js'
import {
  dirWithLegacy,
  FIXTURE_ORIGIN,
  fixtureText,
  keptText,
  ownRecords,
  servedRecords,
} from '../../../helpers/legacy-store.js'
import {
  KEY_A,
  KEY_B,
  readStore,
  startTestSandbox,
  storeText,
  type TestSandbox,
  VALID_LINK,
} from '../../../helpers/sandbox.js'
import { listAll } from '../../../helpers/sandbox-load.js'

/**
 * A store.json written by pay 0.1's JSON-file sandbox (test/fixtures/README.md) is imported into
 * the database once, with nothing lost or changed, and kept as store.json.imported. Several
 * processes opening it at once: test/e2e/sandbox/import.test.ts.
 */

const running: TestSandbox[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.close()))
})

async function start(dir: string) {
  const t = await startTestSandbox({ dir })
  running.push(t)
  return t
}

describe('a store.json of pay 0.1', () => {
  it('is imported on first open, byte for byte the same data but for its pages, and renamed store.json.imported', async () => {
    const dir = dirWithLegacy()
    const t = await start(dir)
    expect(t.sandbox.notices).toEqual([
      {
        warning: false,
        message: `Imported 11 records from ${path.join(dir, 'store.json')} (the store of an earlier pay) into ${path.join(dir, 'store.db')}. The old file is kept as store.json.imported.`,
      },
    ])
    // The whole store, written out in the old format, is the old file: same records, fields,
    // values, numbers and order; each page kept as its path, no longer the address of the sandbox
    // that made it (of its 11 records, 5 links and 3 tokenizations have a page).
    expect(keptText.split('"payment_url":"/checkout/pay?id=').length - 1).toBe(5)
    expect(keptText.split('"activation_url":"/checkout/tokens/').length - 1).toBe(3)
    expect(keptText).not.toContain(FIXTURE_ORIGIN)
    expect(storeText(dir)).toBe(keptText)
    expect(fs.existsSync(path.join(dir, 'store.json'))).toBe(false)
    expect(fs.readFileSync(path.join(dir, 'store.json.imported'), 'utf8')).toBe(fixtureText)

    // Served as before, each page on the address of the sandbox serving it: each business sees its
    // own records, lists newest first.
    for (const [key, client] of [
      [KEY_A, t.a],
      [KEY_B, t.b],
    ] as const) {
      for (const resource of ['payment_links', 'subscriptions'] as const) {
        const route = resource === 'payment_links' ? '/payment-links' : '/subscriptions'
        const page = (await client.call('GET', `${route}?per_page=500`)).json.data
        expect(page.data).toEqual(servedRecords(key, resource, t.baseUrl).reverse())
        expect(page.total).toBe(ownRecords(key, resource).length)
        for (const record of servedRecords(key, resource, t.baseUrl)) {
          expect((await client.call('GET', `${route}/${record._id}`)).json.data).toEqual(record)
        }
      }
    }
  })

  it('is not imported twice: a later open imports nothing, and new records come first', async () => {
    const dir = dirWithLegacy()
    const first = await start(dir)
    await first.close()
    const second = await start(dir)
    expect(second.sandbox.notices).toEqual([])
    const created = (await second.a.call('POST', '/payment-links', VALID_LINK)).json.data
    const links = await listAll(second.a, '/payment-links')
    expect([...links.keys()]).toEqual([
      created._id,
      ...ownRecords(KEY_A, 'payment_links')
        .reverse()
        .map((link) => link._id as string),
    ])
  })

  it('found again after it was imported (a rename that never happened) is set aside, not imported again', async () => {
    const dir = dirWithLegacy()
    await (await start(dir)).close()
    fs.writeFileSync(path.join(dir, 'store.json'), fixtureText)
    const t = await start(dir)
    expect(t.sandbox.notices).toEqual([])
    expect(storeText(dir)).toBe(keptText)
    expect(
      fs
        .readdirSync(dir)
        .filter((name) => name.startsWith('store.json'))
        .sort(),
    ).toEqual(['store.json.imported', 'store.json.imported.2'])
  })

  it('is imported by `pay sandbox pay` and `pay sandbox reset` too, before they act', async () => {
    const dir = dirWithLegacy()
    const unpaid = ownRecords(KEY_A, 'payment_links').find((link) => link.paid === false)!
    expect(settleLinkIn(dir, unpaid._id as string, 'paid')?.link).toMatchObject({
      _id: unpaid._id,
      paid: true,
    })
    expect(readStore(dir).businesses[keyHash(KEY_A)].payment_links[unpaid._id as string].paid).toBe(true)
    resetSandbox(dir)
    expect(readStore(dir).businesses).toEqual({})
    expect(fs.readFileSync(path.join(dir, 'store.json.imported'), 'utf8')).toBe(fixtureText)
  })
})

describe('a store.json that cannot be imported', () => {
  const cases: [string, string, string][] = [
    ['cut off', fixtureText.slice(0, 700), 'it is not valid JSON: '],
    ['another JSON file', '{"some": "other file"}', 'it is not a pay sandbox store.'],
    ['of an unknown version', fixtureText.replace('"version":1', '"version":9'), 'it is unknown version 9.'],
    [
      'with a malformed record',
      fixtureText.replace(
        /"payment_links":\{"([0-9a-f]{24})":\{"_id":"[0-9a-f]{24}"/,
        '"payment_links":{"$1":{"_id":"x"',
      ),
      'it is the payment_links entry "',
    ],
  ]
  it.each(cases)(
    '(%s) is reported, kept as store.json.corrupt, and the sandbox starts empty',
    async (_, text, reason) => {
      const dir = dirWithLegacy(text)
      const t = await start(dir)
      expect(t.sandbox.notices).toHaveLength(1)
      expect(t.sandbox.notices[0].warning).toBe(true)
      expect(t.sandbox.notices[0].message).toContain(
        `${path.join(dir, 'store.json')}, the store of an earlier pay, could not be imported: ${reason}`,
      )
      expect(t.sandbox.notices[0].message).toMatch(
        /It was kept as store\.json\.corrupt; the sandbox goes on without its records\.$/,
      )
      expect(fs.readFileSync(path.join(dir, 'store.json.corrupt'), 'utf8')).toBe(text)
      expect(fs.existsSync(path.join(dir, 'store.json'))).toBe(false)
      expect((await t.a.call('GET', '/payment-links')).json.data.total).toBe(0)
      expect((await t.a.call('POST', '/payment-links', VALID_LINK)).status).toBe(200)
    },
  )
})
