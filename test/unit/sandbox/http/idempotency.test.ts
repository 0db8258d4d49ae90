import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type Libsql from 'libsql'
import { afterEach, describe, expect, it } from 'vitest'
import { IDEMPOTENCY_WINDOW_MS, keptKey } from '../../../../src/sandbox/http/idempotency.js'
import { resetSandbox } from '../../../../src/sandbox/store/local.js'
import { killStarted } from '../../../helpers/processes.js'
import {
  clientFor,
  invalid,
  required,
  startTestSandbox,
  type TestSandbox,
  tempDir,
  VALID_LINK,
  VALID_TOKEN,
} from '../../../helpers/sandbox.js'
import { listAll, startMain } from '../../../helpers/sandbox-load.js'

/**
 * `Idempotency-Key` on the POSTs of the API, as Stripe honours it: the same POST sent again with
 * its key is answered as the first time (status and body, byte for byte) and creates nothing; the
 * key on another request is a 422; keys are per business, kept in the database for 24 hours.
 */

const Database = createRequire(import.meta.url)('libsql') as typeof Libsql

const running: TestSandbox[] = []
async function start(dir?: string): Promise<TestSandbox> {
  const t = await startTestSandbox({ dir })
  running.push(t)
  return t
}
afterEach(async () => {
  killStarted()
  await Promise.all(running.splice(0).map((t) => t.close()))
})

const withKey = (key: string) => ({ 'Idempotency-Key': key })

const REUSED = invalid({
  idempotency_key: [
    'This idempotency key was already used for a different request: send a new key with a new request.',
  ],
})

/** Rows of a table, read from the database file itself. */
function count(dir: string, table: string): number {
  const db = new Database(path.join(dir, 'store.db'))
  try {
    return Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n)
  } finally {
    db.close()
  }
}

const bodies = (t: TestSandbox) => ({
  '/payment-links': VALID_LINK,
  '/subscriptions': { package_id: t.packageIds[0], email: 'ada@example.com' },
  '/tokenizations/create-token': VALID_TOKEN,
})

const TABLES = {
  '/payment-links': 'payment_links',
  '/subscriptions': 'subscriptions',
  '/tokenizations/create-token': 'tokenizations',
} as const

describe('a POST sent again with its Idempotency-Key', () => {
  it.each(Object.keys(TABLES) as (keyof typeof TABLES)[])(
    '%s: answered the same, status and body byte for byte, and created once',
    async (route) => {
      const t = await start()
      const body = bodies(t)[route]
      const first = await t.a.call('POST', route, body, withKey('order-1042'))
      expect(first.status).toBe(200)
      expect(first.headers.get('idempotent-replayed')).toBeNull()
      const again = await t.a.call('POST', route, body, withKey('order-1042'))
      expect(again.status).toBe(200)
      expect(again.text).toBe(first.text)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.headers.get('content-type')).toBe('application/json')
      expect(count(t.dir, TABLES[route])).toBe(1)
      // Another key, or none, is another request.
      expect((await t.a.call('POST', route, body, withKey('order-1043'))).json.data._id).not.toBe(
        first.json.data._id,
      )
      await t.a.call('POST', route, body)
      await t.a.call('POST', route, body)
      expect(count(t.dir, TABLES[route])).toBe(4)
    },
  )

  it('the same fields in another order are the same request', async () => {
    const t = await start()
    const first = await t.a.call('POST', '/payment-links', VALID_LINK, withKey('k'))
    const reordered = Object.fromEntries(Object.entries(VALID_LINK).reverse())
    const again = await t.a.call('POST', '/payment-links', reordered, withKey('k'))
    expect(again.text).toBe(first.text)
  })

  it('refuses the key on another body or another endpoint (422, nothing created), and still answers the first', async () => {
    const t = await start()
    const first = await t.a.call('POST', '/payment-links', VALID_LINK, withKey('k'))
    const otherAmount = await t.a.call(
      'POST',
      '/payment-links',
      { ...VALID_LINK, amount: '30' },
      withKey('k'),
    )
    expect(otherAmount.status).toBe(422)
    expect(otherAmount.json).toEqual(REUSED)
    const otherRoute = await t.a.call('POST', '/tokenizations/create-token', VALID_TOKEN, withKey('k'))
    expect(otherRoute.status).toBe(422)
    expect(otherRoute.json).toEqual(REUSED)
    // A body that fails validation on a used key: the key is checked first.
    expect((await t.a.call('POST', '/payment-links', {}, withKey('k'))).json).toEqual(REUSED)
    expect(count(t.dir, 'payment_links')).toBe(1)
    expect(count(t.dir, 'tokenizations')).toBe(0)
    expect((await t.a.call('POST', '/payment-links', VALID_LINK, withKey('k'))).text).toBe(first.text)
  })

  it('keeps nothing for a request refused before anything was done: fixed, it is sent again with its key', async () => {
    const t = await start()
    const refused = await t.a.call('POST', '/payment-links', { ...VALID_LINK, email: '' }, withKey('k'))
    expect(refused.status).toBe(422)
    expect(refused.json).toEqual(invalid({ email: required('email') }))
    expect((await t.a.call('POST', '/payment-links', 'not json', withKey('k'))).status).toBe(400)
    const unauthenticated = await t.a.call('POST', '/payment-links', VALID_LINK, {
      ...withKey('k'),
      Authorization: 'Bearer sk_wrong_key_0000000000',
    })
    expect(unauthenticated.status).toBe(401)
    expect(count(t.dir, 'idempotency_keys')).toBe(0)
    const fixed = await t.a.call('POST', '/payment-links', VALID_LINK, withKey('k'))
    expect(fixed.status).toBe(200)
    expect(fixed.headers.get('idempotent-replayed')).toBeNull()
    expect(count(t.dir, 'payment_links')).toBe(1)
  })

  it('is per business: another business with the same key makes its own record', async () => {
    const t = await start()
    const a = await t.a.call('POST', '/payment-links', VALID_LINK, withKey('shared'))
    const b = await t.b.call('POST', '/payment-links', { ...VALID_LINK, amount: '99' }, withKey('shared'))
    expect(b.status).toBe(200)
    expect(b.json.data._id).not.toBe(a.json.data._id)
    expect(b.json.data.business_id).not.toBe(a.json.data.business_id)
    expect(
      (await t.b.call('POST', '/payment-links', { ...VALID_LINK, amount: '99' }, withKey('shared'))).text,
    ).toBe(b.text)
  })

  it('many at once with one key, on two sandbox processes sharing the directory: one record, one answer', async () => {
    const dir = tempDir('pay-idem-')
    const servers = await Promise.all([startMain(dir), startMain(dir)])
    const clients = servers.map((server) => clientFor(server.baseUrl))
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        clients[i % 2].call('POST', '/payment-links', VALID_LINK, withKey('at-once')),
      ),
    )
    expect(answers.map((answer) => answer.status)).toEqual(Array(24).fill(200))
    // One answer, each naming the page on the sandbox that sent it.
    const id = answers[0].json.data._id
    expect(answers[0].json.data.payment_url).toBe(`${servers[0].baseUrl}/checkout/pay?id=${id}`)
    expect(answers[1].json.data.payment_url).toBe(`${servers[1].baseUrl}/checkout/pay?id=${id}`)
    const anywhere = answers.map((answer, i) => answer.text.replace(servers[i % 2].baseUrl, 'ORIGIN'))
    expect(new Set(anywhere).size).toBe(1)
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === null)).toHaveLength(1)
    expect((await listAll(clients[0], '/payment-links')).size).toBe(1)
  })

  it('is kept in the database: answered the same after a restart, naming the address that serves it', async () => {
    const first = await start()
    const created = await first.a.call('POST', '/payment-links', VALID_LINK, withKey('k'))
    await first.close()
    const second = await start(first.dir)
    expect(second.baseUrl).not.toBe(first.baseUrl)
    expect((await second.a.call('POST', '/payment-links', VALID_LINK, withKey('k'))).text).toBe(
      created.text.replace(first.baseUrl, second.baseUrl),
    )
    expect(count(first.dir, 'payment_links')).toBe(1)
  })

  it('is forgotten after 24 hours: the key makes a new record, and expired keys are deleted', async () => {
    const t = await start()
    const old = await t.a.call('POST', '/payment-links', VALID_LINK, withKey('k'))
    await t.a.call('POST', '/payment-links', VALID_LINK, withKey('other-old-key'))
    const db = new Database(path.join(t.dir, 'store.db'))
    try {
      db.prepare('UPDATE idempotency_keys SET created_at = created_at - ?').run(IDEMPOTENCY_WINDOW_MS + 1000)
    } finally {
      db.close()
    }
    const fresh = await t.a.call('POST', '/payment-links', VALID_LINK, withKey('k'))
    expect(fresh.status).toBe(200)
    expect(fresh.headers.get('idempotent-replayed')).toBeNull()
    expect(fresh.json.data._id).not.toBe(old.json.data._id)
    expect(count(t.dir, 'payment_links')).toBe(3)
    // The fresh key stays; the other one, expired, went with that write.
    expect(count(t.dir, 'idempotency_keys')).toBe(1)
    expect((await t.a.call('POST', '/payment-links', VALID_LINK, withKey('k'))).text).toBe(fresh.text)
  })

  it('a key of 255 characters is fine, a longer one is a 422; a blank one counts as none', async () => {
    const t = await start()
    expect((await t.a.call('POST', '/payment-links', VALID_LINK, withKey('k'.repeat(255)))).status).toBe(200)
    const long = await t.a.call('POST', '/payment-links', VALID_LINK, withKey('k'.repeat(256)))
    expect(long.status).toBe(422)
    expect(long.json).toEqual(
      invalid({ idempotency_key: ['The idempotency key must not be longer than 255 characters.'] }),
    )
    await t.a.call('POST', '/payment-links', VALID_LINK, withKey('  '))
    await t.a.call('POST', '/payment-links', VALID_LINK, withKey('  '))
    expect(count(t.dir, 'payment_links')).toBe(3)
    expect(count(t.dir, 'idempotency_keys')).toBe(1)
  })

  it('keeps a key as its SHA-256, never as sent (a secret pasted as a key stays out of the store); one kept as sent before is still honoured', async () => {
    const t = await start()
    const secret = 'sk_live_pasted_as_a_key_0f9e8d7c'
    const first = await t.a.call('POST', '/payment-links', VALID_LINK, withKey(secret))
    const db = new Database(path.join(t.dir, 'store.db'))
    try {
      const keys = db.prepare('SELECT key FROM idempotency_keys').all() as { key: string }[]
      expect(keys).toEqual([{ key: keptKey(secret) }])
      expect(keptKey(secret)).toMatch(/^sha256:[0-9a-f]{64}$/)
      // As an earlier pay kept a key: as it was sent.
      db.prepare("UPDATE idempotency_keys SET key = 'order-1' WHERE key = ?").run(keptKey(secret))
    } finally {
      db.close()
    }
    const again = await t.a.call('POST', '/payment-links', VALID_LINK, withKey('order-1'))
    expect([again.text, again.headers.get('idempotent-replayed')]).toEqual([first.text, 'true'])
    expect(count(t.dir, 'payment_links')).toBe(1)
    for (const file of ['store.db', 'store.db-wal']) {
      const bytes = fs.readFileSync(path.join(t.dir, file))
      expect([file, bytes.includes(secret)]).toEqual([file, false])
    }
  })

  it('is forgotten by reset, with everything else', async () => {
    const t = await start()
    const before = await t.a.call('POST', '/payment-links', VALID_LINK, withKey('k'))
    resetSandbox(t.dir)
    expect(count(t.dir, 'idempotency_keys')).toBe(0)
    const after = await t.a.call('POST', '/payment-links', VALID_LINK, withKey('k'))
    expect(after.headers.get('idempotent-replayed')).toBeNull()
    expect(after.json.data._id).not.toBe(before.json.data._id)
  })

  it('applies to POST only: PUT and DELETE are idempotent already', async () => {
    const t = await start()
    const link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    const put = await t.a.call(
      'PUT',
      `/payment-links/${link._id}`,
      { ...VALID_LINK, title: 'x' },
      withKey('p'),
    )
    expect(put.status).toBe(200)
    expect((await t.a.call('DELETE', `/payment-links/${link._id}`, undefined, withKey('p'))).status).toBe(200)
    expect(count(t.dir, 'idempotency_keys')).toBe(0)
  })
})
