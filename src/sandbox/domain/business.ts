import { sha256Hex } from '../../shared/crypto.js'
import type { PackageRecord } from './records.js'

/** The business behind an API key, as the store knows it. */
export interface BusinessKey {
  /** sha256 of the API key: the only form in which a key reaches the database. */
  keyHash: string
  businessId: number
}

/** How a key is stored: only its hash ever reaches the store file. */
export const keyHash = (key: string): string => sha256Hex(key)

/** A stable integer business id derived from the key (the same on every start). */
export function businessIdOf(key: string): number {
  return Number.parseInt(keyHash(key).slice(0, 6), 16) || 1
}

interface PackageSeed {
  slug: string
  name: string
  description: string
  amount: number
  frequency: string
  currency: string
}

const PACKAGE_SEEDS: readonly PackageSeed[] = [
  {
    slug: 'starter',
    name: 'Starter',
    description: 'Starter plan, billed yearly',
    amount: 120,
    frequency: 'yearly',
    currency: 'USD',
  },
  {
    slug: 'business',
    name: 'Business',
    description: 'Business plan, billed yearly',
    amount: 1250.5,
    frequency: 'yearly',
    currency: 'USD',
  },
  {
    slug: 'monthly',
    name: 'Monthly',
    description: 'Monthly plan, billed every month',
    amount: 15,
    frequency: 'monthly',
    currency: 'USD',
  },
]

/** Fixed so that seeded packages are identical across restarts and resets. */
const SEEDED_AT = '2025-01-01T00:00:00.000Z'

/** The packages every business starts with; ids derive from business id and slug. */
export function seededPackages(businessId: number): PackageRecord[] {
  return PACKAGE_SEEDS.map((seed) => ({
    _id: sha256Hex(`pay-sandbox-package:${businessId}:${seed.slug}`).slice(0, 24),
    name: seed.name,
    description: seed.description,
    amount: seed.amount,
    frequency: seed.frequency,
    currency: seed.currency,
    date_charge_start: SEEDED_AT.slice(0, 10),
    business_id: businessId,
    status: 'active',
    created_at: SEEDED_AT,
    updated_at: SEEDED_AT,
  }))
}

/**
 * The business behind an API key, as the routes and fixtures act for it: the key's hash (the only
 * form in which a key reaches the store), its id, and its packages.
 */
export interface Business extends BusinessKey {
  packages: readonly PackageRecord[]
}

export function businessOf(key: string): Business {
  const businessId = businessIdOf(key)
  return { keyHash: keyHash(key), businessId, packages: seededPackages(businessId) }
}

/** The seeded packages of the business behind `key`. */
export function listPackages(key: string): PackageRecord[] {
  return seededPackages(businessIdOf(key))
}

/** The slugs of the seeded packages (`starter`, `business`, `monthly`), in seededPackages' order. */
export const PACKAGE_SLUGS: readonly string[] = PACKAGE_SEEDS.map((seed) => seed.slug)
