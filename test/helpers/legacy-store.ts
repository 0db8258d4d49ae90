import fs from 'node:fs'
import path from 'node:path'
import { keyHash } from '../../src/sandbox/domain/business.js'
import type { LegacyStore } from '../../src/sandbox/store/legacy.js'
import { ROOT } from './cli.js'
import type { Json } from './links.js'
import { tempDir } from './sandbox.js'

/**
 * The store.json written by pay 0.1's JSON-file sandbox (test/fixtures/README.md), for the tests
 * that check it is imported into the database once, with nothing lost or changed.
 */
const FIXTURE = path.join(ROOT, 'test/fixtures/store-0.1.json')
export const fixtureText = fs.readFileSync(FIXTURE, 'utf8')
export const fixture = JSON.parse(fixtureText) as LegacyStore

/** A sandbox dir holding `text` as its store.json. */
export function dirWithLegacy(text: string | Buffer = fixtureText): string {
  const dir = tempDir('pay-import-')
  fs.writeFileSync(path.join(dir, 'store.json'), text)
  return dir
}

/** The records of one business in the fixture, in the order it holds them. */
export const ownRecords = (key: string, resource: 'payment_links' | 'subscriptions') =>
  Object.values(fixture.businesses[keyHash(key)][resource]) as Json[]

/** Where pay 0.1's sandbox served the fixture's pages, as its records name them. */
export const FIXTURE_ORIGIN = 'http://127.0.0.1:41235'

/**
 * The fixture as this pay keeps it: every record as it was, but for its page's address, kept as a
 * path (src/sandbox/domain/page-address.ts). Written out by `storeText` in the old format.
 */
export const keptText = fixtureText.replace(
  new RegExp(`"(payment_url|activation_url)":"${FIXTURE_ORIGIN.replaceAll('.', '\\.')}/`, 'g'),
  '"$1":"/',
)

/** The records of one business as a sandbox at `origin` answers them: their pages on its address. */
export const servedRecords = (key: string, resource: 'payment_links' | 'subscriptions', origin: string) =>
  ownRecords(key, resource).map((record) =>
    resource === 'payment_links'
      ? { ...record, payment_url: `${origin}/checkout/pay?id=${record._id}` }
      : record,
  )
