/**
 * 11. The sandbox against the limit of a durable create: requests per second of autocannon
 * (keep-alive connections, 16 then 64) creating payment links with `POST /payment-links` against
 * `pay sandbox start` (this build, an empty store each run), side by side with the same load on
 * durable-server.js: the least a create that survives kill -9 needs on the same store engine
 * (the JSON body parsed, one row inserted by a prepared statement into libsql in WAL mode with
 * synchronous = NORMAL, the inserts of one turn of the event loop committed together, each
 * answered after its commit). ROUNDS rounds, the order of the two servers swapped every round,
 * the median of the per-round ratios. Goal: the sandbox at ≥ 0.8× the durable server at both.
 * After every run, each create answered 2xx must be in that server's database.
 */
import path from 'node:path'
import { autocannon, CONNECTIONS, DURATION_S, linksIn, runSandbox, WARMUP_S } from './bench-load.js'
import { BENCH, cleanEnv, log, median, NODE, QUICK, ratio, startJsonChild, tempDir } from './lib.js'

const ROUNDS = QUICK ? 1 : 3
const GOAL = 0.8

async function runDurable(connections, round) {
  const dir = tempDir(`durable-${connections}-${round}`)
  const server = await startJsonChild([NODE, path.join(BENCH, 'durable-server.js'), dir], cleanEnv({}))
  let run
  let warmup
  try {
    // The durable server takes any key.
    warmup = autocannon(server.info.base_url, 'sk_test_durable', connections, WARMUP_S)
    run = autocannon(server.info.base_url, 'sk_test_durable', connections)
  } finally {
    await server.stop()
  }
  const stored = linksIn(server.info.database)
  const answered = warmup.ok + run.ok
  if (stored < answered)
    throw new Error(
      `${answered} creates were answered 2xx, but the durable server's database holds ${stored}`,
    )
  const failed = warmup.failed + run.failed
  if (failed > 0) throw new Error(`${failed} requests of the durable server's run failed`)
  return { ...run, ok: answered, stored }
}

const rate = (value) => `${Math.round(value).toLocaleString('en')} req/s`
const count = (value) => value.toLocaleString('en')

export async function benchDurable({ pay }) {
  const rows = []
  const notes = []
  for (const connections of CONNECTIONS) {
    const durable = []
    const sandbox = []
    for (let round = 0; round < ROUNDS; round++) {
      log(`  ${connections} connections, round ${round + 1} of ${ROUNDS} (${DURATION_S} s each) …`)
      // Each round in the other order, so that a drift of the machine's load favours neither.
      if (round % 2 === 0) {
        durable.push(await runDurable(connections, round))
        sandbox.push(await runSandbox(pay, connections, round, 'durable-sandbox'))
      } else {
        sandbox.push(await runSandbox(pay, connections, round, 'durable-sandbox'))
        durable.push(await runDurable(connections, round))
      }
    }
    const ratios = sandbox.map((r, i) => r.perSecond / durable[i].perSecond)
    const ours = median(ratios)
    rows.push({
      what: `${connections} keep-alive connections: minimal durable create server (durable-server.js)`,
      value: rate(median(durable.map((r) => r.perSecond))),
      ratio: '1.00×',
    })
    rows.push({
      what: `${connections} keep-alive connections: \`pay sandbox start\`, POST /payment-links`,
      value: rate(median(sandbox.map((r) => r.perSecond))),
      ratio: `${ratio(ours)} durable server (median of ${ROUNDS} rounds' ratios)`,
      goal: `≥ ${GOAL}× durable server: ${ours >= GOAL ? 'met' : 'not met'}`,
    })
    const sum = (runs, field) => runs.reduce((total, r) => total + r[field], 0)
    notes.push(
      `${connections} connections: durable server ${count(sum(durable, 'ok'))} creates answered 2xx, ` +
        `${count(sum(durable, 'stored'))} rows afterwards; sandbox ${count(sum(sandbox, 'ok'))} answered, ` +
        `${count(sum(sandbox, 'stored'))} links afterwards (none answered is missing). Per round: durable ` +
        `${durable.map((r) => Math.round(r.perSecond)).join(', ')}; sandbox ` +
        `${sandbox.map((r) => Math.round(r.perSecond)).join(', ')}; ratios ${ratios.map(ratio).join(', ')}.`,
    )
  }
  notes.unshift(
    `autocannon (${ROUNDS} rounds of ${DURATION_S} s per server and connection count, after ${WARMUP_S} s ` +
      "untimed, the order swapped every round, the median of the rounds' ratios) POSTs the body of " +
      'section 10 to durable-server.js (JSON parsed, one prepared INSERT into libsql, WAL, synchronous = ' +
      'NORMAL, one commit per turn of the event loop, each answered after it) and to `pay sandbox start ' +
      "--port 0 --json --quiet`, each on an empty database; the servers' 2 cores shared with autocannon.",
  )
  return { title: '11. The sandbox against a minimal durable create server (autocannon)', rows, notes }
}
