/**
 * The store of pay 0.1: one JSON file, `store.json`. A sandbox directory that still has one is
 * imported into the database once (store.ts); the file is then renamed, never deleted. The
 * same shape is what `SandboxStore.snapshot()` writes out, so the two can be compared.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type Libsql from 'libsql'
import { activationPagePath, paymentPagePath } from '../domain/page-address.js'
import type { PaymentLinkRecord, SubscriptionRecord, TokenizationRecord } from '../domain/records.js'
import { errorCode, freeName } from './files.js'
import { type Listed, STATEMENTS } from './schema.js'

/** The records of one business, each map keyed by `_id` in creation order. */
export interface LegacyBusiness {
  business_id: number
  tokenizations: Record<string, TokenizationRecord>
  payment_links: Record<string, PaymentLinkRecord>
  subscriptions: Record<string, SubscriptionRecord>
}

export interface LegacyStore {
  format: typeof LEGACY_FORMAT
  version: typeof LEGACY_VERSION
  /** Keyed by the sha256 of the business's API key: raw keys never reached the file. */
  businesses: Record<string, LegacyBusiness>
}

export const LEGACY_FORMAT = 'pay-sandbox-store'
export const LEGACY_VERSION = 1
export const LEGACY_FILE = 'store.json'

/** Why a store.json cannot be imported. */
class LegacyStoreError extends Error {}

/** Something opening the store did that a person should hear of. */
export interface Notice {
  /** Something went wrong (shown as a warning), rather than something done. */
  warning: boolean
  message: string
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const RESOURCES = ['tokenizations', 'payment_links', 'subscriptions'] as const

/** The text of a store.json as its data; throws LegacyStoreError saying what is wrong. */
function parseLegacyStore(text: string): LegacyStore {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new LegacyStoreError(`not valid JSON: ${(error as Error).message}`)
  }
  checkLegacyStore(parsed)
  return parsed
}

/** Returns when `value` has the shape of a store.json; else throws LegacyStoreError saying what is wrong. */
function checkLegacyStore(value: unknown): asserts value is LegacyStore {
  if (!isObject(value) || value.format !== LEGACY_FORMAT || !isObject(value.businesses)) {
    throw new LegacyStoreError('not a pay sandbox store')
  }
  if (value.version !== LEGACY_VERSION) {
    throw new LegacyStoreError(`unknown version ${JSON.stringify(value.version)}`)
  }
  for (const business of Object.values(value.businesses)) {
    const wellFormed =
      isObject(business) &&
      typeof business.business_id === 'number' &&
      RESOURCES.every((resource) => isObject(business[resource]))
    if (!wellFormed) throw new LegacyStoreError('a business entry is malformed')
    for (const resource of RESOURCES) {
      for (const [id, record] of Object.entries(business[resource] as Record<string, unknown>)) {
        if (!isObject(record) || record._id !== id) {
          throw new LegacyStoreError(`the ${resource} entry ${JSON.stringify(id)} is malformed`)
        }
        if (resource === 'tokenizations' && typeof record.token !== 'string') {
          throw new LegacyStoreError(`the tokenization ${JSON.stringify(id)} has no token`)
        }
      }
    }
  }
}

/** How many records a store holds. */
function recordCount(store: LegacyStore): number {
  let count = 0
  for (const business of Object.values(store.businesses)) {
    for (const resource of RESOURCES) count += Object.keys(business[resource]).length
  }
  return count
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/**
 * Imports pay 0.1's store.json in `dir` into the database `db` (the file `dbFile`) once, then
 * renames it store.json.imported (never deletes it). A file that cannot be read as a store is
 * renamed store.json.corrupt and reported. Both under the database's write lock, so that two
 * processes opening at once import it once. Returns what to tell the user.
 */
export function importLegacyStore(db: Libsql.Database, dir: string, dbFile: string): Notice | undefined {
  const legacy = path.join(dir, LEGACY_FILE)
  let notice: Notice | undefined
  db.exec('BEGIN IMMEDIATE')
  let renameTo: string | undefined
  try {
    let bytes: Buffer
    try {
      bytes = fs.readFileSync(legacy)
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined // another process imported it meanwhile
      throw error
    }
    const hash = sha256(bytes)
    if (!db.prepare('SELECT 1 AS done FROM imports WHERE sha256 = ?').get(hash)) {
      let data: LegacyStore
      try {
        data = parseLegacyStore(bytes.toString('utf8'))
      } catch (error) {
        if (!(error instanceof LegacyStoreError)) throw error
        const kept = freeName(legacy, 'corrupt')
        fs.renameSync(legacy, kept)
        return {
          warning: true,
          message:
            `${legacy}, the store of an earlier pay, could not be imported: it is ${error.message}. ` +
            `It was kept as ${path.basename(kept)}; the sandbox goes on without its records.`,
        }
      }
      const added = insertLegacy(db, data)
      db.prepare('INSERT INTO imports (sha256, file, records, imported_at) VALUES (?, ?, ?, ?)').run(
        hash,
        legacy,
        added,
        new Date().toISOString(),
      )
      renameTo = freeName(legacy, 'imported')
      const skipped = recordCount(data) - added
      notice = {
        warning: false,
        message:
          `Imported ${added} record${added === 1 ? '' : 's'} from ${legacy} (the store of an earlier pay) ` +
          `into ${dbFile}${skipped > 0 ? `; ${skipped} already there were kept as they were` : ''}. ` +
          `The old file is kept as ${path.basename(renameTo)}.`,
      }
    } else {
      renameTo = freeName(legacy, 'imported') // imported, but the rename did not happen
    }
  } finally {
    if (db.inTransaction) db.exec(renameTo === undefined ? 'ROLLBACK' : 'COMMIT')
  }
  try {
    fs.renameSync(legacy, renameTo)
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error // renamed by another process
  }
  return notice
}

/**
 * The records of a store.json, in their order, each page kept as its path as this store keeps it
 * (domain/page-address.ts: pay 0.1 wrote the address of the sandbox that made it); returns how many
 * were added.
 */
function insertLegacy(db: Libsql.Database, data: LegacyStore): number {
  const addBusiness = db.prepare(STATEMENTS.business)
  const addToken = db.prepare(STATEMENTS.insertTokenization.replace('INSERT', 'INSERT OR IGNORE'))
  const add = Object.fromEntries(
    (['payment_links', 'subscriptions'] as const).map((table) => [
      table,
      db.prepare(STATEMENTS.insert(table).replace('INSERT', 'INSERT OR IGNORE')),
    ]),
  ) as Record<Listed, Libsql.Statement>
  let added = 0
  for (const [keyHash, business] of Object.entries(data.businesses)) {
    addBusiness.run(keyHash, business.business_id)
    for (const record of Object.values(business.tokenizations)) {
      const kept = { ...record, activation_url: activationPagePath(record.token) }
      added += addToken.run(keyHash, record._id, record.token, JSON.stringify(kept)).changes
    }
    for (const record of Object.values(business.payment_links)) {
      const kept = { ...record, payment_url: paymentPagePath(record._id) }
      added += add.payment_links.run(keyHash, record._id, JSON.stringify(kept)).changes
    }
    for (const record of Object.values(business.subscriptions)) {
      added += add.subscriptions.run(keyHash, record._id, JSON.stringify(record)).changes
    }
  }
  return added
}
