import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startCli } from '../../helpers/child.js'
import { tempDir } from '../../helpers/cli.js'
import { journalEntries, journalIn } from '../../helpers/journal.js'
import { startProxy, type TestProxy } from '../../helpers/proxy.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { type BulkJson, parseCsv, seedSubscriptions, serverStatuses } from '../../helpers/subs.js'

/**
 * A large `pay subs cancel` stopped half-way, against a sandbox behind a proxy that answers
 * every request 40 ms late: Ctrl-C (SIGINT) finishes what is in flight and reports the rest as
 * not done; kill -9 leaves a report whose every row is true.
 */

let sandbox: TestSandbox
let proxy: TestProxy
const dir = tempDir('pay-subs-interrupt-')
const CONCURRENCY = 4

beforeAll(async () => {
  sandbox = await startTestSandbox()
  proxy = await startProxy(sandbox.baseUrl, () => ({ delayMs: 40 }))
})
afterAll(async () => {
  await proxy?.close()
  await sandbox?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until the report file has at least `rows` data rows. */
async function reportRows(file: string, rows: number) {
  const deadline = Date.now() + 20_000
  for (;;) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
    // Less the header and the empty end.
    const lines = text.split('\n').filter((line) => line !== '').length - 1
    if (lines >= rows) return
    if (Date.now() > deadline) throw new Error(`The report ${file} has ${lines} rows, not ${rows}.`)
    await sleep(20)
  }
}

/** Ids the server was asked anything about (through the proxy). */
const touched = (ids: string[]) => {
  const seen = new Set(proxy.requests.map((r) => r.path.replace('/subscriptions/', '')))
  return ids.filter((id) => seen.has(id))
}

const cancelAll = (ids: string[], report: string, journal?: string) =>
  startCli(
    ['subs', 'cancel', '-', '--yes', '--json', '--report', report, '--concurrency', String(CONCURRENCY)],
    {
      env: { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl, ...(journal ? { PAY_JOURNAL_FILE: journal } : {}) },
      input: ids.join('\n'),
    },
  )

test('Ctrl-C half-way: in-flight ones finish, no new request, every id reported once, exit 130', async () => {
  const ids = await seedSubscriptions(sandbox, 300, { prefix: 'sigint' })
  const report = path.join(dir, 'sigint.csv')
  const run = cancelAll(ids, report)
  await reportRows(report, 20)
  run.child.kill('SIGINT')
  const result = await run.done
  await proxy.idle()

  expect(result.code).toBe(130)
  const results: BulkJson[] = JSON.parse(result.stdout)
  expect(results.map((r) => r.id)).toEqual(ids)
  const done = results.filter((r) => r.status === 'cancelled')
  const notDone = results.filter((r) => r.status === 'not_done')
  expect(done.length + notDone.length).toBe(300)
  expect(done.length).toBeGreaterThanOrEqual(20)
  expect(notDone.length).toBeGreaterThan(50)
  for (const r of done) expect(r).toEqual({ id: r.id, ok: true, status: 'cancelled', error: null })
  for (const r of notDone) {
    expect(r).toEqual({
      id: r.id,
      ok: false,
      status: 'not_done',
      error: 'Not attempted: the run stopped before it.',
    })
  }
  // No new request after Ctrl-C: the server was asked about exactly the ids reported done.
  expect(touched(ids)).toEqual(done.map((r) => r.id))

  const statuses = await serverStatuses(sandbox)
  for (const r of done) expect(statuses.get(r.id)).toBe('cancel')
  for (const r of notDone) expect(statuses.get(r.id)).toBe('created')

  const csv = parseCsv(fs.readFileSync(report, 'utf8'))
  expect(csv.header).toEqual(['id', 'ok', 'status', 'error', 'at', 'email', 'package', 'amount', 'currency'])
  // Once the run ended: one row per id, in input order.
  expect(csv.rows.map((row) => row.id)).toEqual(ids)
  const byId = new Map(results.map((r) => [r.id, r]))
  for (const row of csv.rows) {
    const r = byId.get(row.id)!
    expect({ id: row.id, ok: row.ok, status: row.status, error: row.error }).toEqual({
      id: r.id,
      ok: String(r.ok),
      status: r.status,
      error: r.error ?? '',
    })
  }
  // The run ended (interrupted): its meta has the closing mark, so --resume needs no input.
  const meta = JSON.parse(fs.readFileSync(`${report}.meta.json`, 'utf8'))
  expect(meta).toMatchObject({
    command: 'pay subs cancel',
    profile: '(environment)',
    base_url: proxy.baseUrl,
    input: { source: '-', count: 300 },
    outcome: 'interrupted',
    counts: { cancelled: done.length, not_done: notDone.length },
  })

  const n = done.length
  expect(result.stderr).toBe(
    `About to cancel 300 subscriptions:\n  profile:  (environment)\n  base URL: ${proxy.baseUrl}\n` +
      `  ids:      ${ids.slice(0, 20).join(', ')} … and 280 more\n` +
      '\nStopping: no new cancellations; waiting for those in flight (Ctrl-C again to quit now).\n' +
      `Of 300 subscriptions: ${n} cancelled, 0 already cancelled, ${300 - n} not cancelled (${300 - n} not done).\n` +
      `Report written to ${report}\n` +
      `${JSON.stringify({
        error: {
          status: null,
          kind: 'cancelled',
          exit_code: 130,
          message: `Interrupted: ${n} of 300 subscriptions were processed; the rest were not touched.`,
        },
      })}\n`,
  )
})

test('kill -9 half-way: every row of the report is whole and true on the server', async () => {
  const ids = await seedSubscriptions(sandbox, 300, { prefix: 'sigkill' })
  const report = path.join(dir, 'sigkill.csv')
  const journal = journalIn(dir)
  const run = cancelAll(ids, report, journal)
  await reportRows(report, 20)
  run.child.kill('SIGKILL')
  const result = await run.done
  await proxy.idle()
  expect(result.signal).toBe('SIGKILL')

  const text = fs.readFileSync(report, 'utf8')
  expect(text.endsWith('\n')).toBe(true)
  const csv = parseCsv(text)
  expect(csv.header).toEqual(['id', 'ok', 'status', 'error', 'at', 'email', 'package', 'amount', 'currency'])
  expect(csv.rows.length).toBeGreaterThanOrEqual(20)
  expect(csv.rows.length).toBeLessThan(300)
  const listed = csv.rows.map((row) => row.id)
  expect(new Set(listed).size).toBe(listed.length)
  const statuses = await serverStatuses(sandbox)
  for (const row of csv.rows) {
    expect(ids).toContain(row.id)
    expect(row).toEqual({
      id: row.id,
      ok: 'true',
      status: 'cancelled',
      error: '',
      at: row.at,
      email: `sigkill${ids.indexOf(row.id)}@example.com`,
      package: 'Starter',
      amount: '120',
      currency: 'USD',
    })
    expect(row.at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
    expect(statuses.get(row.id)).toBe('cancel')
  }
  // Besides those listed, at most the ones in flight at the kill were cancelled.
  const unlisted = ids.filter((id) => !listed.includes(id) && statuses.get(id) === 'cancel')
  expect(unlisted.length).toBeLessThanOrEqual(CONCURRENCY)
  // The journal (its file open for the whole run) lost nothing either: every cancel the server
  // holds was written down before it was sent, and every one reported done has its outcome.
  const entries = journalEntries(journal).filter((entry) => entry.method === 'PUT')
  const phases = (id: string) =>
    entries.filter((entry) => entry.path === `/subscriptions/${id}`).map((entry) => entry.phase)
  for (const id of ids.filter((id) => statuses.get(id) === 'cancel')) expect(phases(id)[0], id).toBe('intent')
  for (const id of listed) expect(phases(id), id).toEqual(['intent', 'outcome'])

  // The run never ended (no closing mark): resumed without its input, it would stop short of the
  // ids it never reached, so it is refused, saying how far it got; nothing is sent.
  const sentBeforeResume = proxy.requests.length
  const bare = await startCli(['subs', 'cancel', '--resume', report, '--yes'], {
    env: { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl },
  }).done
  expect(bare).toMatchObject({
    code: 2,
    stdout: '',
    stderr:
      `Error: The run in ${report} did not end (it was stopped before it could close its report), and the report names ${csv.rows.length} of its 300 ids; give the ids again on stdin: - --resume ${report}\n` +
      'Without them pay cannot tell which ids that run never reached.\n',
  })
  expect(proxy.requests.length).toBe(sentBeforeResume)

  // Resumed with the same input: what the report records done gets no request; every id ends
  // cancelled, and each one was sent its PUT exactly once over both runs.
  const resumed = await startCli(['subs', 'cancel', '-', '--yes', '--json', '--resume', report], {
    env: { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl, PAY_JOURNAL_FILE: journal },
    input: ids.join('\n'),
  }).done
  expect(resumed.code).toBe(0)
  const again = JSON.parse(resumed.stdout) as BulkJson[]
  expect(again.map((r) => r.id).sort()).toEqual(ids.filter((id) => !listed.includes(id)).sort())
  expect(new Set(again.filter((r) => unlisted.includes(r.id)).map((r) => r.status))).toEqual(
    new Set(unlisted.length > 0 ? ['already_cancelled'] : []),
  )
  expect(resumed.stderr).toContain(`Skipping ${listed.length} subscriptions recorded done in ${report}.\n`)
  const after = await serverStatuses(sandbox)
  expect(ids.map((id) => after.get(id))).toEqual(ids.map(() => 'cancel'))
  const puts = (id: string) =>
    proxy.requests.filter((r) => r.method === 'PUT' && r.path === `/subscriptions/${id}`).length
  expect(ids.map(puts)).toEqual(ids.map(() => 1))
  // `pay history` keeps no cancel of those in flight at the kill as unknown: the resume found them
  // cancelled (or their outcome was written before the kill).
  const history = await startCli(['history', '--json'], {
    env: { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl, PAY_JOURNAL_FILE: journal },
  }).done
  const changes = JSON.parse(history.stdout) as { id: string; kind: string; outcome: string }[]
  for (const id of unlisted) {
    const outcomes = changes.filter((c) => c.id === id && c.kind === 'cancel sub').map((c) => c.outcome)
    expect(outcomes, id).toHaveLength(1)
    expect(['done 200', 'found cancelled'], id).toContain(outcomes[0])
  }
  // The report now holds one row per id, the first run's rows untouched above the resumed run's,
  // and the closing mark.
  const final = parseCsv(fs.readFileSync(report, 'utf8'))
  expect(final.rows.slice(0, csv.rows.length)).toEqual(csv.rows)
  expect(final.rows.map((row) => row.id).sort()).toEqual([...ids].sort())
  expect(JSON.parse(fs.readFileSync(`${report}.meta.json`, 'utf8'))).toMatchObject({
    input: { source: '-', count: 300 },
    outcome: 'done',
    counts:
      unlisted.length > 0
        ? { cancelled: 300 - unlisted.length, already_cancelled: unlisted.length }
        : { cancelled: 300 },
  })
})
