import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type Libsql from 'libsql'
import { afterEach, describe, expect, test } from 'vitest'
import { SandboxStore } from '../../../src/sandbox/store/store.js'
import { sandboxKeyOf } from '../../../src/shared/sandbox-key.js'
import { referenceDates, subscribe } from '../../helpers/billing.js'
import { startCli } from '../../helpers/child.js'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { exited, killStarted, startSandboxProcess } from '../../helpers/processes.js'
import { clientFor, KEY_A, readStore } from '../../helpers/sandbox.js'

/**
 * Billing when several processes use one sandbox database at once, and when one is killed in the
 * middle: each (subscription, date) is charged exactly once whoever bills it, and an
 * advance is one transaction, all of it kept or none.
 */

afterEach(killStarted)

const Database = createRequire(import.meta.url)('libsql') as typeof Libsql
const DAY = 86_400_000
const day = (at: number) => new Date(at).toISOString().slice(0, 10)

/** `count` daily subscriptions created yesterday, written into the store of `dir`; their ids. */
function seedDaily(dir: string, count: number): { ids: string[]; createdDay: string } {
  const createdAt = new Date(Date.now() - DAY).toISOString()
  // The directory as pay keeps it now: its own key first (a store with none is an earlier pay's,
  // whose records under the well-known key pay points out when it makes one).
  sandboxKeyOf(dir)
  const store = new SandboxStore(dir)
  try {
    const ids = store.write(() =>
      Array.from(
        { length: count },
        () => subscribe(store, { frequency: 'daily', date_charge_start: '2020-01-01' }, createdAt)._id,
      ),
    )
    return { ids, createdDay: createdAt.slice(0, 10) }
  } finally {
    store.close()
  }
}

/** What the database in `dir` holds of billing: charges, charge links, duplicates, the clock. */
function billing(dir: string) {
  const db = new Database(path.join(dir, 'store.db'))
  try {
    const one = (sql: string) => Object.values(db.prepare(sql).get() as Record<string, number>)[0]
    return {
      charges: one('SELECT count(*) FROM charges'),
      distinct: one('SELECT count(*) FROM (SELECT DISTINCT subscription, due FROM charges)'),
      links: one('SELECT count(*) FROM payment_links'),
      offsetMs: one('SELECT offset_ms FROM clock'),
    }
  } finally {
    db.close()
  }
}

/** Moves the clock of the database as real time passing would: no billing. */
function letTimePass(dir: string, ms: number) {
  const db = new Database(path.join(dir, 'store.db'))
  try {
    db.prepare('UPDATE clock SET offset_ms = offset_ms + ?').run(ms)
  } finally {
    db.close()
  }
}

describe('exactly once', () => {
  test('two `pay sandbox clock set` at once on one local store', async () => {
    const dir = tempDir('pay-billing-twice-')
    const { ids, createdDay } = seedDaily(dir, 200)
    const target = day(Date.now() + 120 * DAY)
    const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
    const runs = [0, 1].map(() => startCli(['sandbox', 'clock', 'set', target, '--json'], { env }))
    const results = await Promise.all(runs.map((run) => run.done))
    for (const result of results) expect(result).toMatchObject({ code: 0, stderr: '' })
    const made = results.map((result) => JSON.parse(result.stdout).charges_created as number)

    const expected = referenceDates('2020-01-01', 'daily', createdDay, target).length * ids.length
    expect(expected).toBeGreaterThan(20_000)
    expect(made[0] + made[1]).toBe(expected)
    expect(billing(dir)).toMatchObject({ charges: expected, distinct: expected, links: expected })
  })

  test('a server and an in-process command catching up at once, then both moving the clock', async () => {
    const dir = tempDir('pay-billing-server-')
    const { ids, createdDay } = seedDaily(dir, 150)
    const server = await startSandboxProcess(
      [BIN, 'sandbox', 'start', '--port', '0', '--json', '--quiet'],
      // The business the subscriptions were seeded in: its key given to both, out of sight.
      cleanEnv({ PAY_SANDBOX_DIR: dir, PAY_SANDBOX_KEYS: KEY_A }),
    )
    const api = clientFor(server.baseUrl, KEY_A)
    // 90 days pass: whoever uses the store next bills them.
    letTimePass(dir, 90 * DAY)
    const inProcess = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1', PAY_API_KEY: KEY_A }
    const [viaServer, viaCommand] = await Promise.all([
      api.call('GET', '/subscriptions?per_page=1'),
      runCli(['-p', 'sandbox', 'subs', 'list', '--all', '--json'], { env: inProcess }),
    ])
    expect(viaServer.status).toBe(200)
    expect(viaCommand.code).toBe(0)
    const today = day(Date.now() + billing(dir).offsetMs)
    let expected = referenceDates('2020-01-01', 'daily', createdDay, today).length * ids.length
    expect(billing(dir)).toMatchObject({ charges: expected, distinct: expected, links: expected })
    // Every subscription listed by the command had its charges already.
    const listed = JSON.parse(viaCommand.stdout) as { payment_links: unknown[] }[]
    expect(listed.map((sub) => sub.payment_links.length)).toEqual(ids.map(() => expected / ids.length))

    // Then the server's route and the local command set the clock to one day at once.
    const target = day(Date.now() + 200 * DAY)
    const [routed, local] = await Promise.all([
      api.call('POST', '/_sandbox/clock', { to: target }),
      runCli(['sandbox', 'clock', 'set', target, '--json'], { env: inProcess }),
    ])
    expect(routed.status).toBe(200)
    expect(local.code).toBe(0)
    const before = expected
    expected = referenceDates('2020-01-01', 'daily', createdDay, target).length * ids.length
    expect(routed.json.data.charges_created + JSON.parse(local.stdout).charges_created).toBe(
      expected - before,
    )
    expect(billing(dir)).toMatchObject({ charges: expected, distinct: expected, links: expected })
  })
})

describe('kill -9 during an advance', () => {
  test('keeps nothing of it; the store opens, and the advance made again bills everything once', async () => {
    const dir = tempDir('pay-billing-kill-')
    const { ids, createdDay } = seedDaily(dir, 400)
    const env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' }
    const before = billing(dir)
    const wal = path.join(dir, 'store.db-wal')
    const walAtStart = fs.existsSync(wal) ? fs.statSync(wal).size : 0

    const run = startCli(['sandbox', 'clock', 'advance', '1y', '--json'], { env })
    // The transaction is under way once its pages spill into the WAL (megabytes, never committed yet).
    for (;;) {
      const size = fs.existsSync(wal) ? fs.statSync(wal).size : 0
      if (size > walAtStart + 8 * 1024 * 1024 || run.child.exitCode !== null) break
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    run.child.kill('SIGKILL')
    const killed = await run.done
    await exited(run.child)
    expect(killed.signal).toBe('SIGKILL')
    expect(killed.stdout).toBe('') // it had not finished: nothing was reported done

    readStore(dir) // passes SQLite's integrity check
    expect(billing(dir)).toEqual(before)
    expect(before).toMatchObject({ charges: 0, links: 0, offsetMs: 0 })

    const again = await runCli(['sandbox', 'clock', 'advance', '1y', '--json'], { env, timeoutMs: 120_000 })
    expect(again.code).toBe(0)
    const moved = JSON.parse(again.stdout)
    const expected =
      referenceDates('2020-01-01', 'daily', createdDay, moved.now.slice(0, 10)).length * ids.length
    expect(moved.charges_created).toBe(expected)
    expect(billing(dir)).toMatchObject({ charges: expected, distinct: expected, links: expected })
  }, 180_000)
})
