/**
 * Fills a sandbox store with payment links fast, for the store benchmark (bench-store.js): straight
 * through the store module (src/sandbox/store/store.ts), batches of 10,000 inserts a transaction, no
 * HTTP. The records are those the API makes (docs/spec/payment-service-api.md 2.3, as service/build.ts builds
 * them), of the business of `--key`. Bundled from source by the bench, libsql left outside.
 *
 *   node seed-store.mjs --dir DIR --count 100000 --key KEY
 *
 * Prints one JSON line: {"count", "total", "middle_id"} (middle_id: a link half-way through, the
 * one the bench gets).
 */
import { parseArgs } from 'node:util'
import { businessIdOf, keyHash } from '../../src/sandbox/domain/business.js'
import { newObjectId } from '../../src/sandbox/domain/records.js'
import { SandboxStore } from '../../src/sandbox/store/store.js'

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    count: { type: 'string' },
    key: { type: 'string' },
  },
})
if (!values.dir || !values.count || !values.key) throw new Error('usage: --dir DIR --count N --key KEY')

const BATCH = 10_000
const count = Number(values.count)
const businessId = businessIdOf(values.key)
const business = { keyHash: keyHash(values.key), businessId }
const store = new SandboxStore(values.dir)
const started = Date.parse('2026-01-01T00:00:00.000Z')
let middleId = ''
try {
  for (let done = 0; done < count; ) {
    const size = Math.min(BATCH, count - done)
    store.write(() => {
      for (let i = done; i < done + size; i++) {
        const _id = newObjectId()
        if (i === Math.floor(count / 2)) middleId = _id
        const at = new Date(started + i * 1000).toISOString()
        store.insert('payment_links', business, {
          _id,
          email: `customer${i}@example.com`,
          currency: ['EUR', 'USD', 'NGN'][i % 3],
          amount: Number(`${10 + (i % 990)}.50`),
          title: `Invoice ${100000 + i} for consulting services`,
          description: 'Monthly retainer',
          reference: `ORDER-${i}`,
          status: 'Active',
          payment_url: `http://127.0.0.1:4010/checkout/pay?id=${_id}`,
          business_id: businessId,
          paid: i % 4 === 0,
          created_at: at,
          updated_at: at,
        })
      }
    })
    done += size
  }
  const total = store.list('payment_links', business, 0, 1).total
  process.stdout.write(`${JSON.stringify({ count, total, middle_id: middleId })}\n`)
} finally {
  store.close()
}
