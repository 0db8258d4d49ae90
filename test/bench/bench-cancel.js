/**
 * 4. Bulk cancel against the real sandbox: `pay subs cancel --from-file ids.txt --yes --json`
 * of 500 subscriptions in one process, against the minimal concurrent script (minimal-cancel.mjs:
 * node:http with a keep-alive agent, 4 in flight like pay); the same for 300 subscriptions; and a
 * shell loop running `pay subs cancel ID --yes` once per id for the first 50 ids (times 10).
 * Before every run (untimed): store emptied, fresh subscriptions seeded (seed-subs.js).
 */
import path from 'node:path'
import { BENCH, cleanEnv, compare, log, ms, NODE, ratio, startJsonChild, tempDir } from './lib.js'

const COUNT = 500
const SMALLER = 300
const LOOP_COUNT = 50

export async function benchCancel({ pay }) {
  const home = tempDir('cancel-home')
  const sandboxDir = tempDir('cancel-sandbox')
  const baseEnv = cleanEnv({
    PAY_SANDBOX_DIR: sandboxDir,
    PAY_CONFIG_DIR: path.join(home, 'pay-config'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
  })
  const sandbox = await startJsonChild(
    [NODE, pay, 'sandbox', 'start', '--port', '0', '--json', '--quiet'],
    baseEnv,
  )
  try {
    const { base_url: baseUrl, keys, packages } = sandbox.info
    const env = { ...baseEnv, PAY_API_KEY: keys[0], PAY_BASE_URL: baseUrl }
    /** The minimal script and pay, each cancelling `count` fresh subscriptions. */
    const bulk = (count) => {
      const ids = path.join(home, `ids-${count}.txt`)
      const seed = [NODE, path.join(BENCH, 'seed-subs.js'), '--pay', pay, '--package', packages[0]._id]
      seed.push('--count', String(count), '--out', ids)
      const allCancelled = (stdout) => {
        const results = JSON.parse(stdout)
        const done = results.filter((r) => r.status === 'cancelled').length
        return done === count
          ? undefined
          : `${done} of ${results.length} results are "cancelled", not ${count}`
      }
      const minimal = {
        name: 'minimal',
        argv: [NODE, path.join(BENCH, 'minimal-cancel.mjs'), ids],
        prepare: seed,
        check: allCancelled,
      }
      const payBulk = {
        name: 'pay',
        argv: [NODE, pay, 'subs', 'cancel', '--from-file', ids, '--yes', '--json'],
        prepare: seed,
        check: allCancelled,
      }
      return { ids, seed, commands: [minimal, payBulk] }
    }
    const full = bulk(COUNT)
    const smaller = bulk(SMALLER)
    const loop = {
      name: 'loop',
      argv: ['sh', path.join(BENCH, 'cancel-loop.sh'), NODE, pay, full.ids, String(LOOP_COUNT)],
      prepare: full.seed,
    }
    log('  timing the bulk cancels …')
    const results = compare(full.commands, { env, warmup: 1, runs: 6 })
    const smallerResults = compare(smaller.commands, { env, warmup: 1, runs: 6 })
    log(`  timing the shell loop (${LOOP_COUNT} processes a run) …`)
    // The verification run before the timed ones is its warm-up.
    Object.assign(results, compare([loop], { env, warmup: 0, runs: 3 }))

    const base = results.minimal.median
    const loopScaled = results.loop.median * (COUNT / LOOP_COUNT)
    const goal = (value) => `≤ 1.30× minimal: ${value <= 1.3 ? 'met' : 'not met'}`
    const smallerBase = smallerResults.minimal.median
    return {
      title: `4. Bulk cancel of ${COUNT} and ${SMALLER} subscriptions (sandbox)`,
      rows: [
        { what: 'minimal concurrent script (minimal-cancel.mjs)', value: ms(base), ratio: '1.00×' },
        {
          what: '`pay subs cancel --from-file ids.txt --yes --json`',
          value: ms(results.pay.median),
          ratio: `${ratio(results.pay.median / base)} minimal`,
          goal: goal(results.pay.median / base),
        },
        {
          what: `${SMALLER} ids: the minimal script (keep-alive node:http, 4 at a time)`,
          value: ms(smallerBase),
          ratio: '1.00×',
        },
        {
          what: `${SMALLER} ids: \`pay subs cancel --from-file ids.txt --yes --json\``,
          value: ms(smallerResults.pay.median),
          ratio: `${ratio(smallerResults.pay.median / smallerBase)} minimal`,
          goal: goal(smallerResults.pay.median / smallerBase),
        },
        {
          what: `shell loop, \`pay subs cancel ID --yes\` per id (${LOOP_COUNT} ids, ×${COUNT / LOOP_COUNT})`,
          value: ms(loopScaled),
          ratio: `${ratio(loopScaled / base)} minimal; ${ratio(loopScaled / results.pay.median)} pay bulk`,
        },
      ],
      notes: [
        `Sandbox: \`pay sandbox start --port 0 --json --quiet\` (this build), own PAY_SANDBOX_DIR, its ` +
          'SQLite store (each change one transaction), the same for every client. Per id: GET, then ' +
          'PUT {"status":"cancel"}; 4 in ' +
          `flight for pay and the minimal script. Every run starts on an emptied store with ${COUNT} ` +
          `(or ${SMALLER}) fresh subscriptions (seeded by 16 concurrent POSTs, not timed).`,
      ],
    }
  } finally {
    await sandbox.stop()
  }
}
