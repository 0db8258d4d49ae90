import os from 'node:os'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { businessOf } from '../../../../src/sandbox/domain/business.js'
import type { PaymentLinkRecord } from '../../../../src/sandbox/domain/records.js'
import { notifyAttempt } from '../../../../src/sandbox/handlers/notify/attempts.js'
import { addEndpoint } from '../../../../src/sandbox/handlers/notify/endpoints.js'
import {
  type Claimed,
  claimDue,
  type Dispatch,
  listDeliveries,
  OUTBOX,
  recordAttempt,
  releaseDeadLeases,
  signatureKeyOf,
} from '../../../../src/sandbox/handlers/notify/outbox.js'
import { restoreSnapshot, saveSnapshot } from '../../../../src/sandbox/store/snapshots.js'
import { SandboxStore } from '../../../../src/sandbox/store/store.js'
import { deadPid } from '../../../helpers/processes.js'
import { KEY_A, tempDir } from '../../../helpers/sandbox.js'

/**
 * The outbox in the store (src/sandbox/handlers/notify/outbox.ts): its statements' plans, a delivery
 * claimed by one process of two, leases, what an attempt's outcome makes of a delivery, and what
 * a reset and a snapshot keep.
 */

const business = businessOf(KEY_A)
const stores: SandboxStore[] = []
afterEach(() => {
  vi.useRealTimers()
  for (const store of stores.splice(0)) store.close()
})

function openStore(dir = tempDir('pay-outbox-')): SandboxStore {
  const store = new SandboxStore(dir)
  stores.push(store)
  return store
}

/** A link of the business in `store`, and `endpoints` endpoints of it. */
function linkWithEndpoints(store: SandboxStore, endpoints = 1): PaymentLinkRecord {
  const link = {
    _id: Math.random().toString(16).slice(2).padEnd(24, '0').slice(0, 24),
    email: 'a@b.co',
    currency: 'EUR',
    amount: 5,
    title: 'T',
    status: 'Active',
    payment_url: 'http://127.0.0.1/checkout/pay',
    business_id: business.businessId,
    paid: true,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  }
  store.insert('payment_links', business, link)
  for (let i = 0; i < endpoints; i++) {
    addEndpoint(store, business.keyHash, {
      url: `http://127.0.0.1:9/${i}`,
      events: ['payment.created'],
      enabled: true,
    })
  }
  return link
}

const notify = (store: SandboxStore, link: PaymentLinkRecord, how?: Dispatch) =>
  store.write(() => notifyAttempt(store, { link, paid: true, at: Date.now() }, business.keyHash, how))

describe('the outbox’s statements', () => {
  it.each(Object.entries(OUTBOX))('%s finds its rows through an index', (name, statement) => {
    const store = openStore()
    const parameters = Array.from(statement.matchAll(/\?/g), () => 1)
    const plan = (
      store.statement(`EXPLAIN QUERY PLAN ${statement}`, 'all', ...parameters) as { detail: string }[]
    ).map((row) => row.detail)
    for (const step of plan)
      expect(step, `${name}: ${statement}`).not.toMatch(
        /^SCAN (?!webhook_deliveries USING INDEX webhook_deliveries_pending)/,
      )
    expect(plan.join('\n'), name).not.toMatch(/TEMP B-TREE/)
  })
})

describe('claiming', () => {
  it('of two processes on one directory, each due delivery goes to one, once', () => {
    const dir = tempDir('pay-outbox-')
    const [first, second] = [openStore(dir), openStore(dir)]
    const link = linkWithEndpoints(first, 3)
    for (let i = 0; i < 10; i++) notify(first, link)
    const claimed: Claimed[][] = [[], []]
    for (;;) {
      const a = claimDue(first, 'a', 60_000, 4)
      const b = claimDue(second, 'b', 60_000, 4)
      claimed[0].push(...a)
      claimed[1].push(...b)
      if (a.length === 0 && b.length === 0) break
    }
    const ids = [...claimed[0], ...claimed[1]].map((delivery) => delivery.id)
    expect(ids).toHaveLength(30)
    expect(new Set(ids).size).toBe(30)
    expect(claimed[0].length).toBeGreaterThan(0)
    expect(claimed[1].length).toBeGreaterThan(0)
  })

  it('a notification made for a process is leased to it as it is written: no other claims it', () => {
    const store = openStore()
    const link = linkWithEndpoints(store)
    const taken: Claimed[] = []
    const how: Dispatch = { owner: 'maker', leaseMs: 60_000, take: (claimed) => taken.push(...claimed) }
    const made = notify(store, link, how)
    expect(made).toHaveLength(1)
    expect(claimDue(store, 'other', 60_000, 10)).toEqual([])
  })

  it('a lease that ran out, or whose process on this machine is gone, is claimed again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const store = openStore()
    const link = linkWithEndpoints(store, 2)
    const [late, dead] = notify(store, link, { owner: 'x', leaseMs: 1000, take: () => {} })
    const gone = await deadPid()
    store.statement(
      'UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? WHERE seq = ?',
      'run',
      `${gone}@${os.hostname()}:abc`,
      Date.now() + 3_600_000,
      dead.seq,
    )
    expect(claimDue(store, 'next', 1000, 10)).toEqual([])
    vi.setSystemTime(Date.now() + 1001)
    expect(claimDue(store, 'next', 1000, 10).map((d) => d.id)).toEqual([late.id])
    // The process is gone: at start the next sandbox takes its lease back; one alive keeps its own.
    store.statement(
      'UPDATE webhook_deliveries SET lease_owner = ? WHERE seq = ?',
      'run',
      `${process.pid}@${os.hostname()}:x`,
      late.seq,
    )
    releaseDeadLeases(store, os.hostname(), (pid) => pid !== gone)
    expect(claimDue(store, 'next', 1000, 10).map((d) => d.id)).toEqual([dead.id])
  })
})

describe('an attempt’s outcome', () => {
  it('pending after the backoff, failed once three are spent, delivered on a 2xx; only the lease’s holder records', () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const store = openStore()
    const link = linkWithEndpoints(store)
    const attempt = (status: number | null) => ({
      time: new Date().toISOString(),
      status,
      error: status ? null : 'refused',
    })
    let [delivery] = notify(store, link, { owner: 'me', leaseMs: 5000, take: () => {} })
    expect(recordAttempt(store, delivery, 'someone else', attempt(500), [1000, 2000])).toBeUndefined()
    const now = Date.now()
    expect(recordAttempt(store, delivery, 'me', attempt(500), [1000, 2000])).toEqual({
      state: 'pending',
      due: now + 1000,
    })
    expect(claimDue(store, 'me', 5000, 1)).toEqual([])
    vi.setSystemTime(now + 1000)
    ;[delivery] = claimDue(store, 'me', 5000, 1)
    expect(recordAttempt(store, delivery, 'me', attempt(null), [1000, 2000])).toEqual({
      state: 'pending',
      due: now + 3000,
    })
    vi.setSystemTime(now + 3000)
    ;[delivery] = claimDue(store, 'me', 5000, 1)
    expect(recordAttempt(store, delivery, 'me', attempt(302), [1000, 2000])).toEqual({
      state: 'failed',
      due: null,
    })
    vi.setSystemTime(now + 60_000)
    expect(claimDue(store, 'me', 5000, 1)).toEqual([])
    expect(listDeliveries(store, business.keyHash, 10)[0].attempts.map((a) => a.status)).toEqual([
      500,
      null,
      302,
    ])

    const [other] = notify(store, link, { owner: 'me', leaseMs: 5000, take: () => {} })
    expect(recordAttempt(store, other, 'me', attempt(299), [1000, 2000])).toEqual({
      state: 'delivered',
      due: null,
    })
    vi.setSystemTime(Date.now() + 3_600_000)
    expect(claimDue(store, 'me', 5000, 10)).toEqual([])
  })
})

describe('what stays', () => {
  it('a reset empties the outbox; signature keys and endpoints stay, and a snapshot restored keeps them', () => {
    const dir = tempDir('pay-outbox-')
    const store = openStore(dir)
    const key = signatureKeyOf(store, business.keyHash)
    saveSnapshot(dir, 'before')
    const link = linkWithEndpoints(store)
    notify(store, link)
    expect(listDeliveries(store, business.keyHash, 10)).toHaveLength(1)
    restoreSnapshot(dir, 'before')
    expect(listDeliveries(store, business.keyHash, 10)).toEqual([])
    expect(store.statement('SELECT count(*) AS n FROM webhook_endpoints', 'get')).toMatchObject({ n: 1 })
    notify(store, linkWithEndpoints(store, 0))
    store.empty()
    expect(listDeliveries(store, business.keyHash, 10)).toEqual([])
    expect(signatureKeyOf(store, business.keyHash)).toBe(key)
    expect(store.statement('SELECT count(*) AS n FROM webhook_endpoints', 'get')).toMatchObject({ n: 1 })
  })
})
