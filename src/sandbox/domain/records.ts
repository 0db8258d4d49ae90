import { randomFillSync } from 'node:crypto'

/** The resources of docs/spec/payment-service-api.md section 2, as stored and as returned in `data`
 * (types, not interfaces, so that they are assignable to Record<string, unknown>). */

export type TokenizationRecord = {
  _id: string
  email: string
  phone_no?: string
  redirect_url?: string
  title: string
  description: string
  token: string
  activation_url: string
  created_at: string
  updated_at: string
}

export type PaymentLinkRecord = {
  _id: string
  email: string
  phone_no?: string
  currency: string
  amount: number
  title: string
  description?: string
  redirect_url?: string
  reference?: string
  reference_2?: string
  status: string
  payment_url: string
  business_id: number
  paid: boolean
  created_at: string
  updated_at: string
}

export type PackageRecord = {
  _id: string
  name: string
  description: string
  amount: number
  frequency: string
  currency: string
  date_charge_start: string
  business_id: number
  status: string
  created_at: string
  updated_at: string
}

export type SubscriptionRecord = {
  _id: string
  package_id: string
  email: string
  phone_no?: string
  status: string
  package: PackageRecord
  payment_links: PaymentLinkRecord[]
  created_at: string
  updated_at: string
}

/**
 * An `_id`: 24 hex characters like a MongoDB ObjectId, but all 96 bits random. A payment page is
 * public and payable by whoever knows its id, so one customer's id must tell nothing of another's
 * (an ObjectId's time and counter did: a few guesses from one id found others).
 */
export const newObjectId = (): string => randomHex(12)

/** A tokenization's token: 160 random bits (40 hex characters). */
export const newToken = (): string => randomHex(20)

/**
 * Random bytes from the system's generator, drawn a few kilobytes at a time: one call per id cost
 * more than the rest of making a link. Each byte is handed out once.
 */
const pool = Buffer.alloc(4096)
let used = pool.length

function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool)
    used = 0
  }
  used += bytes
  return pool.toString('hex', used - bytes, used)
}

/** `now` (sandbox time, store/clock.ts: milliseconds since the epoch) as a record's timestamp. */
export const nowIso = (now = Date.now()): string => new Date(now).toISOString()

/** A timestamp for a change: now, but always later than `previous` so that a change is visible. */
export function laterIso(previous: string, now = Date.now()): string {
  return new Date(Math.max(now, Date.parse(previous) + 1)).toISOString()
}

/** `meta.timestamp` of the envelope: `YYYY-MM-DD HH:MM:SS UTC`. */
export function envelopeTimestamp(date = new Date()): string {
  const iso = date.toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`
}
