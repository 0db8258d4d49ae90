import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type Libsql from 'libsql'
import { describe, expect, it } from 'vitest'
import { keyHash } from '../../../../src/sandbox/domain/business.js'
import { migrate } from '../../../../src/sandbox/store/database.js'
import { MIGRATIONS, STATEMENTS } from '../../../../src/sandbox/store/schema.js'
import { SandboxStore } from '../../../../src/sandbox/store/store.js'
import { ROOT } from '../../../helpers/cli.js'
import { keptText } from '../../../helpers/legacy-store.js'
import { KEY_A, KEY_B, startTestSandbox, storeText, tempDir, VALID_LINK } from '../../../helpers/sandbox.js'

const Database = createRequire(import.meta.url)('libsql') as typeof Libsql

/** A sandbox database of the current schema, opened directly. */
function openDatabase(): { db: Libsql.Database; dir: string; file: string } {
  const dir = tempDir('pay-schema-')
  new SandboxStore(dir).close()
  const file = path.join(dir, 'store.db')
  return { db: new Database(file), dir, file }
}

const userVersion = (db: Libsql.Database) =>
  (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version

describe('the statements of a request', () => {
  const sql = Object.entries(STATEMENTS).flatMap(([name, statement]) =>
    typeof statement === 'string'
      ? [[name, statement]]
      : (['payment_links', 'subscriptions'] as const).map((table) => [`${name}(${table})`, statement(table)]),
  )

  it.each(sql)('%s finds its rows through an index: no table scan, no sort', (_, statement) => {
    const { db } = openDatabase()
    const parameters = Array.from(statement.matchAll(/\?/g), () => 1)
    const plan = (
      db.prepare(`EXPLAIN QUERY PLAN ${statement}`).all(...parameters) as { detail: string }[]
    ).map((row) => row.detail)
    db.close()
    for (const step of plan) {
      expect(step, statement).not.toMatch(/^SCAN /)
      expect(step, statement).not.toMatch(/TEMP B-TREE/)
    }
    if (/^(SELECT|UPDATE|DELETE)/.test(statement)) {
      expect(plan.some((step) => /^SEARCH \w+ USING (COVERING )?INDEX|INTEGER PRIMARY KEY/.test(step))).toBe(
        true,
      )
    }
  })

  it('a list reads one page in the order of the (business, seq) index, newest first', () => {
    const { db } = openDatabase()
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${STATEMENTS.list('payment_links')}`).all('h', 50, 0) as {
      detail: string
    }[]
    db.close()
    expect(plan[0].detail).toBe('SEARCH payment_links USING INDEX payment_links_by_business_seq (business=?)')
  })
})

describe('schema versions (PRAGMA user_version)', () => {
  it('a new database is at the latest version, in WAL mode', () => {
    const { db } = openDatabase()
    expect(userVersion(db)).toBe(MIGRATIONS.length)
    expect((db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal')
    db.close()
  })

  it('a later migration is applied once, in a transaction, to a database with records, which stay', async () => {
    const t = await startTestSandbox()
    const link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    await t.close()
    const file = path.join(t.dir, 'store.db')
    const next = {
      summary: 'a column for the next change',
      up: (db: { exec(sql: string): unknown }) => db.exec('ALTER TABLE payment_links ADD COLUMN note TEXT'),
    }
    const db = new Database(file)
    migrate(db, file, [...MIGRATIONS, next])
    expect(userVersion(db)).toBe(MIGRATIONS.length + 1)
    migrate(db, file, [...MIGRATIONS, next]) // nothing left to do: the column is not added twice
    const records = () =>
      (db.prepare('SELECT record, note FROM payment_links').all() as { record: string; note: null }[]).map(
        (row) => [JSON.parse(row.record), row.note],
      )
    // Kept as it was answered, but for its page: kept as a path, named by each answer.
    const kept = { ...link, payment_url: `/checkout/pay?id=${link._id}` }
    expect(records()).toEqual([[kept, null]])

    // A migration that fails leaves the database as it was.
    const broken = {
      summary: 'fails half-way',
      up: (d: typeof db) => d.exec('CREATE TABLE t (x); SELECT nope'),
    }
    expect(() => migrate(db, file, [...MIGRATIONS, next, broken])).toThrow()
    expect(userVersion(db)).toBe(MIGRATIONS.length + 1)
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 't'").all()).toEqual([])
    expect(records()).toEqual([[kept, null]])
    db.close()
  })
})

describe('a database of schema version 1 (pay before idempotency keys)', () => {
  // test/fixtures/store-1.db: store-0.1.json imported by pay at version 1 (test/fixtures/README.md).
  const fixture = path.join(ROOT, 'test/fixtures/store-1.db')

  /** Every row of every table of a database, by table, as SQLite returns them. */
  function rows(file: string): Record<string, unknown[]> {
    const db = new Database(file)
    try {
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all() as { name: string }[]
      return Object.fromEntries(
        tables.map(({ name }) => [
          name,
          (db.prepare(`SELECT * FROM ${name} ORDER BY rowid`).all() as Record<string, unknown>[]).map(
            ({ _metadata, ...row }) => row,
          ),
        ]),
      )
    } finally {
      db.close()
    }
  }

  it('is migrated on open to the latest version: every row kept, the new table empty, once', async () => {
    const dir = tempDir('pay-migrate-')
    const file = path.join(dir, 'store.db')
    fs.copyFileSync(fixture, file)
    const before = rows(file)
    const version1 = new Database(file)
    expect(userVersion(version1)).toBe(1)
    version1.close()
    expect(Object.keys(before)).not.toContain('idempotency_keys')

    const t = await startTestSandbox({ dir })
    try {
      const db = new Database(file)
      expect(userVersion(db)).toBe(MIGRATIONS.length)
      db.close()
      // The subscriptions pay 0.1 held (two yearly ones created 2026-11-23, one cancelled) are
      // scheduled from the first date after their creation, as new ones would be; nothing is billed.
      const scheduled = (
        before.subscriptions as { seq: number; business: number; id: string; record: string }[]
      )
        .filter((row) => JSON.parse(row.record).status !== 'cancel')
        .map(({ seq, business, id }) => ({
          subscription: seq,
          business,
          id,
          months: 12,
          days: 0,
          anchor: '2025-01-01',
          anchor_month: 2025 * 12,
          anchor_day: 1,
          n: 2,
          due: '2027-01-01',
        }))
      expect(scheduled).toHaveLength(2)
      // Each page kept as its path (version 7), the rest of each record's text as it was.
      const pathOf = <T extends { record: string }>(
        rows: unknown[],
        field: string,
        page: (row: T) => string,
      ) =>
        (rows as T[]).map((row) => ({
          ...row,
          record: row.record.replace(new RegExp(`"${field}":"[^"]*"`), `"${field}":"${page(row)}"`),
        }))
      expect(rows(file)).toEqual({
        ...before,
        payment_links: pathOf<{ id: string; record: string }>(
          before.payment_links,
          'payment_url',
          (row) => `/checkout/pay?id=${row.id}`,
        ),
        tokenizations: pathOf<{ token: string; record: string }>(
          before.tokenizations,
          'activation_url',
          (row) => `/checkout/tokens/${row.token}/activate?test=true`,
        ),
        idempotency_keys: [],
        clock: [{ id: 1, offset_ms: 0 }],
        schedules: scheduled,
        charges: [],
        seeded: [],
        // Each business of the started sandbox has its signature key once it starts (notify/).
        signature_keys: [KEY_A, KEY_B].map((key) => ({
          key_hash: keyHash(key),
          key: expect.stringMatching(/^sig_sandbox_[0-9a-f]{48}$/),
        })),
        webhook_endpoints: [],
        webhook_deliveries: [],
      })
      // What pay 0.1 held is still all there, exactly but for its pages' addresses, and served.
      expect(storeText(dir)).toBe(keptText)
      const link = await t.a.call('POST', '/payment-links', VALID_LINK, {
        'Idempotency-Key': 'after-migration',
      })
      const again = await t.a.call('POST', '/payment-links', VALID_LINK, {
        'Idempotency-Key': 'after-migration',
      })
      expect(again.text).toBe(link.text)
      expect(rows(file).idempotency_keys).toHaveLength(1)
    } finally {
      await t.close()
    }
  })
})
