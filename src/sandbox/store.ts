import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type Libsql from 'libsql'
import { errorCode, freeName } from './files.js'
import {
  importLegacyStore,
  LEGACY_FILE,
  LEGACY_FORMAT,
  LEGACY_VERSION,
  type LegacyBusiness,
  type LegacyStore,
  type Notice,
} from './legacy.js'
import type { PaymentLinkRecord, SubscriptionRecord, TokenizationRecord } from './records.js'
import { type Listed, MIGRATIONS, type Migration, type ResourceTable, STATEMENTS } from './schema.js'

type Database = Libsql.Database

/** The first bytes of every SQLite database file. */
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1')

/** The database file in the sandbox directory. */
export const STORE_FILE = 'store.db'

/**
 * How long a write waits for another process's write to finish before it gives up (503). Writes
 * take well under a millisecond; this only matters when something holds the database for long.
 */
const BUSY_TIMEOUT_MS = 5000

export class StoreCorruptError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(
      `The sandbox store ${file} is corrupt (${reason}). It was left untouched; ` +
        `"pay sandbox reset" sets it aside and starts an empty one.`,
    )
    this.name = 'StoreCorruptError'
  }
}

/** The database belongs to a newer pay: its tables are not the ones this pay knows. */
export class StoreVersionError extends Error {
  constructor(file: string, version: number) {
    super(
      `The sandbox store ${file} was written by a newer pay (schema version ${version}; this pay ` +
        `knows up to ${MIGRATIONS.length}). Use that pay, or another PAY_SANDBOX_DIR; ` +
        `"pay sandbox reset" sets it aside and starts an empty one.`,
    )
    this.name = 'StoreVersionError'
  }
}

/** Another process held the database longer than the busy timeout. */
export class StoreBusyError extends Error {
  constructor() {
    super('The sandbox store is busy.')
    this.name = 'StoreBusyError'
  }
}

/** The business behind an API key, as the store knows it. */
export interface BusinessKey {
  /** sha256 of the API key: the only form in which a key reaches the database. */
  keyHash: string
  businessId: number
}

type RecordOf<T extends ResourceTable> = T extends 'tokenizations'
  ? TokenizationRecord
  : T extends 'payment_links'
    ? PaymentLinkRecord
    : SubscriptionRecord

const TABLES: readonly ResourceTable[] = ['tokenizations', 'payment_links', 'subscriptions']

interface Row {
  record: string
}

/** The answer a POST got, kept under its Idempotency-Key. */
export interface RememberedAnswer {
  /** sha256 of the request it answered (path and body). */
  fingerprint: string
  status: number
  /** The body as sent: JSON text. */
  response: string
}

/** One open connection and the file it was opened on. */
interface Connection {
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

const identityOf = (stat: fs.Stats) => `${stat.dev}:${stat.ino}`

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
function rollBack(db: Database): void {
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
 * The sandbox state: one SQLite database (through libsql) in the sandbox directory, in WAL mode,
 * shared safely by every process that opens the directory (a server, the in-process sandbox of a
 * command, a second server). Writes are transactions (`write`), reads see the last commit.
 *
 * Durability: `synchronous = NORMAL`. In WAL mode a commit has written its pages to the WAL file
 * (write(2)) before it returns, so what was acknowledged survives the process being killed
 * (kill -9: the kernel still holds the data). NORMAL skips the fsync of every commit, which FULL
 * would add to survive a power cut as well; the database stays consistent either way.
 */
export class SandboxStore {
  readonly file: string
  /** What opening the store did that a person should hear of (an import of store.json). */
  readonly notices: Notice[] = []
  private current: Connection | undefined
  /** The connection of the transaction under way: every call inside it uses that one. */
  private active: Connection | undefined
  /** Calls under way: only the outermost converts errors. */
  private depth = 0

  constructor(readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    this.file = path.join(dir, STORE_FILE)
    this.connection()
  }

  /** Runs `body` as one write transaction: all of it is committed, or none of it. */
  write<T>(body: () => T): T {
    if (this.active) return body()
    return this.guard(() => {
      const connection = this.connection()
      connection.db.exec('BEGIN IMMEDIATE')
      this.active = connection
      try {
        const result = body()
        connection.db.exec('COMMIT')
        return result
      } catch (error) {
        rollBack(connection.db)
        throw error
      } finally {
        this.active = undefined
      }
    })
  }

  /**
   * Runs one statement of another part of the sandbox (billing.ts: the clock and charges) on the
   * connection in use, inside the transaction under way if there is one.
   */
  statement(sql: string, mode: 'get' | 'all' | 'run', ...parameters: unknown[]): unknown {
    return this.run(sql, mode, ...parameters)
  }

  /** A record of the business, or undefined. */
  get<T extends ResourceTable>(table: T, business: BusinessKey, id: string): RecordOf<T> | undefined {
    const row = this.run(STATEMENTS.get(table), 'get', business.keyHash, id) as Row | undefined
    return row ? JSON.parse(row.record) : undefined
  }

  /** One page of the business's records, newest first, and how many there are in all. */
  page<T extends Listed>(
    table: T,
    business: BusinessKey,
    offset: number,
    limit: number,
  ): { total: number; records: RecordOf<T>[] } {
    return this.read(() => {
      const count = this.run(STATEMENTS.total(table), 'get', business.keyHash) as
        | { total: number }
        | undefined
      const total = Number(count?.total ?? 0)
      if (total === 0 || offset >= total) return { total, records: [] }
      const rows = this.run(STATEMENTS.page(table), 'all', business.keyHash, limit, offset) as Row[]
      return { total, records: rows.map((row) => JSON.parse(row.record)) }
    })
  }

  insert<T extends Listed>(table: T, business: BusinessKey, record: RecordOf<T>): void {
    this.write(() => {
      this.run(STATEMENTS.business, 'run', business.keyHash, business.businessId)
      this.run(STATEMENTS.insert(table), 'run', business.keyHash, record._id, JSON.stringify(record))
    })
  }

  insertTokenization(business: BusinessKey, record: TokenizationRecord): void {
    this.write(() => {
      this.run(STATEMENTS.business, 'run', business.keyHash, business.businessId)
      this.run(
        STATEMENTS.insertTokenization,
        'run',
        business.keyHash,
        record._id,
        record.token,
        JSON.stringify(record),
      )
    })
  }

  /** Replaces a record of the business (by its `_id`); false when there is none. */
  replace<T extends Listed>(table: T, business: BusinessKey, record: RecordOf<T>): boolean {
    const result = this.run(
      STATEMENTS.update(table),
      'run',
      JSON.stringify(record),
      business.keyHash,
      record._id,
    ) as Libsql.RunResult
    return result.changes > 0
  }

  remove(table: Listed, business: BusinessKey, id: string): boolean {
    return this.write(() => {
      const result = this.run(STATEMENTS.remove(table), 'run', business.keyHash, id) as Libsql.RunResult
      return result.changes > 0
    })
  }

  /** A payment link by id, whichever business owns it (the public payment page). */
  findLink(id: string): PaymentLinkRecord | undefined {
    const row = this.run(STATEMENTS.linkById, 'get', id) as Row | undefined
    return row ? JSON.parse(row.record) : undefined
  }

  /**
   * Changes a payment link found by id alone (or by id among the records of `business`), in one
   * transaction: `change` gets the current record and returns the new one (or the same object to
   * change nothing).
   */
  changeLink(
    id: string,
    change: (link: PaymentLinkRecord) => PaymentLinkRecord,
    business?: BusinessKey,
  ): { before: PaymentLinkRecord; after: PaymentLinkRecord } | undefined {
    return this.write(() => {
      const row = (
        business === undefined
          ? this.run(STATEMENTS.linkById, 'get', id)
          : this.run(STATEMENTS.linkOfBusiness, 'get', business.keyHash, id)
      ) as (Row & { seq: number }) | undefined
      if (!row) return undefined
      const before = JSON.parse(row.record) as PaymentLinkRecord
      const after = change(before)
      if (after !== before) this.run(STATEMENTS.updateLinkBySeq, 'run', JSON.stringify(after), row.seq)
      return { before, after }
    })
  }

  /**
   * A tokenization by its token (the public activation page), with when it was activated and the
   * business it belongs to (its record, as docs/spec/payment-service-api.md 2.2 gives it, has no
   * business_id).
   */
  findTokenization(
    token: string,
  ): { record: TokenizationRecord; activatedAt: string | null; businessId: number } | undefined {
    const row = this.run(STATEMENTS.tokenization, 'get', token) as
      | (Row & { activated_at: string | null; business_id: number })
      | undefined
    if (!row) return undefined
    return {
      record: JSON.parse(row.record),
      activatedAt: row.activated_at,
      businessId: Number(row.business_id),
    }
  }

  /** Records the activation of a token once; returns when it was activated, or undefined if unknown. */
  activate(token: string, at: string): string | undefined {
    return this.write(() => {
      const row = this.run(STATEMENTS.tokenization, 'get', token) as
        | { seq: number; activated_at: string | null }
        | undefined
      if (!row) return undefined
      if (row.activated_at !== null) return row.activated_at
      this.run(STATEMENTS.activate, 'run', at, row.seq)
      return at
    })
  }

  /** A random secret kept in the database under `name`, made on first use. */
  secret(name: string): Buffer {
    const existing = this.run(STATEMENTS.secret, 'get', name) as { value: Uint8Array } | undefined
    if (existing) return Buffer.from(existing.value)
    this.write(() => this.run(STATEMENTS.addSecret, 'run', name, randomBytes(32)))
    return Buffer.from((this.run(STATEMENTS.secret, 'get', name) as { value: Uint8Array }).value)
  }

  /**
   * The answer a POST with this `Idempotency-Key` got, unless there was none since `since`
   * (milliseconds since the epoch).
   */
  recall(business: BusinessKey, key: string, since: number): RememberedAnswer | undefined {
    const row = this.run(STATEMENTS.recall, 'get', business.keyHash, key) as
      | (RememberedAnswer & { created_at: number })
      | undefined
    if (!row || Number(row.created_at) < since) return undefined
    return { fingerprint: row.fingerprint, status: Number(row.status), response: row.response }
  }

  /**
   * Keeps the answer of a POST under its `Idempotency-Key` (replacing an expired one), and deletes
   * a few keys older than `expired`. Called inside the transaction that made what it answers.
   */
  remember(business: BusinessKey, key: string, answer: RememberedAnswer, now: number, expired: number): void {
    this.write(() => {
      this.run(STATEMENTS.business, 'run', business.keyHash, business.businessId)
      this.run(
        STATEMENTS.remember,
        'run',
        business.keyHash,
        key,
        answer.fingerprint,
        answer.status,
        answer.response,
        now,
      )
      this.run(STATEMENTS.forget, 'run', expired)
    })
  }

  /**
   * Deletes every record of one business (tokenizations, links, subscriptions), its idempotency
   * keys, charges and seeded names, in one transaction; the other businesses' stay.
   */
  emptyBusiness(business: BusinessKey): void {
    this.write(() => {
      for (const table of [...TABLES, 'idempotency_keys', 'charges', 'seeded'] as const) {
        this.run(STATEMENTS.removeAll(table), 'run', business.keyHash)
      }
      // The clock is the whole database's: it goes back to real time only when no other business
      // is left with records whose dates it set.
      const left = TABLES.some((table) => this.db().prepare(`SELECT 1 FROM ${table} LIMIT 1`).get())
      if (!left) this.db().exec('UPDATE clock SET offset_ms = 0')
    })
  }

  /**
   * Deletes every record of every business, every idempotency key and charge, and sets the clock
   * back to real time, in one transaction; then
   * gives the space they took back (VACUUM, and a checkpoint that truncates the WAL), so that an
   * emptied store is a small file again. The secret of the customer pages and the list of imported
   * store.json files stay. A server running on the same directory sees the empty store at once.
   */
  empty(): void {
    this.write(() => {
      const db = this.db()
      db.exec('DELETE FROM idempotency_keys')
      for (const table of TABLES) db.exec(`DELETE FROM ${table}`)
      db.exec('DELETE FROM seeded')
      db.exec('DELETE FROM businesses')
      // The clock back to real time, and no charge or schedule left (billing.ts).
      db.exec('DELETE FROM charges; DELETE FROM schedules; UPDATE clock SET offset_ms = 0')
    })
    try {
      const db = this.db()
      db.exec('VACUUM')
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    } catch (error) {
      // Another process kept writing past the busy timeout: the records are gone all the same.
      const code = errorCode(error)
      if (code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') throw error
    }
  }

  /**
   * The whole store in the shape of pay 0.1's store.json (what the import reads): for tests and
   * for looking at the data. It reads every table: never on a request's path.
   */
  snapshot(): LegacyStore {
    return this.read(() => {
      const db = this.db()
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
      for (const table of TABLES) {
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
    })
  }

  close(): void {
    this.current?.db.close()
    this.current = undefined
  }

  /** The database of the transaction under way, else the open one. */
  private db(): Database {
    return (this.active ?? this.connection()).db
  }

  /** Runs a prepared statement on the connection in use. */
  private run(sql: string, mode: 'get' | 'all' | 'run', ...parameters: unknown[]): unknown {
    return this.guard(() => {
      const connection = this.active ?? this.connection()
      let statement = connection.statements.get(sql)
      if (!statement) {
        statement = connection.db.prepare(sql)
        connection.statements.set(sql, statement)
      }
      return statement[mode](...parameters)
    })
  }

  /** Runs `body` in one read transaction: every read in it sees the same commit. */
  read<T>(body: () => T): T {
    if (this.active) return body()
    return this.guard(() => {
      const connection = this.connection()
      connection.db.exec('BEGIN')
      this.active = connection
      try {
        return body()
      } finally {
        this.active = undefined
        if (connection.db.inTransaction) connection.db.exec('COMMIT')
      }
    })
  }

  /** The database's errors as the store's: busy (503), corrupt (500 naming the file). */
  private guard<T>(body: () => T): T {
    this.depth++
    try {
      return body()
    } catch (error) {
      if (this.depth > 1) throw error
      const code = errorCode(error)
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') throw new StoreBusyError()
      if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
        this.close() // the next call opens the file again: `pay sandbox reset` may have replaced it
        throw new StoreCorruptError(this.file, (error as Error).message)
      }
      throw error
    } finally {
      this.depth--
    }
  }

  /**
   * The open connection, checked against the file at the path (one stat): a file deleted or
   * replaced behind the store's back (its directory removed, a corrupt file set aside by a
   * reset) is opened again, so that nothing is written into a file no one will read.
   */
  private connection(): Connection {
    let identity: string | undefined
    try {
      identity = identityOf(fs.statSync(this.file))
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error
      fs.statSync(this.dir) // a vanished directory is an error, not recreated behind the user's back
    }
    if (this.current && this.current.identity === identity) return this.current
    this.close()
    this.current = this.open()
    return this.current
  }

  private open(): Connection {
    const fd = fs.openSync(this.file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600)
    try {
      // SQLite takes a file shorter than its 100-byte header for an empty database and writes over
      // it: a short file that is not one is refused like any other, and left as it is.
      const head = Buffer.alloc(SQLITE_MAGIC.length)
      const read = fs.readSync(fd, head, 0, head.length, 0)
      if (read > 0 && !head.subarray(0, read).equals(SQLITE_MAGIC.subarray(0, read))) {
        throw new StoreCorruptError(this.file, 'file is not a database')
      }
    } finally {
      fs.closeSync(fd)
    }
    const Database = loadLibsql()
    const db = new Database(this.file)
    try {
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
      const mode = db.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode: string }
      if (mode.journal_mode !== 'wal') {
        throw new Error(`The sandbox store ${this.file} cannot use WAL mode (${mode.journal_mode}).`)
      }
      db.exec('PRAGMA synchronous = NORMAL')
      migrate(db, this.file)
      const connection = { db, identity: identityOf(fs.statSync(this.file)), statements: new Map() }
      if (fs.existsSync(path.join(this.dir, LEGACY_FILE))) {
        const notice = importLegacyStore(db, this.dir, this.file)
        if (notice) this.notices.push(notice)
      }
      return connection
    } catch (error) {
      db.close()
      const code = errorCode(error)
      if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
        throw new StoreCorruptError(this.file, (error as Error).message)
      }
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') throw new StoreBusyError()
      throw error
    }
  }
}
