import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type Libsql from 'libsql'
import { StoreCorruptError, StoreVersionError, storeErrorOf } from './errors.js'
import { freeName } from './files.js'
import {
  importLegacyStore,
  LEGACY_FILE,
  LEGACY_FORMAT,
  LEGACY_VERSION,
  type LegacyBusiness,
  type LegacyStore,
  type Notice,
} from './legacy.js'
import { MIGRATIONS, type Migration, RESOURCE_TABLES } from './schema.js'

/**
 * The sandbox's SQLite file (through libsql): opening it safely, its migrations, setting a bad
 * one aside, and reading it whole. The records and their transactions are store.ts's.
 */

export type Database = Libsql.Database

/** The database file in the sandbox directory. */
export const STORE_FILE = 'store.db'

/** The first bytes of every SQLite database file. */
export const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1')

/**
 * How long a server's write waits for another process's write to finish before it gives up (503,
 * which its client may retry). Writes take well under a millisecond; this only matters when
 * something holds the database for long.
 */
const SERVER_BUSY_TIMEOUT_MS = 5000
/**
 * How long a command's one operation on the store (`pay sandbox clock set`, `sandbox pay` with no
 * server) waits for another's: longer, as no one retries it, and a clock moved far bills every
 * subscription in one transaction, which a loaded machine can take seconds over.
 */
const LOCAL_BUSY_TIMEOUT_MS = 30_000

/** One open connection and the file it was opened on. */
export interface Connection {
  db: Database
  /** `dev:ino` of the file: a different one at the path means the file was replaced. */
  identity: string
  statements: Map<string, Libsql.Statement>
}

let libsql: typeof Libsql | undefined

/** libsql is a native module: loaded when a store first opens, so no other command pays for it. */
export function loadLibsql(): typeof Libsql {
  libsql ??= createRequire(import.meta.url)('libsql') as typeof Libsql
  return libsql
}

export const identityOf = (stat: fs.Stats) => `${stat.dev}:${stat.ino}`

/** Applies the migrations a database lacks, in one transaction; refuses a newer database. */
export function migrate(db: Database, file: string, migrations: readonly Migration[] = MIGRATIONS): void {
  const version = () =>
    Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version)
  if (version() === migrations.length) return
  db.exec('BEGIN IMMEDIATE')
  try {
    const from = version() // another process may have migrated while this one waited
    if (from > migrations.length) throw new StoreVersionError(file, from)
    for (const migration of migrations.slice(from)) migration.up(db)
    db.exec(`PRAGMA user_version = ${migrations.length}`)
    db.exec('COMMIT')
  } catch (error) {
    rollBack(db)
    throw error
  }
}

/** Ends a failed transaction; a rollback that fails too changes nothing more. */
export function rollBack(db: Database): void {
  try {
    if (db.inTransaction) db.exec('ROLLBACK')
  } catch {}
}

/**
 * Sets a store that cannot be opened (corrupt, or from a newer pay) aside: store.db becomes
 * store.db.corrupt (its WAL file follows it, so the two stay a pair). Returns the new name.
 */
export function setAside(dir: string): string {
  const file = path.join(dir, STORE_FILE)
  const kept = freeName(file, 'corrupt')
  fs.renameSync(file, kept)
  if (fs.existsSync(`${file}-wal`)) fs.renameSync(`${file}-wal`, `${kept}-wal`)
  fs.rmSync(`${file}-shm`, { force: true })
  return kept
}

/**
 * Pages of WAL (4 KiB each) between the server's checkpoints: SQLite's 1,000 made one commit in a
 * hundred wait for the two fsyncs of a checkpoint, and half a server's time under load went into
 * them; at 10,000 the WAL grows to 40 MB at most before it is copied back (docs/performance.md).
 */
export const SERVER_CHECKPOINT_PAGES = 10_000

/**
 * Opens the database file of `dir` (made if missing): refused when it is no SQLite file, in WAL
 * mode, migrated, and an old store.json of the directory imported (what that did goes to `notices`).
 */
export function openConnection(
  file: string,
  dir: string,
  notices: Notice[],
  /** Pages of WAL after which a commit checkpoints (PRAGMA wal_autocheckpoint); SQLite's 1,000 by default. */
  checkpointPages?: number,
): Connection {
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600)
  try {
    // SQLite takes a file shorter than its 100-byte header for an empty database and writes over
    // it: a short file that is not one is refused like any other, and left as it is.
    const head = Buffer.alloc(SQLITE_MAGIC.length)
    const read = fs.readSync(fd, head, 0, head.length, 0)
    if (read > 0 && !head.subarray(0, read).equals(SQLITE_MAGIC.subarray(0, read))) {
      throw new StoreCorruptError(file, 'file is not a database')
    }
  } finally {
    fs.closeSync(fd)
  }
  const Database = loadLibsql()
  const db = new Database(file)
  try {
    // A server's store checkpoints by its own count of pages; a command's by SQLite's.
    const busyMs = checkpointPages === undefined ? LOCAL_BUSY_TIMEOUT_MS : SERVER_BUSY_TIMEOUT_MS
    db.exec(`PRAGMA busy_timeout = ${busyMs}`)
    const mode = db.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode: string }
    if (mode.journal_mode !== 'wal') {
      throw new Error(`The sandbox store ${file} cannot use WAL mode (${mode.journal_mode}).`)
    }
    db.exec('PRAGMA synchronous = NORMAL')
    if (checkpointPages !== undefined) db.exec(`PRAGMA wal_autocheckpoint = ${checkpointPages}`)
    migrate(db, file)
    const connection = { db, identity: identityOf(fs.statSync(file)), statements: new Map() }
    if (fs.existsSync(path.join(dir, LEGACY_FILE))) {
      const notice = importLegacyStore(db, dir, file)
      if (notice) notices.push(notice)
    }
    return connection
  } catch (error) {
    db.close()
    throw storeErrorOf(error, file)
  }
}

/** Every table of `db` in the shape of pay 0.1's store.json (SandboxStore.snapshot). */
export function dumpStore(db: Database): LegacyStore {
  const store: LegacyStore = { format: LEGACY_FORMAT, version: LEGACY_VERSION, businesses: {} }
  const byId = new Map<number, LegacyBusiness>()
  for (const row of db.prepare('SELECT id, key_hash, business_id FROM businesses ORDER BY id').all() as {
    id: number
    key_hash: string
    business_id: number
  }[]) {
    const business = {
      business_id: row.business_id,
      tokenizations: {},
      payment_links: {},
      subscriptions: {},
    }
    store.businesses[row.key_hash] = business
    byId.set(row.id, business)
  }
  for (const table of RESOURCE_TABLES) {
    for (const row of db.prepare(`SELECT business, id, record FROM ${table} ORDER BY seq`).all() as {
      business: number
      id: string
      record: string
    }[]) {
      const records = byId.get(row.business)?.[table] as Record<string, unknown> | undefined
      if (records) records[row.id] = JSON.parse(row.record)
    }
  }
  return store
}
