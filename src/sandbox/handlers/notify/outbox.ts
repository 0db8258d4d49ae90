/**
 * The outbox of the sandbox's notifications, in the store (store/schema.ts, version 5): each
 * business's signature key and webhook endpoints, and one delivery per notification to an
 * endpoint. A delivery is written in the transaction of the payment attempt it tells of, so that
 * no attempt goes untold and none is told twice; it is then attempted by the process holding
 * its lease (notifier.ts), and every attempt's outcome is written back at once.
 *
 * Exactly-once bookkeeping across processes on one directory: a delivery is claimed with a lease
 * in one write transaction (claimDue), its attempt's outcome recorded only by the lease's holder
 * (recordAttempt). A process killed mid-attempt leaves a lease that runs out (or, on this machine,
 * one whose process is gone: releaseDeadLeases), after which the next sandbox attempts it. An
 * attempt answered 2xx is recorded `delivered` in the same statement that ends the lease: it is
 * never due again.
 */
import { randomBytes } from 'node:crypto'
import { nowIso } from '../../domain/records.js'
import type { SandboxStore } from '../../store/store.js'

/** Attempts a notification gets (the service's: three in all), and again after each resend. */
export const ATTEMPTS = 3

export type DeliveryState = 'pending' | 'delivered' | 'failed'

// The records the API answers are types, not interfaces, so that they are assignable to
// Record<string, unknown> (domain/records.ts does the same).

/** One attempt as the API shows it: when (real time), the HTTP status, or what went wrong. */
export type AttemptRecord = {
  time: string
  status: number | null
  error: string | null
}

/** A delivery as `GET /_sandbox/webhooks/deliveries` answers it. */
export type DeliveryRecord = {
  _id: string
  event: string
  payment_link_id: string
  url: string
  state: DeliveryState
  attempts: AttemptRecord[]
}

/** An endpoint as `/_sandbox/webhooks` answers it. */
export type EndpointRecord = {
  _id: string
  url: string
  events: string[]
  enabled: boolean
}

/** A delivery held by one process for its next attempt. */
export interface Claimed {
  seq: number
  id: string
  url: string
  body: string
  tries: number
  budget: number
}

/**
 * What a fault may do to a notification: deliver it twice (the same body byte for byte), make its
 * first attempt wait, or never send it. The test double's WEBHOOK rules (handlers/double/) say when.
 */
export type DeliveryEffect = { kind: 'duplicate' } | { kind: 'delay'; ms: number } | { kind: 'drop' }

/** The fault a notification gets, and how its rule names it (`duplicate x2`). */
export interface DeliveryFault {
  effect: DeliveryEffect
  label: string
}

/** What a payment attempt's notifications need of the process making them. */
export interface Dispatch {
  /** Who attempts the new deliveries first: they are leased to it as they are written. */
  owner: string
  leaseMs: number
  /** The fault a notification to an endpoint gets, if any (the WEBHOOK rules of a running sandbox's test double). */
  fault?(businessId: number): DeliveryFault | undefined
  /** Given the deliveries leased to `owner`, once the transaction that wrote them committed. */
  take(claimed: Claimed[]): void
  /**
   * Whether new deliveries are leased to `owner` as they are written; when not (it has no room
   * for them now), they are written due and unleased, and its next look at the outbox claims them.
   */
  leasing?(): boolean
}

const BUSINESS = '(SELECT id FROM businesses WHERE key_hash = ?)'
const ENDPOINT = 'seq, id, url, events, enabled, expires_at, created_at, updated_at'
const CLAIMED = 'seq, id, url, body, tries, budget'

/** The statements of the outbox; each finds its rows through an index (test/unit/sandbox/notify/outbox.test.ts). */
export const OUTBOX = {
  signatureKey: 'SELECT key FROM signature_keys WHERE key_hash = ?',
  addSignatureKey:
    'INSERT INTO signature_keys (key_hash, key) VALUES (?, ?) ON CONFLICT (key_hash) DO NOTHING',
  endpoints: `SELECT ${ENDPOINT} FROM webhook_endpoints WHERE key_hash = ? ORDER BY seq`,
  endpointByUrl: `SELECT ${ENDPOINT} FROM webhook_endpoints WHERE key_hash = ? AND url = ?`,
  endpointById: `SELECT ${ENDPOINT} FROM webhook_endpoints WHERE id = ? AND key_hash = ?`,
  addEndpoint:
    'INSERT INTO webhook_endpoints (key_hash, id, url, events, enabled, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  changeEndpoint:
    'UPDATE webhook_endpoints SET events = ?, enabled = ?, expires_at = ?, updated_at = ? WHERE seq = ?',
  /** A webhook event of an integration moved or turned on or off (handlers/account/). */
  moveEndpoint: 'UPDATE webhook_endpoints SET url = ?, enabled = ?, updated_at = ? WHERE seq = ?',
  removeEndpoint: 'DELETE FROM webhook_endpoints WHERE seq = ?',
  forgetExpired: 'DELETE FROM webhook_endpoints WHERE key_hash = ? AND expires_at <= ?',
  /** The business (by its key's hash) of link `id` of business `business_id`, whoever asks. */
  ownerOfLink:
    'SELECT b.key_hash FROM payment_links p JOIN businesses b ON b.id = p.business WHERE p.id = ? AND b.business_id = ?',
  addDelivery: `INSERT INTO webhook_deliveries (business, id, endpoint, url, event, link, body, state, attempts, tries, budget, due, lease_until, lease_owner, created_at)
    VALUES (${BUSINESS}, ?, ?, ?, ?, ?, ?, ?, ?, 0, ${ATTEMPTS}, ?, ?, ?, ?) RETURNING ${CLAIMED}`,
  /** Whether anything is due: read first, so that a poll with nothing to do writes nothing. */
  anyDue:
    "SELECT 1 FROM webhook_deliveries WHERE state = 'pending' AND due <= ? AND (lease_until IS NULL OR lease_until <= ?) LIMIT 1",
  claimDue: `UPDATE webhook_deliveries SET lease_until = ?, lease_owner = ? WHERE seq IN (
    SELECT seq FROM webhook_deliveries WHERE state = 'pending' AND due <= ? AND (lease_until IS NULL OR lease_until <= ?)
    ORDER BY due LIMIT ?) RETURNING ${CLAIMED}`,
  nextDue: "SELECT min(due) AS due FROM webhook_deliveries WHERE state = 'pending'",
  recordAttempt: `UPDATE webhook_deliveries SET attempts = json_insert(attempts, '$[#]', json(?)), tries = tries + 1,
    state = ?, due = ?, lease_until = NULL, lease_owner = NULL WHERE seq = ? AND lease_owner = ?`,
  release:
    'UPDATE webhook_deliveries SET lease_until = NULL, lease_owner = NULL WHERE seq = ? AND lease_owner = ?',
  /** Read once as a sandbox starts: the pending deliveries are read through their index. */
  leaseOwners:
    "SELECT lease_owner FROM webhook_deliveries WHERE state = 'pending' AND lease_owner IS NOT NULL",
  releaseOwner:
    "UPDATE webhook_deliveries SET lease_until = NULL, lease_owner = NULL WHERE state = 'pending' AND lease_owner = ?",
  /** The pending deliveries to an endpoint removed: failed, saying why. */
  abandon: `UPDATE webhook_deliveries SET state = 'failed', due = NULL, attempts = json_insert(attempts, '$[#]', json(?))
    WHERE state = 'pending' AND endpoint = ? AND lease_owner IS NULL`,
  deliveries: `SELECT id, event, link, url, state, attempts FROM webhook_deliveries WHERE business = ${BUSINESS} ORDER BY seq DESC LIMIT ?`,
  deliveryById: `SELECT seq, id, event, link, url, state, attempts, lease_owner FROM webhook_deliveries WHERE id = ? AND business = ${BUSINESS}`,
  resend: `UPDATE webhook_deliveries SET state = 'pending', budget = tries + ${ATTEMPTS}, due = ?, lease_until = ?, lease_owner = ?
    WHERE seq = ? RETURNING ${CLAIMED}`,
} as const

export interface EndpointRow {
  seq: number
  id: string
  url: string
  events: string
  enabled: number
  expires_at: number | null
  created_at: string
  updated_at: string
}

export const get = (store: SandboxStore, sql: string, ...parameters: unknown[]) =>
  store.statement(sql, 'get', ...parameters) as Record<string, unknown> | undefined
const all = (store: SandboxStore, sql: string, ...parameters: unknown[]) =>
  store.statement(sql, 'all', ...parameters) as Record<string, unknown>[]

export const endpointRowOf = (row: Record<string, unknown>): EndpointRow => ({
  seq: Number(row.seq),
  id: String(row.id),
  url: String(row.url),
  events: String(row.events),
  enabled: Number(row.enabled),
  expires_at: row.expires_at === null ? null : Number(row.expires_at),
  created_at: String(row.created_at),
  updated_at: String(row.updated_at),
})

export const claimedOf = (row: Record<string, unknown>): Claimed => ({
  seq: Number(row.seq),
  id: String(row.id),
  url: String(row.url),
  body: String(row.body),
  tries: Number(row.tries),
  budget: Number(row.budget),
})

export const endpointRecord = (row: EndpointRow): EndpointRecord => ({
  _id: row.id,
  url: row.url,
  events: JSON.parse(row.events),
  enabled: row.enabled === 1,
})

/** The signature key of the business of `keyHash`: made (random, 192 bits) the first time it is asked for. */
export function signatureKeyOf(store: SandboxStore, keyHash: string): string {
  const found = get(store, OUTBOX.signatureKey, keyHash)
  if (found) return String(found.key)
  const made = `sig_sandbox_${randomBytes(24).toString('hex')}`
  store.write(() => store.statement(OUTBOX.addSignatureKey, 'run', keyHash, made))
  return String(get(store, OUTBOX.signatureKey, keyHash)?.key)
}

/** The endpoints of a business that are alive at `now` (real time): those of an ended lease are forgotten. */
export function endpointRows(store: SandboxStore, keyHash: string, now = Date.now()): EndpointRow[] {
  const rows = all(store, OUTBOX.endpoints, keyHash).map(endpointRowOf)
  if (rows.some((row) => row.expires_at !== null && row.expires_at <= now)) {
    store.write(() => store.statement(OUTBOX.forgetExpired, 'run', keyHash, now))
    return rows.filter((row) => row.expires_at === null || row.expires_at > now)
  }
  return rows
}

/** The endpoint `id` of the business, if it is alive. */
export function endpointById(store: SandboxStore, keyHash: string, id: string): EndpointRow | undefined {
  const found = get(store, OUTBOX.endpointById, id, keyHash)
  const row = found && endpointRowOf(found)
  return row && (row.expires_at === null || row.expires_at > Date.now()) ? row : undefined
}

/** Up to `limit` deliveries due at `now`, leased to `owner` for `leaseMs`, in one write transaction. */
export function claimDue(store: SandboxStore, owner: string, leaseMs: number, limit: number): Claimed[] {
  const now = Date.now()
  if (!get(store, OUTBOX.anyDue, now, now)) return []
  return store.write(() => all(store, OUTBOX.claimDue, now + leaseMs, owner, now, now, limit).map(claimedOf))
}

/** When the next pending delivery is due (real time), if any. */
export function nextDue(store: SandboxStore): number | undefined {
  const due = get(store, OUTBOX.nextDue)?.due
  return typeof due === 'number' ? due : undefined
}

/**
 * Records the outcome of an attempt by the holder of its lease: `delivered` for a 2xx, else
 * `failed` once its attempts are spent, else pending again after the backoff; the lease ends.
 * Nothing is recorded by a process whose lease was taken over (undefined).
 */
export function recordAttempt(
  store: SandboxStore,
  claimed: Claimed,
  owner: string,
  attempt: AttemptRecord,
  backoffMs: readonly number[],
): { state: DeliveryState; due: number | null } | undefined {
  const delivered = attempt.status !== null && attempt.status >= 200 && attempt.status < 300
  const made = claimed.tries + 1
  const sinceResend = made - (claimed.budget - ATTEMPTS)
  const state: DeliveryState = delivered ? 'delivered' : made >= claimed.budget ? 'failed' : 'pending'
  const due = state === 'pending' ? Date.now() + backoffMs[Math.min(sinceResend, backoffMs.length) - 1] : null
  const changes = store.write(
    () =>
      (
        store.statement(
          OUTBOX.recordAttempt,
          'run',
          JSON.stringify(attempt),
          state,
          due,
          claimed.seq,
          owner,
        ) as { changes: number }
      ).changes,
  )
  return changes > 0 ? { state, due } : undefined
}

/** Gives a lease back without an attempt recorded: the delivery is due again as it was. */
export function release(store: SandboxStore, claimed: Claimed, owner: string): void {
  store.write(() => store.statement(OUTBOX.release, 'run', claimed.seq, owner))
}

/**
 * Ends the leases held by processes of this machine that are gone (`pid@host:…` owners whose
 * pid no longer runs), so that a sandbox started again after `kill -9` attempts at once what the
 * killed one held; leases of other machines' processes run out on their own.
 */
export function releaseDeadLeases(store: SandboxStore, host: string, alive: (pid: number) => boolean): void {
  for (const owner of new Set(all(store, OUTBOX.leaseOwners).map((row) => String(row.lease_owner)))) {
    const match = /^(\d+)@([^:]*):/.exec(owner)
    if (match && match[2] === host && !alive(Number(match[1]))) {
      store.write(() => store.statement(OUTBOX.releaseOwner, 'run', owner))
    }
  }
}

/** The newest `limit` deliveries of the business, newest last. */
export function listDeliveries(store: SandboxStore, keyHash: string, limit: number): DeliveryRecord[] {
  return all(store, OUTBOX.deliveries, keyHash, limit).reverse().map(deliveryRecord)
}

export const deliveryRecord = (row: Record<string, unknown>): DeliveryRecord => ({
  _id: String(row.id),
  event: String(row.event),
  payment_link_id: String(row.link),
  url: String(row.url),
  state: row.state as DeliveryState,
  attempts: JSON.parse(String(row.attempts)),
})

/** Delivery `id` of the business, if it has it. */
export function deliveryOf(store: SandboxStore, keyHash: string, id: string): DeliveryRecord | undefined {
  const row = get(store, OUTBOX.deliveryById, id, keyHash)
  return row && deliveryRecord(row)
}

/**
 * Delivery `id` of the business made due again with ATTEMPTS more attempts, leased to `how.owner`
 * (who makes the first one), in one transaction: the same body, the same attempt_id. Undefined when
 * the business has no such delivery; `busy` when a process is attempting it now.
 */
export function resendDelivery(
  store: SandboxStore,
  keyHash: string,
  id: string,
  how: Dispatch,
): { claimed: Claimed; delivery: DeliveryRecord } | 'busy' | undefined {
  const result = store.write(() => {
    const row = get(store, OUTBOX.deliveryById, id, keyHash)
    if (!row) return undefined
    if (row.state === 'pending' && row.lease_owner !== null) return 'busy' as const
    const now = Date.now()
    const claimed = claimedOf(
      get(store, OUTBOX.resend, now, now + how.leaseMs, how.owner, row.seq) as Record<string, unknown>,
    )
    store.afterCommit(() => how.take([claimed]))
    return { claimed, delivery: deliveryRecord({ ...row, state: 'pending' }) }
  })
  return result
}

/** Fails the pending deliveries of endpoint `id` that no process is attempting: it was removed. */
export function abandonDeliveries(store: SandboxStore, endpointId: string): void {
  const said = { time: nowIso(), status: null, error: 'not sent: its endpoint was removed' }
  store.statement(OUTBOX.abandon, 'run', JSON.stringify(said), endpointId)
}
