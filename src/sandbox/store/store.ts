import { randomBytes } from 'node:crypto'
import type Libsql from 'libsql'
import type { BusinessKey } from '../domain/business.js'
import type { PaymentLinkRecord, SubscriptionRecord, TokenizationRecord } from '../domain/records.js'
import { dumpStore } from './database.js'
import { isBusy } from './errors.js'
import { errorCode } from './files.js'
import type { LegacyStore } from './legacy.js'
import { BUSINESS_TABLES, type Listed, RESOURCE_TABLES, type ResourceTable, STATEMENTS } from './schema.js'
import { Transactions } from './transactions.js'

type RecordOf<T extends ResourceTable> = T extends 'tokenizations'
  ? TokenizationRecord
  : T extends 'payment_links'
    ? PaymentLinkRecord
    : SubscriptionRecord

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

/**
 * The sandbox state: one SQLite database (through libsql) in the sandbox directory, in WAL mode,
 * shared safely by every process that opens the directory (a server, the in-process sandbox of a
 * command, a second server). Writes are transactions (`write`, or a server's requests `grouped`,
 * transactions.ts), reads see the last commit.
 *
 * Durability: `synchronous = NORMAL`. In WAL mode a commit has written its pages to the WAL file
 * (write(2)) before it returns, so what was acknowledged survives the process being killed
 * (kill -9: the kernel still holds the data). NORMAL skips the fsync of every commit, which FULL
 * would add to survive a power cut as well; the database stays consistent either way.
 */
export class SandboxStore extends Transactions {
  /**
   * Runs one statement of another part of the sandbox (sandbox time, store/clock.ts; billing; the
   * outbox of the notifications; the seeded names) on the connection in use, inside the transaction
   * under way if there is one.
   */
  statement(sql: string, mode: 'get' | 'all' | 'run', ...parameters: unknown[]): unknown {
    return this.run(sql, mode, ...parameters)
  }

  /**
   * Runs `write`, a statement that names the business by its key hash (`STATEMENTS`' BUSINESS):
   * when the business has no row yet (its first write, or after a reset), that statement fails
   * on its NOT NULL `business` and changes nothing, so the row is added and it runs again. A
   * write of a known business costs one statement, not two. Inside a transaction.
   */
  private ofBusiness(business: BusinessKey, write: () => unknown): void {
    try {
      write()
    } catch (error) {
      if (errorCode(error) !== 'SQLITE_CONSTRAINT_NOTNULL') throw error
      this.run(STATEMENTS.business, 'run', business.keyHash, business.businessId)
      write()
    }
  }

  /** A record of the business, or undefined. */
  get<T extends ResourceTable>(table: T, business: BusinessKey, id: string): RecordOf<T> | undefined {
    const text = this.recordText(table, business, id)
    return text === undefined ? undefined : JSON.parse(text)
  }

  /** A record of the business as kept (JSON text), or undefined. */
  recordText(table: ResourceTable, business: BusinessKey, id: string): string | undefined {
    const row = this.run(STATEMENTS.get(table), 'get', business.keyHash, id) as Row | undefined
    return row?.record
  }

  /** `limit` of the business's records from `offset`, newest first, and how many there are in all. */
  list<T extends Listed>(
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
      const rows = this.run(STATEMENTS.list(table), 'all', business.keyHash, limit, offset) as Row[]
      return { total, records: rows.map((row) => JSON.parse(row.record)) }
    })
  }

  /** Adds a record of the business; returns it as kept (JSON text). */
  insert<T extends Listed>(table: T, business: BusinessKey, record: RecordOf<T>): string {
    const text = JSON.stringify(record)
    this.write(() =>
      this.ofBusiness(business, () =>
        this.run(STATEMENTS.insert(table), 'run', business.keyHash, record._id, text),
      ),
    )
    return text
  }

  insertTokenization(business: BusinessKey, record: TokenizationRecord): void {
    const text = JSON.stringify(record)
    this.write(() =>
      this.ofBusiness(business, () =>
        this.run(STATEMENTS.insertTokenization, 'run', business.keyHash, record._id, record.token, text),
      ),
    )
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
      this.ofBusiness(business, () =>
        this.run(
          STATEMENTS.remember,
          'run',
          business.keyHash,
          key,
          answer.fingerprint,
          answer.status,
          answer.response,
          now,
        ),
      )
      this.run(STATEMENTS.forget, 'run', expired)
    })
  }

  /**
   * The one reset of the sandbox (`pay sandbox reset`, `POST /_sandbox/reset`, the library's
   * reset), in one transaction. With `business`: every record of that business (tokenizations,
   * links, subscriptions), its idempotency keys, charges and seeded names; the other businesses'
   * stay, and the clock, which is the whole database's, goes back to real time only when no
   * business is left with records whose dates it set. Without: every record of every business,
   * every idempotency key, charge and schedule, the clock back to real time; then the space they
   * took is given back (VACUUM, and a checkpoint that truncates the WAL), so that an emptied store
   * is a small file again. The secret of the customer pages and the list of imported store.json
   * files stay. A server running on the same directory sees the change at once.
   */
  empty(business?: BusinessKey): void {
    this.write(() => {
      const db = this.db()
      for (const table of BUSINESS_TABLES) {
        if (business === undefined) db.exec(`DELETE FROM ${table}`)
        else this.run(STATEMENTS.removeAll(table), 'run', business.keyHash)
      }
      // Of every business: no business and no schedule left either (handlers/billing/). Of one: its
      // schedules went with its subscriptions (a trigger), and the clock, the whole database's,
      // stays where it is while another business has records.
      if (business === undefined) db.exec('DELETE FROM businesses; DELETE FROM schedules')
      else if (RESOURCE_TABLES.some((table) => db.prepare(`SELECT 1 FROM ${table} LIMIT 1`).get())) return
      db.exec('UPDATE clock SET offset_ms = 0')
    })
    if (business === undefined) this.compact()
  }

  /** Gives the space of deleted records back to the file system. */
  private compact(): void {
    try {
      const db = this.db()
      db.exec('VACUUM')
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    } catch (error) {
      // Another process kept writing past the busy timeout: the records are gone all the same.
      if (!isBusy(errorCode(error))) throw error
    }
  }

  /**
   * The whole store in the shape of pay 0.1's store.json (what the import reads): for tests and
   * for looking at the data. It reads every table: never on a request's path.
   */
  snapshot(): LegacyStore {
    return this.read(() => dumpStore(this.db()))
  }
}
