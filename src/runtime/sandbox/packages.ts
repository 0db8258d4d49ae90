import type { View } from '../../render/views.js'
import { listPackages } from '../../sandbox/index.js'
import type { Rec } from '../../values.js'

/**
 * The packages the sandbox seeds for the business of each key (they derive from the key, the same
 * on every start and after a reset), without starting it.
 */
export function sandboxPackages(keys: string[]): Rec[] {
  return keys.flatMap((key) => listPackages(key).map((pkg) => ({ ...pkg }) as Rec))
}

/** The packages of the sandbox (`pay sandbox packages`). */
export const PACKAGE_VIEW: View = {
  noun: 'package',
  plural: 'packages',
  listColumns: ['_id', 'name', 'amount', 'frequency', 'business_id'],
  recordFields: [
    '_id',
    'name',
    'description',
    'amount',
    'frequency',
    'date_charge_start',
    'status',
    'business_id',
  ],
  dropOrder: ['business_id'],
}
