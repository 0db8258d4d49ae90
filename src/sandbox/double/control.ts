/**
 * What the sandbox does beyond the spec (docs/spec/), in one place for every way in: paying a link as the
 * customer (the payment page's POST, `POST /_sandbox/payment-links/{id}/pay`, and `pay sandbox
 * pay` on the local store) and emptying the store (`pay sandbox reset` on the local store;
 * `POST /_sandbox/reset` empties the caller's business only).
 */
import { sandboxNow } from '../billing/billing.js'
import { laterIso, type PaymentLinkRecord } from '../service/records.js'
import type { BusinessKey, SandboxStore } from '../store/store.js'

/**
 * Sets `paid` on link `linkId` and moves `updated_at` (sandbox time), in one transaction: a link of `business`
 * when one is given (a request through HTTP acts on its caller's records only), else of whichever
 * business owns it (the public payment page, and the local store). A paid link is left as it is
 * (paying twice changes nothing). Returns the link, or undefined when there is none.
 */
export function payLink(
  store: SandboxStore,
  linkId: string,
  business?: BusinessKey,
): PaymentLinkRecord | undefined {
  const now = sandboxNow(store)
  return store.changeLink(
    linkId,
    (link) => (link.paid ? link : { ...link, paid: true, updated_at: laterIso(link.updated_at, now) }),
    business,
  )?.after
}
