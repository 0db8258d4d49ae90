import { createRequire } from 'node:module'
import path from 'node:path'
import type Libsql from 'libsql'
import { afterEach, describe, expect, it } from 'vitest'
import { businessOf } from '../../../../src/sandbox/domain/business.js'
import { fingerprintOf, keptKey } from '../../../../src/sandbox/http/idempotency.js'
import { migrate } from '../../../../src/sandbox/store/database.js'
import { MIGRATIONS } from '../../../../src/sandbox/store/schema.js'
import {
  KEY_A,
  queryStore,
  rawRequest,
  startTestSandbox,
  type TestSandbox,
  tempDir,
  VALID_LINK,
  VALID_TOKEN,
} from '../../../helpers/sandbox.js'

/**
 * The addresses of the customer pages in the sandbox's answers (`payment_url`, `activation_url`):
 * each answer names the address of the sandbox that serves it, whichever sandbox made the record,
 * and the store keeps only the page's path. A link made on port 4010 and served by a sandbox
 * started elsewhere (`--port 0`) leads to a page that sandbox serves.
 */

const Database = createRequire(import.meta.url)('libsql') as typeof Libsql

const open: TestSandbox[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()))
})

async function sandbox(dir?: string): Promise<TestSandbox> {
  const t = await startTestSandbox({ dir })
  open.push(t)
  return t
}

const page = (origin: string, id: string) => `${origin}/checkout/pay?id=${id}`
const activation = (origin: string, token: string) => `${origin}/checkout/tokens/${token}/activate?test=true`

describe('payment_url and activation_url', () => {
  it('name the sandbox that answers, not the one that made the record: get, list, update, charges', async () => {
    const made = await sandbox()
    const serving = await sandbox(made.dir)
    expect(serving.baseUrl).not.toBe(made.baseUrl)
    const link = (await made.a.call('POST', '/payment-links', VALID_LINK)).json.data
    expect(link.payment_url).toBe(page(made.baseUrl, link._id))

    const got = (await serving.a.call('GET', `/payment-links/${link._id}`)).json.data
    expect(got).toEqual({ ...link, payment_url: page(serving.baseUrl, link._id) })
    const listed = (await serving.a.call('GET', '/payment-links')).json.data.data
    expect(listed).toEqual([got])
    const updated = await serving.a.call('PUT', `/payment-links/${link._id}`, { ...VALID_LINK, title: 'New' })
    expect(updated.json.data.payment_url).toBe(page(serving.baseUrl, link._id))
    // And the first one, asked again, still names itself.
    expect((await made.a.call('GET', `/payment-links/${link._id}`)).json.data.payment_url).toBe(
      page(made.baseUrl, link._id),
    )

    // A subscription's charge, billed through one, is a link of the other's page when it answers.
    const monthly = made.packageIds[2]
    const sub = (
      await made.a.call('POST', '/subscriptions', { package_id: monthly, email: 'jane@example.com' })
    ).json.data
    expect((await made.a.call('POST', '/_sandbox/clock', { advance: '35d' })).status).toBe(200)
    const charges = (await serving.a.call('GET', `/subscriptions/${sub._id}`)).json.data.payment_links
    expect(charges.length).toBeGreaterThan(0)
    for (const charge of charges) expect(charge.payment_url).toBe(page(serving.baseUrl, charge._id))

    // The page it names is served there.
    const served = await fetch(page(serving.baseUrl, link._id))
    expect(served.status).toBe(200)
    expect(await served.text()).toContain('New')
  })

  it('keep only the page’s path in the store', async () => {
    const t = await sandbox()
    const link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    const token = (await t.a.call('POST', '/tokenizations/create-token', VALID_TOKEN)).json.data
    expect(token.activation_url).toBe(activation(t.baseUrl, token.token))
    expect(queryStore(t.dir, "SELECT record ->> '$.payment_url' AS url FROM payment_links")).toEqual([
      { url: `/checkout/pay?id=${link._id}` },
    ])
    expect(queryStore(t.dir, "SELECT record ->> '$.activation_url' AS url FROM tokenizations")).toEqual([
      { url: `/checkout/tokens/${token.token}/activate?test=true` },
    ])
  })

  it('name the Host the request was sent to, when it is one of the sandbox’s own; never a foreign one', async () => {
    const t = await sandbox()
    const port = new URL(t.baseUrl).port
    const link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    const asked = (host: string) =>
      rawRequest(t.baseUrl, {
        path: `/payment-links/${link._id}`,
        headers: { Host: host, Authorization: `Bearer ${KEY_A}` },
      })
    const byName = await asked(`localhost:${port}`)
    expect(byName.status).toBe(200)
    expect(JSON.parse(byName.text).data.payment_url).toBe(page(`http://localhost:${port}`, link._id))
    // A name re-pointed at this machine (DNS rebinding) is refused before any record is read.
    const rebound = await asked(`shop.example:${port}`)
    expect(rebound.status).toBe(421)
    expect(rebound.text).not.toContain(link._id)
  })

  it('an Idempotency-Key answered again names the sandbox answering it', async () => {
    const made = await sandbox()
    const serving = await sandbox(made.dir)
    const key = { 'Idempotency-Key': 'page-address-replay' }
    const first = await made.a.call('POST', '/payment-links', VALID_LINK, key)
    const again = await serving.a.call('POST', '/payment-links', VALID_LINK, key)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.json.data.payment_url).toBe(page(serving.baseUrl, first.json.data._id))
  })
})

describe('a store of schema version 6, its records kept with the address that made them', () => {
  /** A database at version 6 holding a link, a tokenization and an answer kept under a key, each naming port 4811. */
  function storeAt6(dir: string) {
    const file = path.join(dir, 'store.db')
    const db = new Database(file)
    migrate(db, file, MIGRATIONS.slice(0, 6))
    const business = businessOf(KEY_A)
    const id = '6b03f49e576951e5360008e3'
    const token = '1fcdef10700400620e1d11770b792f4a02502041'
    const old = 'http://127.0.0.1:4811'
    const link = {
      _id: id,
      email: 'ada@example.com',
      currency: 'NGN',
      amount: 25.5,
      title: 'Invoice 42 · Café',
      status: 'Active',
      payment_url: page(old, id),
      business_id: business.businessId,
      paid: false,
      created_at: '2026-11-23T08:09:00.000Z',
      updated_at: '2026-11-23T08:09:00.000Z',
    }
    const tokenization = {
      _id: '6b03f49e576951e5360008e8',
      ...VALID_TOKEN,
      token,
      activation_url: activation(old, token),
      created_at: '2026-11-23T08:09:00.000Z',
      updated_at: '2026-11-23T08:09:00.000Z',
    }
    db.prepare('INSERT INTO businesses (key_hash, business_id) VALUES (?, ?)').run(
      business.keyHash,
      business.businessId,
    )
    db.prepare('INSERT INTO payment_links (business, id, record) VALUES (1, ?, ?)').run(
      id,
      JSON.stringify(link),
    )
    db.prepare('INSERT INTO tokenizations (business, id, token, record) VALUES (1, ?, ?, ?)').run(
      tokenization._id,
      token,
      JSON.stringify(tokenization),
    )
    const response = JSON.stringify({ success: true, data: link, errors: null, meta: { timezone: 'UTC' } })
    db.prepare(
      'INSERT INTO idempotency_keys (business, key, fingerprint, status, response, created_at) VALUES (1, ?, ?, 200, ?, ?)',
    ).run(keptKey('made-on-4811'), fingerprintOf('/payment-links', VALID_LINK), response, Date.now())
    db.close()
    return { link, tokenization }
  }

  it('is migrated: each record keeps its path, and is answered with the address of the sandbox serving it', async () => {
    const dir = tempDir('pay-pages-')
    const { link, tokenization } = storeAt6(dir)
    const t = await sandbox(dir)
    expect(queryStore(dir, 'PRAGMA user_version')).toEqual([{ user_version: MIGRATIONS.length }])
    const kept = queryStore(dir, 'SELECT record FROM payment_links')[0].record
    // Only the page changed: the rest of the text as it was (the title's accent, the amount).
    expect(kept).toBe(JSON.stringify({ ...link, payment_url: `/checkout/pay?id=${link._id}` }))
    expect(queryStore(dir, 'SELECT record FROM tokenizations')[0].record).toBe(
      JSON.stringify({
        ...tokenization,
        activation_url: `/checkout/tokens/${tokenization.token}/activate?test=true`,
      }),
    )
    expect((await t.a.call('GET', `/payment-links/${link._id}`)).json.data).toEqual({
      ...link,
      payment_url: page(t.baseUrl, link._id),
    })
    const replayed = await t.a.call('POST', '/payment-links', VALID_LINK, {
      'Idempotency-Key': 'made-on-4811',
    })
    expect(replayed.headers.get('idempotent-replayed')).toBe('true')
    expect(replayed.json.data.payment_url).toBe(page(t.baseUrl, link._id))
  })
})
