import { payLink } from './control.js'
import { setAside } from './database.js'
import type { PaymentLinkRecord } from './records.js'
import { SandboxStore } from './store.js'
import { StoreCorruptError, StoreVersionError } from './store-errors.js'

/** The sandbox's store in a directory, acted on with no server: what `pay sandbox reset` and tests do. */

/**
 * Empties the store in `dir`. A store that cannot be opened (corrupt, or from a newer pay) is set
 * aside first, never deleted: returns where it was kept.
 */
export function resetSandbox(dir: string): { keptAs?: string } {
  let store: SandboxStore
  let keptAs: string | undefined
  try {
    store = new SandboxStore(dir)
  } catch (error) {
    if (!(error instanceof StoreCorruptError || error instanceof StoreVersionError)) throw error
    keptAs = setAside(dir)
    store = new SandboxStore(dir)
  }
  try {
    store.empty()
  } finally {
    store.close()
  }
  return { keptAs }
}

/**
 * Simulates the customer paying link `linkId`, whichever business owns it. Returns the updated
 * record, or undefined when no business has that link. Paying a paid link changes nothing.
 */
export function markLinkPaid(dir: string, linkId: string): PaymentLinkRecord | undefined {
  const store = new SandboxStore(dir)
  try {
    return payLink(store, linkId)
  } finally {
    store.close()
  }
}
