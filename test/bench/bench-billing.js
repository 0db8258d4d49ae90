/**
 * 7. Subscriptions that bill: (a) 10,000 Monthly subscriptions advanced one year
 * (120,000 charges, each a payment link) in one `moveClock`, as charges per second, against the
 * store's own insert rate for as many links (store.insert, 10,000 a transaction) in the same run;
 * goal ≥ 0.5×. (b) in-process `pay -p sandbox subs get ID --json` of a subscription with 120 charges
 * against one with none, on the same store; goal ≤ 1.3×.
 *
 * The work of (a) runs in one process through the store module (seed-billing.ts, bundled from
 * source here), rounds alternating with fresh stores; (b) runs the built pay, side by side.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'
import { BENCH, cleanEnv, compare, log, median, ms, NODE, QUICK, ROOT, ratio, tempDir } from './lib.js'

/** The sandbox profile's key (src/sandbox/constants.ts): the business `pay -p sandbox` reads. */
const SANDBOX_KEY = 'sk_sandbox_4f3c9a1b7e2d5f8a0c6b9e1d'
const SUBS = QUICK ? 1_000 : 10_000
const ROUNDS = QUICK ? 1 : 3

async function bundleWorker() {
  const dir = tempDir('billing-worker')
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
  const file = path.join(dir, 'seed-billing.mjs')
  await build({
    entryPoints: [path.join(BENCH, 'seed-billing.ts')],
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

function runJson(argv) {
  const result = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  if (result.status !== 0) throw new Error(`exit ${result.status} from ${argv.join(' ')}`)
  return JSON.parse(result.stdout)
}

const perSecond = (count, elapsedMs) => count / (elapsedMs / 1000)
const rate = (value) => `${Math.round(value).toLocaleString('en')}/s`

export async function benchBilling({ pay }) {
  const worker = await bundleWorker()
  log(`  ${SUBS.toLocaleString('en')} monthly subscriptions advanced one year, ${ROUNDS} rounds …`)
  const rounds = []
  for (let round = 0; round < ROUNDS; round++) {
    const dir = tempDir(`billing-round-${round}`)
    rounds.push(runJson([NODE, worker, 'rates', '--dir', dir, '--subs', String(SUBS), '--key', SANDBOX_KEY]))
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const charges = rounds[0].charges
  if (rounds.some((r) => r.charges !== charges))
    throw new Error('the rounds made different numbers of charges')
  const chargeRates = rounds.map((r) => perSecond(r.charges, r.billing_ms))
  const linkRates = rounds.map((r) => perSecond(r.charges, r.links_ms))
  const chargeRate = median(chargeRates)
  const linkRate = median(linkRates)

  log('  timing in-process `subs get` with 120 charges and with none …')
  const home = tempDir('billing-home')
  const env = cleanEnv({
    PAY_CONFIG_DIR: path.join(home, 'pay-config'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
    XDG_DATA_HOME: path.join(home, 'data'),
    PAY_SANDBOX_PORT: '1',
  })
  const store = tempDir('billing-get')
  const seeded = runJson([NODE, worker, 'get', '--dir', store, '--key', SANDBOX_KEY])
  if (seeded.charges !== 120) throw new Error(`the subscription has ${seeded.charges} charges, not 120`)
  const get = (name, id, count) => ({
    name,
    argv: [
      'env',
      `PAY_SANDBOX_DIR=${store}`,
      `PAY_API_KEY=${SANDBOX_KEY}`,
      NODE,
      pay,
      '-p',
      'sandbox',
      'subs',
      'get',
      id,
      '--json',
    ],
    check: (stdout) =>
      JSON.parse(stdout).payment_links.length === count ? undefined : `not ${count} charges`,
  })
  const times = compare([get('none', seeded.uncharged_id, 0), get('charged', seeded.charged_id, 120)], {
    env,
    warmup: 3,
    runs: 15,
  })
  const none = times.none.median
  const charged = times.charged.median
  const r = chargeRate / linkRate
  const g = charged / none
  return {
    title: '7. Subscriptions that bill (sandbox clock)',
    rows: [
      {
        what: `links inserted by the store, ${charges.toLocaleString('en')} (store.insert, 10,000 a transaction)`,
        value: rate(linkRate),
        ratio: '1.00×',
      },
      {
        what: `charges made by one advance: ${SUBS.toLocaleString('en')} monthly subscriptions, one year`,
        value: rate(chargeRate),
        ratio: `${ratio(r)} the store's inserts`,
        goal: `≥ 0.50×: ${r >= 0.5 ? 'met' : 'not met'}`,
      },
      { what: 'in-process `pay -p sandbox subs get ID --json`, no charge', value: ms(none), ratio: '1.00×' },
      {
        what: 'the same, a subscription with 120 charges',
        value: ms(charged),
        ratio: `${ratio(g)} none`,
        goal: `≤ 1.30×: ${g <= 1.3 ? 'met' : 'not met'}`,
      },
    ],
    notes: [
      `Charges: seed-billing.ts in one process: ${SUBS.toLocaleString('en')} subscriptions to the seeded Monthly ` +
        `package inserted untimed, then \`moveClock({advance: 1y})\` timed (the charges, a payment link each, ` +
        'the schedules moved on, one transaction); then as many links inserted by `store.insert` into a fresh ' +
        `store, 10,000 a transaction, timed; median of ${ROUNDS} rounds. Per round, charges/s: ` +
        `${chargeRates.map(Math.round).join(', ')}; links/s: ${linkRates.map(Math.round).join(', ')}.`,
      'Get: one store holding a Monthly subscription advanced 10 years (120 charges) and one created after ' +
        '(none); `pay -p sandbox subs get ID --json` with no sandbox listening (the sandbox runs in the command), ' +
        'both started through `env`, timed side by side.',
    ],
  }
}
