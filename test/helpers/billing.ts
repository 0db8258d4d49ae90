import { businessIdOf, keyHash } from '../../src/sandbox/domain/business.js'
import type { PackageRecord, SubscriptionRecord } from '../../src/sandbox/domain/records.js'
import type { SandboxStore } from '../../src/sandbox/store/store.js'
import { KEY_A } from './sandbox.js'

/**
 * Subscriptions with packages of any schedule (the sandbox seeds three; the calendar needs
 * more), written straight into a sandbox store, and the charge dates they must get, computed here
 * independently of the sandbox's SQL.
 */

export const BUSINESS_A = { keyHash: keyHash(KEY_A), businessId: businessIdOf(KEY_A) }

export const FREQUENCIES = ['daily', 'weekly', 'monthly', 'quarterly', 'yearly'] as const

let counter = 0

/** A subscription record as the API makes it (src/sandbox/domain/build.ts), with a package of this schedule. */
export function subscriptionRecord(
  schedule: { frequency: string; date_charge_start: string; amount?: number; name?: string },
  createdAt: string,
  fields: Partial<SubscriptionRecord> = {},
): SubscriptionRecord {
  counter += 1
  const pkg: PackageRecord = {
    _id: `aaaaaaaaaaaaaaaaaaaa${String(counter % 10_000).padStart(4, '0')}`,
    name: schedule.name ?? `Plan ${schedule.frequency}`,
    description: 'A plan of the calendar tests',
    amount: schedule.amount ?? 9.5,
    frequency: schedule.frequency,
    currency: 'EUR',
    date_charge_start: schedule.date_charge_start,
    business_id: BUSINESS_A.businessId,
    status: 'active',
    created_at: '2014-01-01T00:00:00.000Z',
    updated_at: '2014-01-01T00:00:00.000Z',
  }
  return {
    _id: `bbbbbbbbbbbb${String(counter).padStart(12, '0')}`,
    package_id: pkg._id,
    email: `customer${counter}@example.com`,
    status: 'created',
    package: pkg,
    payment_links: [],
    created_at: createdAt,
    updated_at: createdAt,
    ...fields,
  }
}

/** Inserts a subscription of the first business into the store; its record. */
export function subscribe(
  store: SandboxStore,
  schedule: Parameters<typeof subscriptionRecord>[0],
  createdAt: string,
  fields: Partial<SubscriptionRecord> = {},
): SubscriptionRecord {
  const record = subscriptionRecord(schedule, createdAt, fields)
  store.insert('subscriptions', BUSINESS_A, record)
  return record
}

const pad = (n: number) => String(n).padStart(2, '0')

/** The date of charge `n` of a schedule, by plain date arithmetic (the reference for the SQL). */
export function referenceDate(anchor: string, frequency: string, n: number): string {
  const [year, month, day] = anchor.split('-').map(Number)
  const days = { daily: 1, weekly: 7 }[frequency]
  if (days !== undefined)
    return new Date(Date.UTC(year, month - 1, day + n * days)).toISOString().slice(0, 10)
  const months = { monthly: 1, quarterly: 3, yearly: 12 }[frequency]
  if (months === undefined) throw new Error(`no such frequency: ${frequency}`)
  const index = month - 1 + n * months
  const y = year + Math.floor(index / 12)
  const m = index % 12
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
  return `${y}-${pad(m + 1)}-${pad(Math.min(day, last))}`
}

/** The charge dates a subscription created on `createdDay` must have by `untilDay`: after creation, up to it. */
export function referenceDates(
  anchor: string,
  frequency: string,
  createdDay: string,
  untilDay: string,
): string[] {
  const dates: string[] = []
  for (let n = 0; ; n += 1) {
    const date = referenceDate(anchor, frequency, n)
    if (date > untilDay) return dates
    if (date > createdDay) dates.push(date)
  }
}

/** The charges the store holds for a subscription: the dates of their links, oldest first. */
export function chargeDates(store: SandboxStore, subscriptionId: string): string[] {
  const rows = store.statement(
    'SELECT due FROM charges WHERE subscription = ? ORDER BY due',
    'all',
    subscriptionId,
  ) as { due: string }[]
  return rows.map((row) => row.due)
}
