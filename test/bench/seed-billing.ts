/**
 * The billing benchmark's work inside one process (bench-billing.js), straight through the sandbox
 * modules, no HTTP. Bundled from source by the bench, libsql left outside.
 *
 *   node seed-billing.mjs rates --dir DIR --subs 10000 --key KEY
 *     On a fresh store in DIR/billing-N: SUBS Monthly subscriptions of KEY's business (untimed),
 *     then the clock advanced one year, timed (moveClock: the charges, their links, the schedules,
 *     one transaction). On a fresh store in DIR/links-N: as many links as charges were made,
 *     inserted through the store (store.insert, 10,000 a transaction, as seed-store.ts does), timed.
 *     Prints {"charges", "billing_ms", "links_ms"}.
 *   node seed-billing.mjs get --dir DIR --key KEY
 *     A store with a Monthly subscription advanced 10 years (120 charges) and one created after
 *     (none). Prints {"charged_id", "charges", "uncharged_id"}.
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { businessIdOf, keyHash, seededPackages } from '../../src/sandbox/domain/business.js'
import { newObjectId, nowIso, type SubscriptionRecord } from '../../src/sandbox/domain/records.js'
import { moveClock, withCharges } from '../../src/sandbox/handlers/billing/billing.js'
import { sandboxNow } from '../../src/sandbox/store/clock.js'
import { SandboxStore } from '../../src/sandbox/store/store.js'

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { dir: { type: 'string' }, subs: { type: 'string' }, key: { type: 'string' } },
})
const [mode] = positionals
if (!values.dir || !values.key || (mode !== 'rates' && mode !== 'get')) {
  throw new Error('usage: rates --dir DIR --subs N --key KEY | get --dir DIR --key KEY')
}
const key = values.key
const businessId = businessIdOf(key)
const business = { keyHash: keyHash(key), businessId }
const monthly = seededPackages(businessId).find((pkg) => pkg.frequency === 'monthly')!
const BATCH = 10_000
const YEAR = { months: 12, ms: 0 }

/** A subscription as the API makes it, created at `at` (sandbox time). */
function subscription(i: number, at = Date.now()): SubscriptionRecord {
  const now = nowIso(at)
  return {
    _id: newObjectId(),
    package_id: monthly._id,
    email: `customer${i}@example.com`,
    status: 'created',
    package: monthly,
    payment_links: [],
    created_at: now,
    updated_at: now,
  }
}

const elapsed = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6

if (mode === 'rates') {
  const subs = Number(values.subs)
  const billing = new SandboxStore(path.join(values.dir, `billing-${subs}`))
  let charges: number
  let billingMs: number
  try {
    billing.write(() => {
      for (let i = 0; i < subs; i++) billing.insert('subscriptions', business, subscription(i))
    })
    const started = process.hrtime.bigint()
    charges = moveClock(billing, { advance: YEAR }).charges_created
    billingMs = elapsed(started)
  } finally {
    billing.close()
  }
  const links = new SandboxStore(path.join(values.dir, `links-${subs}`))
  let linksMs: number
  try {
    const at = nowIso()
    const started = process.hrtime.bigint()
    for (let done = 0; done < charges; ) {
      const size = Math.min(BATCH, charges - done)
      links.write(() => {
        for (let i = done; i < done + size; i++) {
          const _id = newObjectId()
          // A link as a charge's is: the same fields, the same sizes.
          links.insert('payment_links', business, {
            _id,
            email: `customer${i % subs}@example.com`,
            currency: 'USD',
            amount: 15,
            title: 'Monthly: 2027-01-01 to 2027-01-31',
            reference: '6b0593f616eac2d0753b18c9',
            status: 'Active',
            payment_url: `/checkout/pay?id=${_id}`,
            business_id: businessId,
            paid: false,
            created_at: at,
            updated_at: at,
          })
        }
      })
      done += size
    }
    linksMs = elapsed(started)
  } finally {
    links.close()
  }
  process.stdout.write(`${JSON.stringify({ charges, billing_ms: billingMs, links_ms: linksMs })}\n`)
} else {
  const store = new SandboxStore(values.dir)
  try {
    const charged = subscription(0)
    store.insert('subscriptions', business, charged)
    moveClock(store, { advance: { months: 120, ms: 0 } })
    const uncharged = subscription(1, sandboxNow(store))
    store.insert('subscriptions', business, uncharged)
    const [withLinks] = withCharges(store, business, [charged])
    process.stdout.write(
      `${JSON.stringify({ charged_id: charged._id, charges: withLinks.payment_links.length, uncharged_id: uncharged._id })}\n`,
    )
  } finally {
    store.close()
  }
}
