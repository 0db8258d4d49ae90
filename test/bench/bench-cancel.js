/**
 * 4. Bulk cancel against the real sandbox: `pay subs cancel --from-file ids.txt --yes --json`
 * of 500 subscriptions in one process, against the minimal concurrent script (minimal-cancel.mjs,
 * 4 in flight like pay) and against a shell loop running `pay subs cancel ID --yes` once per id
 * for the first 50 ids (times 10). Before every run (untimed): store emptied, 500 fresh
 * subscriptions seeded (seed-subs.js).
 */
import path from 'node:path'
import { BENCH, cleanEnv, compare, log, ms, NODE, ratio, startJsonChild, tempDir } from './lib.js'

const COUNT = 500
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
    const ids = path.join(home, 'ids.txt')
    const seed = [
      NODE,
      path.join(BENCH, 'seed-subs.js'),
      '--pay',
      pay,
      '--package',
      packages[0]._id,
      '--count',
      String(COUNT),
      '--out',
      ids,
    ]
    const allCancelled = (stdout) => {
      const results = JSON.parse(stdout)
      const done = results.filter((r) => r.status === 'cancelled').length
      return done === COUNT ? undefined : `${done} of ${results.length} results are "cancelled", not ${COUNT}`
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
    const loop = {
      name: 'loop',
      argv: ['sh', path.join(BENCH, 'cancel-loop.sh'), NODE, pay, ids, String(LOOP_COUNT)],
      prepare: seed,
    }
    log('  timing the bulk cancels …')
    const results = compare([minimal, payBulk], { env, warmup: 1, runs: 6 })
    log(`  timing the shell loop (${LOOP_COUNT} processes a run) …`)
    // The verification run before the timed ones is its warm-up.
    Object.assign(results, compare([loop], { env, warmup: 0, runs: 3 }))

    const base = results.minimal.median
    const loopScaled = results.loop.median * (COUNT / LOOP_COUNT)
    return {
      title: `4. Bulk cancel of ${COUNT} subscriptions (sandbox)`,
      rows: [
        { what: 'minimal concurrent script (minimal-cancel.mjs)', value: ms(base), ratio: '1.00×' },
        {
          what: '`pay subs cancel --from-file ids.txt --yes --json`',
          value: ms(results.pay.median),
          ratio: `${ratio(results.pay.median / base)} minimal`,
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
          'fresh subscriptions (seeded by 16 concurrent POSTs, not timed).',
      ],
    }
  } finally {
    await sandbox.stop()
  }
}
