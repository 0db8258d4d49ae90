import { spawn } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import { BIN, cleanEnv } from '../../helpers/cli.js'
import { envelope, type RecordedRequest, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import { FAKE_KEY } from '../../helpers/links.js'

/**
 * --jsonl streams: each page's records are printed before the next page is asked for. The
 * server below holds the second page back until the test has read the first page's lines from
 * pay's stdout; only a pay that prints page by page gets it (the others only from a fallback
 * timer, the hang detector, which fails the test). --json prints nothing while it is held.
 */

const PER_PAGE = 50
const link = (n: number) => ({
  _id: `link${String(n).padStart(20, '0')}`,
  status: 'Active',
  paid: n % 3 === 0,
  amount: n,
  currency: 'EUR',
  email: `customer${n}@example.com`,
  title: `Invoice ${n}`,
})

/** Two pages of links; the second answered once `release` is called. `asked`: once it is asked for. */
async function heldBackServer() {
  let release!: (by: string) => void
  const released = new Promise<string>((resolve) => {
    release = resolve
  })
  let ask!: () => void
  const asked = new Promise<void>((resolve) => {
    ask = resolve
  })
  const server = await startFakeServer(async (request: RecordedRequest, res) => {
    const page = new URL(request.path, 'http://x').searchParams.get('page') ?? '1'
    if (page === '2') ask()
    if (page === '2') await released
    const first = page === '1' ? 0 : PER_PAGE
    const data = Array.from({ length: PER_PAGE }, (_, i) => link(first + i))
    const next = page === '1' ? `${server.baseUrl}/payment-links?page=2` : null
    sendJson(res, 200, envelope({ current_page: Number(page), data, next_page_url: next }))
  })
  return { server, release, released, asked }
}

/** Runs pay; calls `onFirstLine` when the first complete line of stdout arrives. */
function runStreaming(args: string[], baseUrl: string, onFirstLine: (stdout: string) => void) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv({ PAY_API_KEY: FAKE_KEY, PAY_BASE_URL: baseUrl }),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let told = false
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk
    if (!told && stdout.includes('\n')) {
      told = true
      onFirstLine(stdout)
    }
  })
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk
  })
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  )
  return Object.assign(done, { child })
}

describe('--jsonl prints each page as it arrives', () => {
  test('links list --all --jsonl: the first page is out before the second is answered', async () => {
    const { server, release, released } = await heldBackServer()
    try {
      let seenBeforeRelease = ''
      const fallback = setTimeout(() => release('fallback timer'), 15_000)
      const result = await runStreaming(['links', 'list', '--all', '--jsonl'], server.baseUrl, (stdout) => {
        seenBeforeRelease = stdout
        release('reader')
      })
      clearTimeout(fallback)
      expect(await released).toBe('reader')
      expect(JSON.parse(seenBeforeRelease.split('\n')[0])).toEqual(link(0))
      expect(result.code).toBe(0)
      expect(result.stderr).toBe('')
      const lines = result.stdout.trimEnd().split('\n')
      expect(lines).toHaveLength(2 * PER_PAGE)
      expect(lines.map((line) => JSON.parse(line)._id)).toEqual(
        Array.from({ length: 2 * PER_PAGE }, (_, i) => link(i)._id),
      )
      expect(server.requests.map((r) => r.path)).toEqual(['/payment-links', '/payment-links?page=2'])
    } finally {
      await server.close()
    }
  })

  test('with --jq the expression runs on each record, as the pages arrive; filters still apply', async () => {
    const { server, release, released } = await heldBackServer()
    try {
      const fallback = setTimeout(() => release('fallback timer'), 15_000)
      const args = ['links', 'list', '--paid', '--jsonl', '--jq', '"\\(._id) \\(.amount)"']
      const result = await runStreaming(args, server.baseUrl, () => release('reader'))
      clearTimeout(fallback)
      expect(await released).toBe('reader')
      expect(result).toMatchObject({ code: 0, stderr: 'Searched 100 payment links on 2 pages.\n' })
      const paid = Array.from({ length: 2 * PER_PAGE }, (_, i) => link(i)).filter((l) => l.paid)
      expect(result.stdout).toBe(paid.map((l) => `${l._id} ${l.amount}\n`).join(''))
    } finally {
      await server.close()
    }
  })

  test('--json, by contrast, prints nothing until every page is in: killed while the second is held, it printed nothing', async () => {
    const { server, release, asked } = await heldBackServer()
    try {
      const run = runStreaming(['links', 'list', '--all', '--json'], server.baseUrl, () => {})
      // It asked for page 2: page 1 is in its hands. A pipe's write is done before the next
      // request is sent, so what pay printed by then is read before the pipe's end.
      await asked
      run.child.kill('SIGKILL')
      expect(await run).toEqual({ code: null, stdout: '', stderr: '' })
    } finally {
      release('killed')
      await server.close()
    }
  })

  test('--limit stops asking for pages once it is reached', async () => {
    const { server, release } = await heldBackServer()
    try {
      const result = await runStreaming(
        ['links', 'list', '--jsonl', '--limit', '3'],
        server.baseUrl,
        () => {},
      )
      release('done')
      expect(result).toMatchObject({
        code: 0,
        stderr: 'Showing the first 3 payment links: a higher --limit shows more.\n',
      })
      expect(result.stdout.trimEnd().split('\n')).toHaveLength(3)
      expect(server.requests.map((r) => r.path)).toEqual(['/payment-links'])
    } finally {
      await server.close()
    }
  })
})
