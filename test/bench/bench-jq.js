/**
 * 5. --jq: what loading jq (jq-wasm, only with the flag) adds to `pay links get ID`, and jq over
 * the 10,000 links of `pay links list --all`; `pay api` beside `links get` for the same request.
 */
import path from 'node:path'
import { BENCH, BENCH_KEY, cleanEnv, compare, log, ms, NODE, ratio, startJsonChild, tempDir } from './lib.js'

const LINKS = 10_000

export async function benchJq({ pay }) {
  const server = await startJsonChild(
    [NODE, path.join(BENCH, 'fixture-server.js'), '--key', BENCH_KEY, '--links', String(LINKS)],
    cleanEnv({}),
  )
  try {
    const { base_url: baseUrl, link_id: id } = server.info
    const home = tempDir('jq-home')
    const env = cleanEnv({
      PAY_API_KEY: BENCH_KEY,
      PAY_BASE_URL: baseUrl,
      PAY_CONFIG_DIR: path.join(home, 'pay-config'),
      XDG_CACHE_HOME: path.join(home, 'cache'),
    })
    const isId = (stdout) => (stdout === `${id}\n` ? undefined : `printed ${stdout.slice(0, 80)}`)
    const get = compare(
      [
        {
          name: 'json',
          argv: [NODE, pay, 'links', 'get', id, '--json'],
          check: (stdout) => (JSON.parse(stdout)._id === id ? undefined : 'not the link'),
        },
        { name: 'jq', argv: [NODE, pay, 'links', 'get', id, '--jq', '._id'], check: isId },
        { name: 'api', argv: [NODE, pay, 'api', `/payment-links/${id}`, '--jq', '.data._id'], check: isId },
      ],
      { env, warmup: 3, runs: 15 },
    )
    log('  jq over a long list …')
    const list = compare(
      [
        {
          name: 'json',
          argv: [NODE, pay, 'links', 'list', '--all', '--json'],
          check: (stdout) => (JSON.parse(stdout).length === LINKS ? undefined : 'not every link'),
        },
        {
          name: 'jq',
          argv: [NODE, pay, 'links', 'list', '--all', '--jq', '.[]._id'],
          check: (stdout) => (stdout.split('\n').length === LINKS + 1 ? undefined : 'not an id per link'),
        },
      ],
      { env, warmup: 1, runs: 5 },
    )
    const base = get.json.median
    return {
      title: '5. `--jq`',
      rows: [
        { what: '`pay links get ID --json`', value: ms(base), ratio: '1.00×' },
        {
          what: "`pay links get ID --jq '._id'`",
          value: ms(get.jq.median),
          ratio: `${ratio(get.jq.median / base)} --json (+${ms(get.jq.median - base)})`,
        },
        {
          what: "`pay api /payment-links/ID --jq '.data._id'`",
          value: ms(get.api.median),
          ratio: `${ratio(get.api.median / base)} --json (+${ms(get.api.median - base)})`,
        },
        {
          what: `\`pay links list --all --json\`, ${LINKS.toLocaleString('en')} links`,
          value: ms(list.json.median),
          ratio: '1.00×',
        },
        {
          what: "`pay links list --all --jq '.[]._id'`",
          value: ms(list.jq.median),
          ratio: `${ratio(list.jq.median / list.json.median)} --json (+${ms(list.jq.median - list.json.median)})`,
        },
      ],
      notes: [
        'jq is jq 1.7.1 from jq-wasm 1.0.1 (1.3 MB of JavaScript holding the WebAssembly binary), read and ' +
          'compiled only when --jq is given; the difference to --json is that cost (read, compile, instantiate, ' +
          'check the expression) plus running the expression. Server: test/bench/fixture-server.js.',
      ],
    }
  } finally {
    await server.stop()
  }
}
