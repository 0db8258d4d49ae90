import { randomBytes, randomInt } from 'node:crypto'

/** The resources of spec section 2, as stored and as returned in `data` (types, not interfaces,
 * so that they are assignable to Record<string, unknown>). */

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

const processUnique = randomBytes(5)
let idCounter = randomInt(0x1000000)

/** A MongoDB-style ObjectId: 4 bytes of seconds, 5 random bytes per process, a 3-byte counter. */
export function newObjectId(): string {
  const id = Buffer.alloc(12)
  id.writeUInt32BE(Math.floor(Date.now() / 1000) >>> 0, 0)
  processUnique.copy(id, 4)
  idCounter = (idCounter + 1) % 0x1000000
  id.writeUIntBE(idCounter, 9, 3)
  return id.toString('hex')
}

export const newToken = (): string => randomBytes(20).toString('hex')

/** `now` (sandbox time, billing.ts: milliseconds since the epoch) as a record's timestamp. */
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
