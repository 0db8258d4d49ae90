import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type Libsql from 'libsql'
import { describe, expect, it } from 'vitest'
import { keyHash, listPackages } from '../../../src/sandbox/domain/business.js'
import { newObjectId, nowIso } from '../../../src/sandbox/domain/records.js'
import { SandboxStore } from '../../../src/sandbox/store/store.js'
import { readSandboxKey } from '../../../src/shared/sandbox-key.js'
import { runCli, tempDir } from '../../helpers/cli.js'
import { linkCreateArgs } from '../../helpers/links.js'

/**
 * The sandbox's database as the `sandbox` profile uses it (in-process, no server running): `pay
 * sandbox reset` empties it, and an `Idempotency-Key` (`--idempotency-key`) is honoured.
 */

const Database = createRequire(import.meta.url)('libsql') as typeof Libsql

const TABLES = ['payment_links', 'subscriptions', 'tokenizations', 'businesses', 'idempotency_keys']

/** Rows in each table of the database, read from the file itself. */
function counts(dir: string): Record<string, number> {
  const db = new Database(path.join(dir, 'store.db'))
  try {
    return Object.fromEntries(
      TABLES.map((table) => [
        table,
        Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n),
      ]),
    )
  } finally {
    db.close()
  }
}

const sizes = (dir: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((name) => name.startsWith('store.db'))
      .map((name) => [name, fs.statSync(path.join(dir, name)).size]),
  )

/** `count` payment links of the business of `key`, written straight into the store. */
function seedLinks(dir: string, count: number, key: string): void {
  const store = new SandboxStore(dir)
  const business = { keyHash: keyHash(key), businessId: listPackages(key)[0].business_id }
  try {
    store.write(() => {
      for (let i = 0; i < count; i++) {
        const _id = newObjectId()
        const at = nowIso()
        store.insert('payment_links', business, {
          _id,
          email: `c${i}@example.com`,
          currency: 'EUR',
          amount: 10 + i,
          title: `Seeded ${i} ${'x'.repeat(200)}`,
          status: 'Active',
          payment_url: `http://127.0.0.1:4010/checkout/pay?id=${_id}`,
          business_id: business.businessId,
          paid: false,
          created_at: at,
          updated_at: at,
        })
      }
    })
  } finally {
    store.close()
  }
}

describe('the sandbox database', () => {
  it('pay sandbox reset empties it: every record and idempotency key gone, the file small again', async () => {
    const dir = tempDir('pay-sandbox-')
    const env = { PAY_SANDBOX_DIR: dir }
    const sandbox = ['-p', 'sandbox']
    expect(
      (await runCli([...sandbox, ...linkCreateArgs(), '--idempotency-key', 'k-1', '-q'], { env })).code,
    ).toBe(0)
    // The business of the directory's own key, which the first command made and the profile sends.
    const key = readSandboxKey(dir) as string
    const packageId = listPackages(key)[0]._id
    expect(
      (await runCli([...sandbox, 'subs', 'create', '--package-id', packageId, '--email', 'a@b.co'], { env }))
        .code,
    ).toBe(0)
    const token = ['token', 'create', '--email', 'a@b.co', '--title', 'T', '--description', 'D']
    expect((await runCli([...sandbox, ...token], { env })).code).toBe(0)
    seedLinks(dir, 5000, key)
    expect(counts(dir)).toEqual({
      payment_links: 5001,
      subscriptions: 1,
      tokenizations: 1,
      businesses: 1,
      idempotency_keys: 3, // pay sends a key with every POST
    })
    const full = sizes(dir)
    expect(full['store.db'] + (full['store.db-wal'] ?? 0)).toBeGreaterThan(1_000_000)

    const reset = await runCli(['sandbox', 'reset'], { env })
    expect(reset).toMatchObject({ code: 0, stdout: '' })
    expect(counts(dir)).toEqual(Object.fromEntries(TABLES.map((table) => [table, 0])))
    const emptied = sizes(dir)
    expect(emptied['store.db']).toBeLessThan(200_000)
    expect(emptied['store.db-wal'] ?? 0).toBe(0)
    // The sandbox's secret stays (test/unit/sandbox/http/proof.test.ts), and so does its key.
    expect(
      fs
        .readdirSync(dir)
        .filter((name) => !name.startsWith('store.db'))
        .sort(),
    ).toEqual(['proof.secret', 'sandbox.key'])

    const list = await runCli([...sandbox, 'links', 'list', '--json'], { env })
    expect(list).toMatchObject({ code: 0, stdout: '[]\n' })
    // The key was forgotten with the rest: the same create makes a new link.
    const again = await runCli([...sandbox, ...linkCreateArgs(), '--idempotency-key', 'k-1', '-q'], { env })
    expect(again.code).toBe(0)
    expect(counts(dir).payment_links).toBe(1)
  })

  it('a create sent again with --idempotency-key answers the link it made; the key on other fields is refused', async () => {
    const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-') }
    const create = (amount: string) =>
      runCli(['-p', 'sandbox', ...linkCreateArgs(amount), '--idempotency-key', 'invoice-1042', '--json'], {
        env,
      })
    const first = await create('25.50')
    expect(first.code).toBe(0)
    const again = await create('25.50')
    expect(again).toMatchObject({ code: 0, stdout: first.stdout })
    const ids = (await runCli(['-p', 'sandbox', 'links', 'list', '-q'], { env })).stdout
    expect(ids).toBe(`${JSON.parse(first.stdout)._id}\n`)

    const changed = await runCli(
      ['-p', 'sandbox', ...linkCreateArgs('30'), '--idempotency-key', 'invoice-1042'],
      {
        env,
      },
    )
    expect(changed).toMatchObject({ code: 3, stdout: '' })
    expect(changed.stderr).toBe(
      'Error: The given data was invalid.\n' +
        '  --idempotency-key  This idempotency key was already used for a different request: send a new key with a new request.\n',
    )
  })
})
