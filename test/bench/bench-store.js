/**
 * 6. The sandbox's store as it grows: with 1,000, 10,000 and 100,000 payment links in
 * it, (a) writes per second of 16 concurrent clients creating links against `pay sandbox start`,
 * and (b) an in-process `pay -p sandbox links get ID --json` (the sandbox started inside the
 * command, on that store), also on an empty store (one link: the one fetched). Ratios to the
 * smallest store. Goals: writes/s at 100,000 ≥ 0.7× writes/s at 1,000; the get at 100,000 ≤ 1.3×
 * the empty store.
 *
 * The stores are seeded fast and untimed by seed-store.ts (straight through the store module, no
 * HTTP), bundled from source here. Every write round runs on a fresh copy of the seeded store, so
 * the writes of one round do not grow the store of the next.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { build } from 'esbuild'
import {
  BENCH,
  cleanEnv,
  compare,
  log,
  median,
  ms,
  NODE,
  QUICK,
  ROOT,
  ratio,
  sandboxKeyOf,
  startJsonChild,
  tempDir,
} from './lib.js'

/** The sandbox profile's key (src/sandbox/constants.ts): the business `pay -p sandbox` reads. */
const SIZES = [1_000, 10_000, 100_000]
const CLIENTS = 16
const WRITES = QUICK ? 300 : 2_000
const WARMUP_WRITES = QUICK ? 50 : 200
const ROUNDS = QUICK ? 1 : 5

let seeder

/**
 * seed-store.ts bundled into a runnable .mjs (libsql from pay's node_modules, as the build has it),
 * once a run: the store and snapshot sections both seed with it.
 */
export function bundleSeeder() {
  seeder ??= bundle()
  return seeder
}

async function bundle() {
  const dir = tempDir('seeder')
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
  const file = path.join(dir, 'seed-store.mjs')
  await build({
    entryPoints: [path.join(BENCH, 'seed-store.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['libsql'],
    outfile: file,
    logLevel: 'silent',
  })
  return file
}

export function seed(seeder, dir, count) {
  const started = Date.now()
  // Into the business of the directory's own key, which `-p sandbox` sends and `sandbox start` serves.
  const key = sandboxKeyOf(dir)
  const result = spawnJson([NODE, seeder, '--dir', dir, '--count', String(count), '--key', key])
  if (result.total !== count) throw new Error(`seeded ${result.total} links, not ${count}`)
  log(`  seeded ${count.toLocaleString('en')} links in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return result.middle_id
}

/** Runs a command that prints one JSON line; its JSON. */
function spawnJson(argv) {
  const result = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  if (result.status !== 0) throw new Error(`exit ${result.status} from ${argv.join(' ')}`)
  return JSON.parse(result.stdout)
}

/** Bytes of the store's files (database and WAL). */
function storeBytes(dir) {
  return fs
    .readdirSync(dir)
    .filter((name) => name === 'store.db' || name === 'store.db-wal')
    .reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0)
}

/** POSTs `count` links from CLIENTS concurrent keep-alive clients; resolves with the wall time in ms. */
async function createLinks(baseUrl, key, count, label) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS })
  let next = 0
  const post = (i) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({
        email: `load${i}@example.com`,
        currency: 'EUR',
        amount: '25.50',
        title: `Load ${label} ${i}`,
      })
      const request = http.request(
        `${baseUrl}/payment-links`,
        {
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${key}`,
            accept: 'application/json',
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          response.resume()
          response.on('end', () =>
            response.statusCode === 200 ? resolve() : reject(new Error(`POST: ${response.statusCode}`)),
          )
        },
      )
      request.on('error', reject)
      request.end(body)
    })
  const worker = async () => {
    while (next < count) await post(next++)
  }
  const started = process.hrtime.bigint()
  await Promise.all(Array.from({ length: CLIENTS }, worker))
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6
  agent.destroy()
  return elapsed
}

/** One write round: a fresh copy of `seeded`, a sandbox on it, warm-up writes, then WRITES timed. */
async function writeRound(pay, env, seeded, { log: requestLog = false } = {}) {
  const dir = tempDir(`writes-${Date.now()}-${Math.random().toString(16).slice(2)}`)
  fs.cpSync(seeded, dir, { recursive: true })
  const args = [NODE, pay, 'sandbox', 'start', '--port', '0', '--json', ...(requestLog ? [] : ['--quiet'])]
  const server = await startJsonChild(args, { ...env, PAY_SANDBOX_DIR: dir }, { stderr: 'ignore' })
  try {
    await createLinks(server.info.base_url, server.info.keys[0], WARMUP_WRITES, 'warm-up')
    const elapsed = await createLinks(server.info.base_url, server.info.keys[0], WRITES, 'timed')
    return WRITES / (elapsed / 1000)
  } finally {
    await server.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const perSecond = (value) => `${Math.round(value).toLocaleString('en')} writes/s`
const count = (n) => n.toLocaleString('en')

export async function benchStore({ pay }) {
  const home = tempDir('store-home')
  const env = cleanEnv({
    PAY_CONFIG_DIR: path.join(home, 'pay-config'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
    XDG_DATA_HOME: path.join(home, 'data'),
    // Nothing listens on port 1: the sandbox profile runs its sandbox in the command.
    PAY_SANDBOX_PORT: '1',
  })
  const seeder = await bundleSeeder()
  const stores = {}
  for (const size of [1, ...SIZES]) {
    const dir = tempDir(`store-${size}`)
    stores[size] = { dir, id: seed(seeder, dir, size) }
    stores[size].bytes = storeBytes(dir)
  }

  log('  timing in-process `links get` on each store …')
  const gets = [1, ...SIZES].map((size) => ({
    name: `get-${size}`,
    argv: [
      'env',
      `PAY_SANDBOX_DIR=${stores[size].dir}`,
      NODE,
      pay,
      '-p',
      'sandbox',
      'links',
      'get',
      stores[size].id,
      '--json',
    ],
    check: (stdout) => (JSON.parse(stdout)._id === stores[size].id ? undefined : 'another link came back'),
  }))
  const getTimes = compare(gets, { env, warmup: 3, runs: 15 })

  log(`  timing writes: ${CLIENTS} clients, ${WRITES} links a round, ${ROUNDS} rounds a store …`)
  const rates = Object.fromEntries([...SIZES, 'log'].map((size) => [size, []]))
  for (let round = 0; round < ROUNDS; round++) {
    // Each round in another order, so that a drift of the machine's load biases no store.
    const order = round % 2 ? [...SIZES].reverse() : SIZES
    for (const size of order) rates[size].push(await writeRound(pay, env, stores[size].dir))
    rates.log.push(await writeRound(pay, env, stores[SIZES[0]].dir, { log: true }))
  }
  const rate = Object.fromEntries(Object.entries(rates).map(([size, values]) => [size, median(values)]))

  const smallest = SIZES[0]
  const largest = SIZES[SIZES.length - 1]
  const rows = []
  for (const size of SIZES) {
    const r = rate[size] / rate[smallest]
    rows.push({
      what: `writes/s, ${CLIENTS} clients creating links, ${count(size)} links in the store`,
      value: perSecond(rate[size]),
      ratio: size === smallest ? '1.00×' : `${ratio(r)} ${count(smallest)}`,
      goal: size === largest ? `≥ 0.70× ${count(smallest)}: ${r >= 0.7 ? 'met' : 'not met'}` : '',
    })
  }
  rows.push({
    what: `the same at ${count(smallest)} links, request log on (stderr to /dev/null)`,
    value: perSecond(rate.log),
    ratio: `${ratio(rate.log / rate[smallest])} without the log`,
  })
  const empty = getTimes['get-1'].median
  rows.push({
    what: 'in-process `pay -p sandbox links get ID --json`, empty store (the one link fetched)',
    value: ms(empty),
    ratio: '1.00×',
  })
  for (const size of SIZES) {
    const t = getTimes[`get-${size}`].median
    rows.push({
      what: `the same, ${count(size)} links in the store`,
      value: ms(t),
      ratio: `${ratio(t / empty)} empty${size === smallest ? '' : `; ${ratio(t / getTimes[`get-${smallest}`].median)} ${count(smallest)}`}`,
      goal: size === largest ? `≤ 1.30× empty: ${t / empty <= 1.3 ? 'met' : 'not met'}` : '',
    })
  }
  const mb = (bytes) => `${(bytes / 1024 ** 2).toFixed(1)} MB`
  return {
    title: '6. The sandbox store as it grows (SQLite)',
    rows,
    notes: [
      `Stores seeded untimed by seed-store.ts through the store module (batches of 10,000 inserts a ` +
        `transaction), links of the sandbox key's business as the API makes them; database and WAL: ` +
        SIZES.map((size) => `${mb(stores[size].bytes)} at ${count(size)}`).join(', ') +
        '.',
      `Writes: \`pay sandbox start --port 0 --json --quiet\` (this build) on a fresh copy of the seeded store ` +
        `each round; ${CLIENTS} keep-alive clients in the bench process POST /payment-links ` +
        `(${WARMUP_WRITES} untimed, then ${WRITES} timed), the server's 2 cores shared with them; the ` +
        `median of ${ROUNDS} rounds, the stores in alternating order. Per-round figures: ` +
        [...SIZES, 'log']
          .map(
            (size) => `${size === 'log' ? 'log on' : count(size)}: ${rates[size].map(Math.round).join(', ')}`,
          )
          .join('; ') +
        '.',
      'Get: `pay -p sandbox links get ID --json` with PAY_SANDBOX_DIR on the store and no sandbox ' +
        'listening, so the command opens the database, starts the sandbox in-process and asks it; all ' +
        'four started through `env` (the same exec for each), timed side by side.',
    ],
  }
}
