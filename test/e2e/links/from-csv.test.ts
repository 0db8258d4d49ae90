import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCli } from '../../helpers/child.js'
import { runCli, tempDir } from '../../helpers/cli.js'
import type { Json } from '../../helpers/links.js'
import { startProxy } from '../../helpers/proxy.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { parseCsv } from '../../helpers/subs.js'

/**
 * `pay links create --from-csv`: a month of invoices from a spreadsheet. Every row checked before
 * anything is sent; one POST per row; a result per row; and a run that stopped (a timeout, a
 * kill -9) resumed without ever creating a row twice.
 */

let sandbox: TestSandbox
const dir = tempDir('pay-from-csv-')
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

/** A CSV of `count` invoices, titled `${tag} N`, in the column names people use. */
function invoices(tag: string, count: number): string {
  const rows = Array.from(
    { length: count },
    (_, i) => `c${i}@example.com,EUR,${10 + i}.50,"${tag} ${i}, monthly",R-${i}`,
  )
  return ['email,currency,amount,title,reference-2', ...rows, ''].join('\n')
}

/** How many links the sandbox holds with each title. */
async function titles(tag: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  for (let page = 1; ; page += 1) {
    const answer = await sandbox.request('GET', `/payment-links?per_page=500&page=${page}`)
    for (const link of answer.body.data.data as Json[]) {
      if (String(link.title).startsWith(`${tag} `)) counts.set(link.title, (counts.get(link.title) ?? 0) + 1)
    }
    if (page >= answer.body.data.last_page) return counts
  }
}

/** The id of each link with the tag, by title. */
async function linkIds(tag: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>()
  for (let page = 1; ; page += 1) {
    const answer = await sandbox.request('GET', `/payment-links?per_page=500&page=${page}`)
    for (const link of answer.body.data.data as Json[]) {
      if (String(link.title).startsWith(`${tag} `)) ids.set(link.title, link._id)
    }
    if (page >= answer.body.data.last_page) return ids
  }
}

const write = (name: string, text: string) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, text)
  return file
}

describe('links create --from-csv', () => {
  test('one link per row, flag or field names as columns, a result per row as JSON', async () => {
    const file = write(
      'small.csv',
      'email,currency,amount,title,reference_2,send-email\n' +
        'a@example.com,EUR,25.50,"Tea, green",Q3,yes\n' +
        'b@example.com,jpy,1000,Deposit,,\n',
    )
    const result = await runCli(['links', 'create', '--from-csv', file, '--yes', '--json'], {
      env: sandbox.env,
    })
    expect(result.code).toBe(0)
    const rows = JSON.parse(result.stdout) as Json[]
    expect(rows.map(({ _id, payment_url, idempotency_key, ...rest }) => rest)).toEqual([
      { line: 2, ok: true, status: 'created', error: null },
      { line: 3, ok: true, status: 'created', error: null },
    ])
    for (const row of rows) {
      expect(row.payment_url).toBe(`${sandbox.baseUrl}/checkout/pay?id=${row._id}`)
      expect(row.idempotency_key).toMatch(/^[0-9a-f-]{36}$/)
    }
    const first = (await sandbox.request('GET', `/payment-links/${rows[0]._id}`)).body.data
    expect(first).toMatchObject({
      email: 'a@example.com',
      currency: 'EUR',
      amount: 25.5,
      title: 'Tea, green',
      reference_2: 'Q3',
    })
    // A currency typed in lower case is sent in capitals, as --currency sends it.
    const second = (await sandbox.request('GET', `/payment-links/${rows[1]._id}`)).body.data
    expect(second).toMatchObject({ currency: 'JPY', amount: 1000 })
    expect(result.stderr).toContain('Of 2 payment links: 2 created, 0 not created.\n')
  })

  test('invalid rows: each listed by line under its flag, nothing sent (exit 3); --skip-invalid sends the rest (exit 7)', async () => {
    const proxy = await startProxy(sandbox.baseUrl)
    try {
      const file = write(
        'mixed.csv',
        'email,currency,amount,title\n' +
          'ok@example.com,EUR,1.00,Fine\n' +
          'not-an-email,EUR,1.5,\n' +
          'yen@example.com,JPY,1.5,Too precise\n',
      )
      const env = { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl }
      const refused = await runCli(['links', 'create', '--from-csv', file, '--yes'], { env })
      expect(refused).toMatchObject({
        code: 3,
        stdout: '',
        stderr:
          'Line 3:\n' +
          '  --email  The email must be a valid email address.\n' +
          '  --title  The title field is required.\n' +
          'Line 4:\n' +
          '  --amount  The amount must have no decimals for JPY.\n' +
          'Error: 2 of 3 rows are invalid; nothing was sent.\n' +
          'Fix them, or pass --skip-invalid to send the valid rows only.\n',
      })
      expect(proxy.requests).toEqual([])
      const skipping = await runCli(['links', 'create', '--from-csv', file, '--yes', '--skip-invalid'], {
        env,
      })
      expect(skipping.code).toBe(7)
      expect(skipping.stdout.split('\n').map((line) => line.split('\t').slice(0, 2).join(' '))).toEqual([
        '2 created',
        '3 invalid',
        '4 invalid',
        '',
      ])
      expect(proxy.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /payment-links'])
    } finally {
      await proxy.close()
    }
  })

  test('unknown columns and an unreadable file are usage errors (exit 2)', async () => {
    const file = write('odd.csv', 'email,colour\nx@example.com,red\n')
    const odd = await runCli(['links', 'create', '--from-csv', file, '--yes'], { env: sandbox.env })
    expect(odd).toMatchObject({ code: 2, stdout: '' })
    expect(odd.stderr).toBe(
      `Error: --from-csv: unknown column "colour" in ${file}.\n` +
        'Columns are flag or field names: email, currency, amount, title, phone, description, redirect-url, reference, reference-2, send-email.\n',
    )
    const missing = await runCli(['links', 'create', '--from-csv', `${file}.gone`, '--yes'], {
      env: sandbox.env,
    })
    expect(missing).toMatchObject({
      code: 2,
      stderr: `Error: --from-csv: cannot read ${file}.gone: no such file.\n`,
    })
  })

  test('--dry-run shows what each row would create and sends nothing', async () => {
    const file = write('dry.csv', invoices('dry', 2))
    const result = await runCli(['links', 'create', '--from-csv', file, '--dry-run'], { env: sandbox.env })
    expect(result.code).toBe(0)
    expect(result.stderr).toBe(
      'About to create 2 payment links:\n' +
        '  profile:  (environment)\n' +
        `  base URL: ${sandbox.baseUrl}\n` +
        '  line 2  dry 0, monthly · 10.50 EUR · c0@example.com\n' +
        '  line 3  dry 1, monthly · 11.50 EUR · c1@example.com\n' +
        'Dry run: nothing was changed.\n',
    )
    expect((await titles('dry')).size).toBe(0)
  })

  test('POSTs that time out are unknown, never sent again on --resume; --retry-unknown sends them with their own key, and the sandbox answers with the links already made', async () => {
    const tag = 'slow'
    const file = write('slow.csv', invoices(tag, 9))
    const report = path.join(dir, 'slow-report.csv')
    let posts = 0
    // Every third POST reaches the sandbox (the link is created) but its answer comes too late.
    const proxy = await startProxy(sandbox.baseUrl, ({ method }) =>
      method === 'POST' && ++posts % 3 === 0 ? { answerDelayMs: 2500 } : {},
    )
    try {
      const env = { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl }
      const first = await runCli(
        [
          'links',
          'create',
          '--from-csv',
          file,
          '--yes',
          '--json',
          '--timeout',
          '1',
          '--concurrency',
          '1',
          '--report',
          report,
        ],
        { env, timeoutMs: 60_000 },
      )
      expect(first.code).toBe(7)
      const results = JSON.parse(first.stdout) as Json[]
      expect(results.map((r) => r.status)).toEqual([
        'created',
        'created',
        'unknown',
        'created',
        'created',
        'unknown',
        'created',
        'created',
        'unknown',
      ])
      expect(first.stderr).toContain('Of 9 payment links: 6 created, 3 not created (3 unknown).\n')
      await proxy.idle()
      // Every row exists once: the unknown ones were created all the same.
      expect([...(await titles(tag)).values()]).toEqual(Array(9).fill(1))

      const sentBefore = proxy.requests.length
      const resumed = await runCli(['links', 'create', '--from-csv', file, '--yes', '--resume', report], {
        env,
      })
      // Rows still unknown are no success: counted, and exit 7, until --retry-unknown settles them.
      expect(resumed.code).toBe(7)
      expect(resumed.stdout.split('\n').map((line) => line.split('\t').slice(0, 2).join(' '))).toEqual([
        '4 unknown',
        '7 unknown',
        '10 unknown',
        '',
      ])
      expect(resumed.stderr).toContain(
        `Skipping 6 rows recorded created and 3 whose POST may have reached the service (--retry-unknown sends them again) in ${report}.\n`,
      )
      expect(resumed.stderr).toContain(
        'Of 3 payment links: 0 created, 3 not created (3 unknown); 6 created in an earlier run.\n',
      )
      expect(resumed.stderr).toContain('Error: 3 of 3 payment links not created (3 unknown).\n')
      expect(proxy.requests.length).toBe(sentBefore)
      expect([...(await titles(tag)).values()]).toEqual(Array(9).fill(1))

      const unknownKeys = results.filter((r) => r.status === 'unknown').map((r) => r.idempotency_key)
      const idsBefore = await linkIds(tag)
      const retried = await runCli(
        ['links', 'create', '--from-csv', file, '--yes', '--json', '--resume', report, '--retry-unknown'],
        { env },
      )
      expect(retried.code).toBe(0)
      const retriedRows = JSON.parse(retried.stdout) as Json[]
      expect(retriedRows.map((r) => [r.line, r.status])).toEqual([
        [4, 'created'],
        [7, 'created'],
        [10, 'created'],
      ])
      // The same requests again: the same Idempotency-Key for each row.
      const keys = proxy.requests.slice(sentBefore).map((r) => r.headers['idempotency-key'])
      expect(keys).toEqual(unknownKeys)
      // The sandbox honours the key: each answer is the link the first POST made, and every row
      // exists exactly once.
      expect([...(await titles(tag)).values()]).toEqual(Array(9).fill(1))
      expect(await linkIds(tag)).toEqual(idsBefore)
      for (const row of retriedRows) {
        expect(idsBefore.get(`${tag} ${row.line - 2}, monthly`)).toBe(row._id)
      }
      // One row per CSV row, in its order, each in its final state.
      const final = parseCsvReport(report)
      expect(final.map((row) => [row.line, row.status])).toEqual(
        ['2', '3', '4', '5', '6', '7', '8', '9', '10'].map((line) => [line, 'created']),
      )
    } finally {
      await proxy.close()
    }
  })

  test('kill -9 mid-run: the rows in flight are unknown on --resume, and no row is created twice', async () => {
    const tag = 'killed'
    const file = write('killed.csv', invoices(tag, 40))
    const report = path.join(dir, 'killed-report.csv')
    const proxy = await startProxy(sandbox.baseUrl, () => ({ delayMs: 30 }))
    try {
      const env = { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl }
      const run = startCli(
        ['links', 'create', '--from-csv', file, '--yes', '--report', report, '--concurrency', '4'],
        { env },
      )
      for (;;) {
        const created = fs.existsSync(report)
          ? fs.readFileSync(report, 'utf8').split(',created,').length - 1
          : 0
        if (created >= 8) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      run.child.kill('SIGKILL')
      await run.done
      await proxy.idle()
      const resumed = await runCli(
        ['links', 'create', '--from-csv', file, '--yes', '--resume', report, '--json'],
        { env },
      )
      const counts = await titles(tag)
      // Nothing twice; the rows in flight at the kill may be missing (they were recorded "sending",
      // and are "unknown" now: counted, exit 7).
      expect([...counts.values()].every((count) => count === 1)).toBe(true)
      const rows = parseCsvReport(report)
      expect(rows.map((row) => row.line)).toEqual(Array.from({ length: 40 }, (_, i) => String(i + 2)))
      const inFlight = rows.filter((row) => row.status === 'unknown').map((row) => row.line)
      expect(resumed.code).toBe(inFlight.length > 0 ? 7 : 0)
      expect(inFlight.length).toBeLessThanOrEqual(4)
      expect(counts.size).toBeGreaterThanOrEqual(40 - inFlight.length)
      expect(rows.filter((row) => row.status === 'created').length + inFlight.length).toBe(40)
      // --retry-unknown settles them with their keys: every row exactly once.
      const settled = await runCli(
        ['links', 'create', '--from-csv', file, '--yes', '--resume', report, '--retry-unknown'],
        { env },
      )
      expect(settled.code).toBe(0)
      expect([...(await titles(tag)).values()]).toEqual(Array(40).fill(1))
      expect(parseCsvReport(report).map((row) => row.status)).toEqual(Array(40).fill('created'))
    } finally {
      await proxy.close()
    }
  })
})

function parseCsvReport(file: string) {
  return parseCsv(fs.readFileSync(file, 'utf8')).rows
}
