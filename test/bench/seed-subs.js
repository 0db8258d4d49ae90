/**
 * Prepares one bulk-cancel run (untimed): empties the sandbox store, creates COUNT fresh
 * subscriptions with concurrent POSTs, and writes their ids, one a line, to OUT.
 *
 * PAY_API_KEY=... PAY_BASE_URL=... PAY_SANDBOX_DIR=... \
 *   node test/bench/seed-subs.js --pay bin/run.js --package ID --count 500 --out ids.txt
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    package: { type: 'string' },
    count: { type: 'string', default: '500' },
    out: { type: 'string' },
    pay: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
  },
})

// An ever-growing store would slow the sandbox down run after run, and later commands with it.
const reset = spawnSync(process.execPath, [values.pay, 'sandbox', 'reset', '--json'], {
  stdio: ['ignore', 'ignore', 'inherit'],
})
if (reset.status !== 0) throw new Error(`pay sandbox reset: exit ${reset.status}`)

const count = Number(values.count)
const ids = new Array(count)
let next = 0
async function worker() {
  while (next < count) {
    const index = next++
    const response = await fetch(`${process.env.PAY_BASE_URL}/subscriptions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${process.env.PAY_API_KEY}`,
        accept: 'application/json',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ package_id: values.package, email: `bench${index}@example.com` }),
    })
    const body = await response.json()
    if (!response.ok) throw new Error(`POST /subscriptions: ${response.status} ${JSON.stringify(body)}`)
    ids[index] = body.data._id
  }
}
await Promise.all(Array.from({ length: Number(values.concurrency) }, worker))
fs.writeFileSync(values.out, `${ids.join('\n')}\n`)
