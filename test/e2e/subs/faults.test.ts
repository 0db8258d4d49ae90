import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { runCli, tempDir } from '../../helpers/cli.js'
import { type Fault, startProxy, type TestProxy, UNAVAILABLE_MESSAGE } from '../../helpers/proxy.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { type BulkJson, parseCsv, seedSubscriptions, serverStatuses, unknownId } from '../../helpers/subs.js'

/**
 * Bulk cancel against a service that fails part-way: a proxy in front of the
 * sandbox answers some GETs and PUTs with 503 or a connection reset, before or after the
 * sandbox acted. Each id must be reported once, with its true state on the server.
 */

let sandbox: TestSandbox
let proxy: TestProxy
const dir = tempDir('pay-subs-faults-')

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(async () => {
  await proxy?.close()
  await sandbox?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** Which faults each group's requests meet: by method, attempt number (0-based) -> fault. */
type Script = { GET?: (attempt: number) => Fault | undefined; PUT?: (attempt: number) => Fault | undefined }

const always = (fault: Fault) => () => fault
const once = (fault: Fault) => (attempt: number) => (attempt === 0 ? fault : undefined)

const GROUPS = {
  healthy: { size: 30, script: {} as Script, status: 'cancelled' },
  getResetOnce: { size: 3, script: { GET: once('reset-before') }, status: 'cancelled' },
  get503Once: { size: 3, script: { GET: once('unavailable-before') }, status: 'cancelled' },
  // The sandbox cancelled it, the answer was lost; the retried PUT finds it cancelled.
  putAnswerResetOnce: { size: 3, script: { PUT: once('reset-after') }, status: 'cancelled' },
  putAnswer503Once: { size: 3, script: { PUT: once('unavailable-after') }, status: 'cancelled' },
  putResetOnce: { size: 3, script: { PUT: once('reset-before') }, status: 'cancelled' },
  getAlways503: { size: 3, script: { GET: always('unavailable-before') }, status: 'failed' },
  putAlways503: { size: 3, script: { PUT: always('unavailable-before') }, status: 'failed' },
  putAlwaysReset: { size: 3, script: { PUT: always('reset-before') }, status: 'failed' },
  // Every PUT reached the sandbox (cancelled there); no answer ever came back.
  putAnswerAlways503: { size: 3, script: { PUT: always('unavailable-after') }, status: 'cancelled' },
} satisfies Record<string, { size: number; script: Script; status: string }>

test('503s and resets part-way: each id once, reported cancelled exactly when the server has it cancelled, exit 7', async () => {
  const groupOf = new Map<string, keyof typeof GROUPS>()
  const names = Object.keys(GROUPS) as (keyof typeof GROUPS)[]
  const total = names.reduce((sum, name) => sum + GROUPS[name].size, 0)
  const seeded = await seedSubscriptions(sandbox, total, { prefix: 'fault' })
  let next = 0
  for (const name of names) for (let i = 0; i < GROUPS[name].size; i += 1) groupOf.set(seeded[next++], name)
  const unknown = [unknownId(1), unknownId(2)]
  // Interleaved, so that faults hit while other ids are in flight.
  const ids = [
    ...seeded.filter((_, i) => i % 2 === 0),
    unknown[0],
    ...seeded.filter((_, i) => i % 2 === 1),
    unknown[1],
  ]

  const attempts = new Map<string, number>()
  proxy = await startProxy(sandbox.baseUrl, ({ method, path: url }) => {
    const id = url.replace('/subscriptions/', '')
    const group = groupOf.get(id)
    const key = `${method} ${id}`
    const attempt = attempts.get(key) ?? 0
    attempts.set(key, attempt + 1)
    const script: Script = group ? GROUPS[group].script : {}
    const fault = (method === 'GET' || method === 'PUT' ? script[method] : undefined)?.(attempt)
    return { delayMs: 5, fault }
  })

  const report = path.join(dir, 'faults.csv')
  const result = await runCli(
    ['subs', 'cancel', ...ids, '--yes', '--json', '--report', report, '--concurrency', '6'],
    { env: { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl }, timeoutMs: 60_000 },
  )
  await proxy.idle()

  const origin = proxy.baseUrl
  const reason: Record<string, string> = {
    getAlways503: UNAVAILABLE_MESSAGE,
    putAlways503: UNAVAILABLE_MESSAGE,
    putAlwaysReset: `Could not reach ${origin}: the connection was reset.`,
  }
  const expected = ids.map((id): BulkJson => {
    const group = groupOf.get(id)
    if (!group) return { id, ok: false, status: 'not_found', error: 'Subscription not found.' }
    const status = GROUPS[group].status
    return status === 'failed'
      ? { id, ok: false, status, error: reason[group] }
      : { id, ok: true, status, error: null }
  })
  const results: BulkJson[] = JSON.parse(result.stdout)
  expect(results).toEqual(expected)
  expect(result.code).toBe(7)

  // Faults really happened, on both sides of the sandbox.
  const injected = (fault: Fault) => proxy.requests.filter((r) => r.fault === fault).length
  expect(injected('unavailable-before')).toBe(3 + 3 * 3 + 3 * 3)
  expect(injected('reset-before')).toBe(3 + 3 + 3 * 3)
  expect(injected('unavailable-after')).toBe(3 + 3 * 3)
  expect(injected('reset-after')).toBe(3)

  // Retried as the design says (2 retries); a PUT that failed is followed by one GET to learn
  // what the server holds.
  const sent = (method: string, id: string) =>
    proxy.requests.filter((r) => r.method === method && r.path === `/subscriptions/${id}`).length
  const requestsOf: Record<keyof typeof GROUPS, [number, number]> = {
    healthy: [1, 1],
    getResetOnce: [2, 1],
    get503Once: [2, 1],
    putAnswerResetOnce: [1, 2],
    putAnswer503Once: [1, 2],
    putResetOnce: [1, 2],
    getAlways503: [3, 0],
    putAlways503: [2, 3],
    putAlwaysReset: [2, 3],
    putAnswerAlways503: [2, 3],
  }
  for (const id of seeded) {
    expect([id, sent('GET', id), sent('PUT', id)]).toEqual([id, ...requestsOf[groupOf.get(id)!]])
  }

  // Reported cancelled <=> cancelled on the server; failed ones untouched.
  const statuses = await serverStatuses(sandbox)
  for (const r of results) {
    if (r.status === 'not_found') expect(statuses.has(r.id)).toBe(false)
    else expect([r.id, statuses.get(r.id)]).toEqual([r.id, r.status === 'cancelled' ? 'cancel' : 'created'])
  }

  const failed = results.filter((r) => r.status === 'failed').length
  expect(failed).toBe(9)
  const cancelled = results.filter((r) => r.status === 'cancelled').length
  expect(cancelled).toBe(total - 9)
  expect(result.stderr).toBe(
    `About to cancel ${ids.length} subscriptions:\n  profile:  (environment)\n  base URL: ${origin}\n` +
      `  ids:      ${ids.slice(0, 20).join(', ')} … and ${ids.length - 20} more\n` +
      `Of ${ids.length} subscriptions: ${cancelled} cancelled, 0 already cancelled, 11 not cancelled (2 not found, 9 failed).\n` +
      `Report written to ${report}\n` +
      `${JSON.stringify({
        error: {
          status: null,
          kind: 'partial',
          exit_code: 7,
          message: `11 of ${ids.length} subscriptions not cancelled (2 not found, 9 failed).`,
        },
      })}\n`,
  )

  // The report agrees, one row per id: failures not counted twice.
  const csv = parseCsv(fs.readFileSync(report, 'utf8'))
  expect(csv.rows.map((row) => row.id).sort()).toEqual([...ids].sort())
  for (const row of csv.rows) {
    const r = expected.find((e) => e.id === row.id)!
    expect([row.id, row.ok, row.status, row.error]).toEqual([r.id, String(r.ok), r.status, r.error ?? ''])
  }
})
