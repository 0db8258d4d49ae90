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
