/**
 * 3. `pay links list --json --all` over 10,000 links, against the minimal script following the
 * same next_page_url pages: wall time and peak memory (max RSS) of each; `--jsonl` beside it.
 * Then 100,000 links, `--json` against `--jsonl`: the array grows with the list, the stream
 * holds a page.
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
const MANY_LINKS = 100_000
/** The sandbox's default page size: what pay meets there without asking for more. */
const PER_PAGE = 50

/** The fixture server with `links` links, and the env that points pay at it. */
async function listServer(links, name) {
  const server = await startJsonChild(
    [
      NODE,
      path.join(BENCH, 'fixture-server.js'),
      '--key',
      BENCH_KEY,
      '--links',
      String(links),
      '--per-page',
      String(PER_PAGE),
    ],
    cleanEnv({}),
  )
  const home = tempDir(name)
  const env = cleanEnv({
    PAY_API_KEY: BENCH_KEY,
    PAY_BASE_URL: server.info.base_url,
    PAY_CONFIG_DIR: path.join(home, 'pay-config'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
  })
  return { server, env, baseUrl: server.info.base_url }
}

/** Checks of the output: a JSON array of `count` links, or `count` JSON lines. */
const arrayOf = (count) => (stdout) => {
  const items = JSON.parse(stdout)
  return items.length === count ? undefined : `${items.length} links printed, not ${count}`
}
const linesOf = (count) => (stdout) => {
  const lines = stdout.trimEnd().split('\n')
  if (lines.length !== count) return `${lines.length} lines printed, not ${count}`
  return lines.every((line) => line.startsWith('{"_id":')) ? undefined : 'not one link a line'
}

async function requestsOf(baseUrl, command, env) {
  await fetch(`${baseUrl}/__requests`) // forget earlier ones
  verify(command, env)
  return (await fetch(`${baseUrl}/__requests`)).json()
}

export async function benchList({ pay }) {
  const { server, env, baseUrl } = await listServer(LINKS, 'list-home')
  let first
  try {
    const minimal = {
      name: 'minimal',
      argv: [NODE, path.join(BENCH, 'minimal-list.mjs')],
      check: arrayOf(LINKS),
    }
    const payList = {
      name: 'pay',
      argv: [NODE, pay, 'links', 'list', '--json', '--all'],
      check: arrayOf(LINKS),
    }
    const payLines = {
      name: 'jsonl',
      argv: [NODE, pay, 'links', 'list', '--jsonl', '--all'],
      check: linesOf(LINKS),
    }

    // Both clients must make the same requests, or the comparison says nothing.
    const payRequests = await requestsOf(baseUrl, payList, env)
    const minimalRequests = await requestsOf(baseUrl, minimal, env)
    const lineRequests = await requestsOf(baseUrl, payLines, env)
    for (const other of [minimalRequests, lineRequests]) {
      if (JSON.stringify(payRequests) !== JSON.stringify(other)) {
        throw new Error(
          `pay and another client made different requests:\n${payRequests.join('\n')}\n---\n${other.join('\n')}`,
        )
      }
    }

    log('  timing …')
    const results = compare([minimal, payList, payLines], { env, warmup: 2, runs: 10 })
    log('  peak memory …')
    const rss = {
      minimal: peakRss(minimal.argv, env),
      pay: peakRss(payList.argv, env),
      jsonl: peakRss(payLines.argv, env),
    }
    first = { results, rss, requests: payRequests.length }
  } finally {
    await server.stop()
  }

  log(`  ${MANY_LINKS.toLocaleString('en')} links …`)
  const many = await listServer(MANY_LINKS, 'list-many-home')
  let second
  try {
    const json = {
      name: 'json',
      argv: [NODE, pay, 'links', 'list', '--json', '--all'],
      check: arrayOf(MANY_LINKS),
    }
    const jsonl = {
      name: 'jsonl',
      argv: [NODE, pay, 'links', 'list', '--jsonl', '--all'],
      check: linesOf(MANY_LINKS),
    }
    const results = compare([json, jsonl], { env: many.env, warmup: 1, runs: 3 })
    const rss = { json: peakRss(json.argv, many.env, 3), jsonl: peakRss(jsonl.argv, many.env, 3) }
    second = { results, rss }
  } finally {
    await many.server.stop()
  }

  const { results, rss } = first
  const base = results.minimal.median
  return {
    title: `3. \`pay links list --all\`, ${LINKS.toLocaleString('en')} and ${MANY_LINKS.toLocaleString('en')} links`,
    rows: [
      {
        what: `${LINKS.toLocaleString('en')} links: minimal node:http script (minimal-list.mjs): time`,
        value: ms(base),
        ratio: '1.00×',
      },
      {
        what: '`pay links list --json --all`: time',
        value: ms(results.pay.median),
        ratio: `${ratio(results.pay.median / base)} minimal`,
      },
      {
        what: '`pay links list --jsonl --all`: time',
        value: ms(results.jsonl.median),
        ratio: `${ratio(results.jsonl.median / base)} minimal`,
      },
      { what: 'minimal script: peak memory', value: `${rss.minimal.toFixed(0)} MB`, ratio: '1.00×' },
      {
        what: '`pay links list --json --all`: peak memory',
        value: `${rss.pay.toFixed(0)} MB`,
        ratio: `${ratio(rss.pay / rss.minimal)} minimal`,
      },
      {
        what: '`pay links list --jsonl --all`: peak memory',
        value: `${rss.jsonl.toFixed(0)} MB`,
        ratio: `${ratio(rss.jsonl / rss.minimal)} minimal`,
      },
      {
        what: `${MANY_LINKS.toLocaleString('en')} links: \`pay links list --json --all\`: time`,
        value: ms(second.results.json.median),
        ratio: '1.00×',
      },
      {
        what: '`pay links list --jsonl --all`: time',
        value: ms(second.results.jsonl.median),
        ratio: `${ratio(second.results.jsonl.median / second.results.json.median)} --json`,
      },
      {
        what: '`pay links list --json --all`: peak memory',
        value: `${second.rss.json.toFixed(0)} MB`,
        ratio: '1.00×',
      },
      {
        what: '`pay links list --jsonl --all`: peak memory',
        value: `${second.rss.jsonl.toFixed(0)} MB`,
        ratio: `${ratio(second.rss.jsonl / second.rss.json)} --json; ${ratio(second.rss.jsonl / rss.jsonl)} its own at ${LINKS.toLocaleString('en')}`,
      },
    ],
    notes: [
      `Server: test/bench/fixture-server.js with ${LINKS.toLocaleString('en')} links (every field of spec 2.3, docs/spec/), ${PER_PAGE} a page ` +
        `(the sandbox's default) in the sandbox's paginated envelope: the three clients made the same ` +
        `${first.requests} GET requests, following next_page_url, and printed the same links to /dev/null ` +
        '(one JSON array; one JSON line per link for --jsonl).',
      `Peak memory: ${RSS_METHOD}, median of ${RSS_RUNS} runs after one warm-up (${MANY_LINKS.toLocaleString('en')} links: 3 timed runs after one warm-up, and 3 for memory); MB = 2^20 bytes.`,
    ],
  }
}
