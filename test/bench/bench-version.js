/** 2. `pay --version` against `node -e 0`: what pay's start-up costs beyond node's own. */
import path from 'node:path'
import { cleanEnv, compare, ms, NODE, ratio, tempDir } from './lib.js'

export async function benchVersion({ pay }) {
  const home = tempDir('version-home')
  const env = cleanEnv({
    PAY_CONFIG_DIR: path.join(home, 'pay-config'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
  })
  const results = compare(
    [
      { name: 'node', argv: [NODE, '-e', '0'] },
      {
        name: 'pay',
        argv: [NODE, pay, '--version'],
        check: (stdout) => (/^pay-cli\//.test(stdout) ? undefined : 'not a version line'),
      },
    ],
    { env, warmup: 3, runs: 20 },
  )
  const base = results.node.median
  const payRatio = results.pay.median / base
  return {
    title: '2. `pay --version`',
    rows: [
      { what: '`node -e 0`', value: ms(base), ratio: '1.00×' },
      {
        what: '`pay --version`',
        value: ms(results.pay.median),
        ratio: `${ratio(payRatio)} node (+${ms(results.pay.median - base)})`,
      },
    ],
    notes: [],
  }
}
