/**
 * The floor `pay subs cancel --from-file FILE --yes --json` is measured against: per id a GET,
 * then unless already cancelled a PUT {"status":"cancel"}, 4 ids in flight (pay's default);
 * one result per id printed as a JSON array.
 *
 * PAY_API_KEY=... PAY_BASE_URL=http://127.0.0.1:PORT node test/bench/minimal-cancel.mjs ids.txt
 */
import fs from 'node:fs'
import http from 'node:http'

const CONCURRENCY = 4
const agent = new http.Agent({ keepAlive: true })
const headers = {
  accept: 'application/json',
  'content-type': 'application/json',
  authorization: `Bearer ${process.env.PAY_API_KEY}`,
}

function request(method, id, body) {
  const url = `${process.env.PAY_BASE_URL}/subscriptions/${encodeURIComponent(id)}`
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks = []
      res.on('data', (chunk) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

async function cancel(id) {
  const current = await request('GET', id)
  if (current.status === 404) return { id, ok: false, status: 'not_found', error: 'Not found.' }
  if (current.status !== 200) return { id, ok: false, status: 'failed', error: `HTTP ${current.status}` }
  if (JSON.parse(current.body).data.status === 'cancel') {
    return { id, ok: true, status: 'already_cancelled', error: null }
  }
  const updated = await request('PUT', id, { status: 'cancel' })
  if (updated.status !== 200) return { id, ok: false, status: 'failed', error: `HTTP ${updated.status}` }
  return { id, ok: true, status: 'cancelled', error: null }
}

const ids = fs
  .readFileSync(process.argv[2], 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter(Boolean)
const results = new Array(ids.length)
let nextIndex = 0
async function worker() {
  while (nextIndex < ids.length) {
    const index = nextIndex++
    results[index] = await cancel(ids[index])
  }
}
await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, worker))
agent.destroy()
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
if (results.some((r) => !r.ok)) process.exitCode = 7
