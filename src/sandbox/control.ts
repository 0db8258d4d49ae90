/**
 * What the sandbox does beyond the spec, in one place for every way in: paying a link as the
 * customer (the payment page's POST, `POST /_sandbox/payment-links/{id}/pay`, and `pay sandbox
 * pay` on the local store) and emptying the store (`POST /_sandbox/reset`).
 */
import { sandboxNow } from './billing.js'
import { laterIso, type PaymentLinkRecord } from './records.js'
import { type SandboxStore, StoreCorruptError, StoreVersionError, setAside } from './store.js'

/**
 * Sets `paid` on link `linkId`, whichever business owns it, and moves `updated_at` (sandbox
 * time), in one transaction. A paid link is left as it is (paying twice changes nothing). Returns the link,
 * or undefined when there is none.
 */
export function payLink(store: SandboxStore, linkId: string): PaymentLinkRecord | undefined {
  const now = sandboxNow(store)
  return store.changeLink(linkId, (link) =>
    link.paid ? link : { ...link, paid: true, updated_at: laterIso(link.updated_at, now) },
  )?.after
}

/**
 * Empties an open store (every business's records). A database that turned out corrupt is set
 * aside, never deleted, and an empty one started in its place: returns where it was kept.
 */
export function emptyStore(store: SandboxStore): { keptAs?: string } {
  try {
    store.empty()
    return {}
  } catch (error) {
    if (!(error instanceof StoreCorruptError || error instanceof StoreVersionError)) throw error
    store.close()
    const keptAs = setAside(store.dir)
    store.empty() // opens a new database at the path
    return { keptAs }
  }
}
