import fs from 'node:fs'
import path from 'node:path'
import { keyHash } from '../../src/sandbox/domain/business.js'
import { readSandboxKey } from '../../src/shared/sandbox-key.js'
import { tempDir } from './cli.js'
import { readStore } from './sandbox.js'

/**
 * Fixture files for `pay sandbox seed FILE` and `pay sandbox start --seed FILE`, and what the
 * commands print and keep for them: test/commands/sandbox/seed.test.ts (in process, the local
 * store) and test/e2e/sandbox/seed.test.ts (bin/run.js, through a running sandbox).
 */

/** A valid link entry's fields. */
export const LINK = Object.freeze({
  email: 'ada@example.com',
  currency: 'EUR',
  amount: '25.50',
  title: 'Invoice 42',
})

/** A fixture file's content, one of each kind: the records of NAMES, KINDS. */
export const fixtures = () => ({
  tokenizations: [{ name: 'ada-card', email: 'ada@example.com', title: 'Card', description: 'On file' }],
  links: [
    { name: 'inv-42', ...LINK, paid: true },
    { name: 'inv-43', ...LINK, amount: '10' },
  ],
  subscriptions: [{ name: 'ada-monthly', package: 'monthly', email: 'ada@example.com', status: 'cancel' }],
})
export const NAMES: readonly string[] = Object.freeze(['ada-card', 'inv-42', 'inv-43', 'ada-monthly'])
export const KINDS: readonly string[] = Object.freeze([
  'tokenization',
  'payment link',
  'payment link',
  'subscription',
])

/** `content` (JSON of an object, a string as is) in a fixtures.json of a new temp dir; its path. */
export function fixtureFile(content: unknown): string {
  const file = path.join(tempDir('pay-fixtures-'), 'fixtures.json')
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content))
  return file
}

/** The lines `sandbox seed` prints piped for fixtures(): NAME, KIND, ID, RESULT. */
export const rows = (ids: Record<string, string>, result = (_name: string) => 'created') =>
  NAMES.map((name, n) => `${name}\t${KINDS[n]}\t${ids[name]}\t${result(name)}\n`).join('')

/**
 * The records, in the local store of `dir`, of the business of the directory's own key (the one
 * the built-in profile sends); undefined when it has none.
 */
export const localRecords = (dir: string) => readStore(dir).businesses[keyHash(readSandboxKey(dir) ?? '')]
