/**
 * 3. `pay links list --json --all` over 10,000 links, against the minimal script following the
 * same next_page_url pages: wall time and peak memory (max RSS) of each.
 */
import path from 'node:path'
import {
  BENCH,
  BENCH_KEY,
  cleanEnv,
  compare,
  log,
  ms,
  NODE,
  peakRss,
  RSS_METHOD,
  RSS_RUNS,
  ratio,
  startJsonChild,
  tempDir,
  verify,
} from './lib.js'

const LINKS = 10_000
/** The sandbox's default page size: what pay meets there without asking for more. */
const PER_PAGE = 50

async function requestsOf(baseUrl, command, env) {
  await fetch(`${baseUrl}/__requests`) // forget earlier ones
  verify(command, env)
  return (await fetch(`${baseUrl}/__requests`)).json()
}

export async function benchList({ pay }) {
  const server = await startJsonChild(
    [
      NODE,
      path.join(BENCH, 'fixture-server.js'),
      '--key',
      BENCH_KEY,
      '--links',
      String(LINKS),
      '--per-page',
      String(PER_PAGE),
    ],
    cleanEnv({}),
  )
  try {
    const baseUrl = server.info.base_url
    const home = tempDir('list-home')
    const env = cleanEnv({
      PAY_API_KEY: BENCH_KEY,
      PAY_BASE_URL: baseUrl,
      PAY_CONFIG_DIR: path.join(home, 'pay-config'),
      XDG_CACHE_HOME: path.join(home, 'cache'),
    })
    const check = (stdout) => {
      const items = JSON.parse(stdout)
      return items.length === LINKS ? undefined : `${items.length} links printed, not ${LINKS}`
    }
    const minimal = { name: 'minimal', argv: [NODE, path.join(BENCH, 'minimal-list.mjs')], check }
    const payList = { name: 'pay', argv: [NODE, pay, 'links', 'list', '--json', '--all'], check }

    // Both clients must make the same requests, or the comparison says nothing.
    const payRequests = await requestsOf(baseUrl, payList, env)
    const minimalRequests = await requestsOf(baseUrl, minimal, env)
    if (JSON.stringify(payRequests) !== JSON.stringify(minimalRequests)) {
      throw new Error(
        `pay and the minimal script made different requests:\n${payRequests.join('\n')}\n---\n${minimalRequests.join('\n')}`,
      )
    }

    log('  timing …')
    const results = compare([minimal, payList], { env, warmup: 2, runs: 10 })
    log('  peak memory …')
    const rss = { minimal: peakRss(minimal.argv, env), pay: peakRss(payList.argv, env) }

    const base = results.minimal.median
    return {
      title: `3. \`pay links list --json --all\`, ${LINKS.toLocaleString('en')} links`,
      rows: [
        {
          what: 'minimal node:http script (minimal-list.mjs): time',
          value: ms(base),
          ratio: '1.00×',
        },
        {
          what: '`pay links list --json --all`: time',
          value: ms(results.pay.median),
          ratio: `${ratio(results.pay.median / base)} minimal`,
        },
        { what: 'minimal script: peak memory', value: `${rss.minimal.toFixed(0)} MB`, ratio: '1.00×' },
        {
          what: '`pay links list --json --all`: peak memory',
          value: `${rss.pay.toFixed(0)} MB`,
          ratio: `${ratio(rss.pay / rss.minimal)} minimal`,
        },
      ],
      notes: [
        `Server: test/bench/fixture-server.js with ${LINKS.toLocaleString('en')} links (every field of spec 2.3), ${PER_PAGE} a page ` +
          `(the sandbox's default) in the sandbox's paginated envelope: both clients made the same ` +
          `${payRequests.length} GET requests, following next_page_url, and printed the same ` +
          'JSON array to /dev/null.',
        `Peak memory: ${RSS_METHOD}, median of ${RSS_RUNS} runs after one warm-up; MB = 2^20 bytes.`,
      ],
    }
  } finally {
    await server.stop()
  }
}
