/**
 * 10. The sandbox under load: requests per second of autocannon (keep-alive connections, 16 then
 * 64, DURATION each) creating payment links with `POST /payment-links` against `pay sandbox start`
 * (this build, an empty store each run), side by side with the same load on a 15-line node:http
 * server that answers every request with a fixed JSON body (fixed-server.js); each server first
 * gets WARMUP_S of the same load, untimed (a fresh process compiles its hot code then). The ratio to
 * the fixed server is a figure, no goal: no durable store answers at that rate; the sandbox's goal
 * is against the least a durable create needs (bench-durable.js, section 11). After each sandbox
 * run, every create autocannon saw answered 2xx must be in the store (it is read with libsql once
 * the server has stopped).
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import { BENCH, cleanEnv, log, median, NODE, QUICK, ROOT, ratio, startJsonChild, tempDir } from './lib.js'

export const CONNECTIONS = [16, 64]
export const DURATION_S = QUICK ? 3 : 20
export const WARMUP_S = QUICK ? 1 : 3
const ROUNDS = QUICK ? 1 : 2
const AUTOCANNON = path.join(ROOT, 'node_modules/autocannon/autocannon.js')
const BODY = JSON.stringify({ email: 'load@example.com', currency: 'EUR', amount: '25.50', title: 'Load' })

/** autocannon's JSON report of one run against `url`. */
export function autocannon(url, key, connections, seconds = DURATION_S) {
  const args = [AUTOCANNON, '--json', '--connections', String(connections), '--duration', String(seconds)]
  args.push('--method', 'POST', '--body', BODY)
  for (const header of [
    `authorization=Bearer ${key}`,
    'content-type=application/json',
    'accept=application/json',
  ])
    args.push('--headers', header)
  const result = spawnSync(NODE, [...args, `${url}/payment-links`], { encoding: 'utf8', maxBuffer: 64 << 20 })
  if (result.status !== 0) throw new Error(`autocannon: exit ${result.status}\n${result.stderr}`)
  const report = JSON.parse(result.stdout)
  return {
    perSecond: report.requests.total / report.duration,
    ok: report['2xx'],
    failed: report.non2xx + report.errors + report.timeouts,
  }
}

/** The payment links in the database `file` (read once its server has stopped). */
export function linksIn(file) {
  const Database = createRequire(path.join(ROOT, 'package.json'))('libsql')
  const db = new Database(file)
  try {
    return Number(db.prepare('SELECT count(*) AS n FROM payment_links').get().n)
  } finally {
    db.close()
  }
}

async function runFixed(connections) {
  const server = await startJsonChild([NODE, path.join(BENCH, 'fixed-server.js')], cleanEnv({}))
  try {
    // The fixed server takes any key.
    autocannon(server.info.base_url, 'sk_test_fixed', connections, WARMUP_S)
    return autocannon(server.info.base_url, 'sk_test_fixed', connections)
  } finally {
    await server.stop()
  }
}

/** One run of autocannon (after its warm-up) against a fresh `pay sandbox start`; every create answered 2xx checked in its store. */
export async function runSandbox(pay, connections, round, label = 'load') {
  const home = tempDir(`${label}-${connections}-${round}`)
  const dir = path.join(home, 'sandbox')
  const env = cleanEnv({
    PAY_SANDBOX_DIR: dir,
    PAY_CONFIG_DIR: path.join(home, 'config'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
  })
  const server = await startJsonChild(
    [NODE, pay, 'sandbox', 'start', '--port', '0', '--json', '--quiet'],
    env,
  )
  let run
  let warmup
  try {
    // The sandbox's key: its directory's own, as `sandbox start` with no key serves it.
    const key = server.info.keys[0]
    warmup = autocannon(server.info.base_url, key, connections, WARMUP_S)
    run = autocannon(server.info.base_url, key, connections)
  } finally {
    await server.stop()
  }
  const stored = linksIn(path.join(dir, 'store.db'))
  const answered = warmup.ok + run.ok
  if (stored < answered)
    throw new Error(`${answered} creates were answered 2xx, but the store holds ${stored}`)
  const failed = warmup.failed + run.failed
  if (failed > 0) throw new Error(`${failed} requests of the sandbox run failed`)
  return { ...run, ok: answered, stored }
}

const rate = (value) => `${Math.round(value).toLocaleString('en')} req/s`

export async function benchLoad({ pay }) {
  const rows = []
  const notes = []
  for (const connections of CONNECTIONS) {
    const fixed = []
    const sandbox = []
    for (let round = 0; round < ROUNDS; round++) {
      log(`  ${connections} connections, round ${round + 1} of ${ROUNDS} (${DURATION_S} s each) …`)
      // Each round in the other order, so that a drift of the machine's load favours neither.
      if (round % 2 === 0) {
        fixed.push(await runFixed(connections))
        sandbox.push(await runSandbox(pay, connections, round))
      } else {
        sandbox.push(await runSandbox(pay, connections, round))
        fixed.push(await runFixed(connections))
      }
    }
    const base = median(fixed.map((r) => r.perSecond))
    const ours = median(sandbox.map((r) => r.perSecond))
    rows.push({
      what: `${connections} keep-alive connections: fixed-answer node:http server (fixed-server.js)`,
      value: rate(base),
      ratio: '1.00×',
    })
    rows.push({
      what: `${connections} keep-alive connections: \`pay sandbox start\`, POST /payment-links`,
      value: rate(ours),
      ratio: `${ratio(ours / base)} fixed server`,
      goal: 'figure only (goal: section 11)',
    })
    const answered = sandbox.reduce((sum, r) => sum + r.ok, 0)
    const stored = sandbox.reduce((sum, r) => sum + r.stored, 0)
    notes.push(
      `${connections} connections: ${answered.toLocaleString('en')} creates answered 2xx, ` +
        `${stored.toLocaleString('en')} links in the stores afterwards (none answered is missing). Per-round figures: ` +
        `fixed ${fixed.map((r) => Math.round(r.perSecond)).join(', ')}; sandbox ${sandbox.map((r) => Math.round(r.perSecond)).join(', ')}.`,
    )
  }
  notes.unshift(
    `autocannon (${ROUNDS} rounds of ${DURATION_S} s per server and connection count, after ${WARMUP_S} s ` +
      'untimed, the order swapped ' +
      'every round, medians) POSTs `{"email","currency","amount","title"}` with the sandbox key; the ' +
      "sandbox: `pay sandbox start --port 0 --json --quiet` on an empty store each run; the servers' 2 " +
      'cores shared with autocannon.',
  )
  return { title: '10. The sandbox under load (autocannon)', rows, notes }
}
