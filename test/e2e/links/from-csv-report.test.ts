import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCli } from '../../helpers/child.js'
import { ROOT, runCli, tempDir } from '../../helpers/cli.js'
import { envelope, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import type { Json } from '../../helpers/links.js'
import { startProxy } from '../../helpers/proxy.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { parseCsv } from '../../helpers/subs.js'

/**
 * The report of `pay links create --from-csv` as finance opens it: row 1 the header, one row per
 * CSV row, formula-like cells prefixed, `at` a date, 0600, never through a symbolic link; its
 * .meta.json; the service's field errors; and reports of an earlier pay resumed.
 */

let sandbox: TestSandbox
const dir = tempDir('pay-csv-report-')
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const write = (name: string, text: string) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, text)
  return file
}
const readMeta = (report: string) => JSON.parse(fs.readFileSync(`${report}.meta.json`, 'utf8'))
const AT = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/
const COLUMNS = 'line,ok,status,error,_id,payment_url,at,email,title,amount,currency,idempotency_key,row_hash'

describe('links create --from-csv --report', () => {
  test('row 1 the header, one row per CSV row, formula-like cells prefixed, mode 0600, a meta file with a closing mark', async () => {
    const file = write(
      'hostile.csv',
      'email,currency,amount,title\n' +
        'a@example.com,EUR,1.00,"=HYPERLINK(""http://evil.example"",""Click"")"\n' +
        'b@example.com,EUR,2.00,@SUM(A1:A9)\n' +
        'c@example.com,EUR,3.00,Plain tea\n',
    )
    const report = path.join(dir, 'hostile-report.csv')
    const result = await runCli(
      ['links', 'create', '--from-csv', file, '--yes', '--json', '--report', report],
      {
        env: sandbox.env,
      },
    )
    expect(result.code).toBe(0)
    const created = JSON.parse(result.stdout) as Json[]
    const text = fs.readFileSync(report, 'utf8')
    const lines = text.split('\n')
    expect(lines[0]).toBe(COLUMNS)
    // No `sending` rows left: one row per CSV row.
    expect(lines).toHaveLength(5)
    expect(lines[1]).toContain(`,"'=HYPERLINK(""http://evil.example"",""Click"")",1.00,EUR,`)
    expect(lines[2]).toContain(",'@SUM(A1:A9),2.00,EUR,")
    expect(lines[3]).toContain(',Plain tea,3.00,EUR,')
    const rows = parseCsv(text).rows
    expect(rows.map((row) => [row.line, row.ok, row.status, row.error, row._id])).toEqual(
      created.map((r) => [String(r.line), 'true', 'created', '', r._id]),
    )
    for (const row of rows) expect(row.at).toMatch(AT)
    expect(fs.statSync(report).mode & 0o777).toBe(0o600)
    expect(fs.statSync(`${report}.meta.json`).mode & 0o777).toBe(0o600)
    expect(readMeta(report)).toEqual({
      format: 'pay-report/2',
      command: 'pay links create --from-csv',
      profile: '(environment)',
      base_url: sandbox.baseUrl,
      input: { source: `--from-csv ${file}`, count: 3, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      started_at: expect.stringMatching(/Z$/),
      finished_at: expect.stringMatching(/Z$/),
      outcome: 'done',
      counts: { created: 3 },
    })
    // The title the service holds is the CSV's, not the prefixed cell.
    const held = await sandbox.request('GET', `/payment-links/${created[0]._id}`)
    expect(held.body.data.title).toBe('=HYPERLINK("http://evil.example","Click")')
  })

  test('a symbolic link at --report is refused with --force too: exit 2, nothing sent, the file it points to untouched', async () => {
    const victim = write('victim.txt', 'precious\n')
    const report = path.join(dir, 'planted.csv')
    fs.symlinkSync(victim, report)
    const file = write('one.csv', 'email,currency,amount,title\nx@example.com,EUR,1.00,One\n')
    const proxy = await startProxy(sandbox.baseUrl)
    try {
      const env = { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl }
      for (const flags of [
        ['--report', report, '--force'],
        ['--report', report, '--append'],
        ['--resume', report],
      ]) {
        const result = await runCli(['links', 'create', '--from-csv', file, '--yes', ...flags], { env })
        expect(result).toMatchObject({ code: 2, stdout: '' })
        expect(result.stderr).toBe(
          `Error: ${flags[0]}: ${report} is a symbolic link (pay does not follow one).\n` +
            'Nothing was written. Give the path of the file itself.\n',
        )
      }
      expect(proxy.requests).toEqual([])
      expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n')
    } finally {
      await proxy.close()
    }
  })

  test("a row the service refuses shows the service's field errors: in --json, under the summary, in the report", async () => {
    const fake = await startFakeServer((request, response) => {
      const body = JSON.parse(request.body)
      if (body.reference === 'DUP') {
        return sendJson(response, 422, {
          message: 'The given data was invalid.',
          errors: { reference: ['The reference has already been taken.'] },
        })
      }
      return sendJson(
        response,
        200,
        envelope({ _id: 'l1', ...body, payment_url: 'https://pay.example/x?id=l1' }),
      )
    })
    try {
      const file = write(
        'dup.csv',
        'email,currency,amount,title,reference\na@example.com,EUR,1.00,Ok,FRESH\nb@example.com,EUR,2.00,Dup,DUP\n',
      )
      const report = path.join(dir, 'dup-report.csv')
      const env = { PAY_API_KEY: 'sk_test_fake_9f8e7d6c5b4a3210', PAY_BASE_URL: fake.baseUrl }
      const result = await runCli(
        ['links', 'create', '--from-csv', file, '--yes', '--json', '--report', report, '--concurrency', '1'],
        { env },
      )
      expect(result.code).toBe(7)
      const rows = JSON.parse(result.stdout) as Json[]
      expect(rows[1]).toEqual({
        line: 3,
        ok: false,
        status: 'failed',
        _id: null,
        payment_url: null,
        error: 'reference: The reference has already been taken.',
        idempotency_key: expect.stringMatching(/^[0-9a-f-]{36}$/),
        errors: { reference: ['The reference has already been taken.'] },
      })
      expect(result.stderr).toContain(
        'The service refused a row:\n' +
          'Line 3:\n' +
          '  --reference  The reference has already been taken.\n' +
          'Of 2 payment links: 1 created, 1 not created (1 failed).\n',
      )
      const csv = parseCsv(fs.readFileSync(report, 'utf8')).rows
      expect(csv.map((row) => [row.line, row.status, row.error])).toEqual([
        ['2', 'created', ''],
        ['3', 'failed', 'reference: The reference has already been taken.'],
      ])
    } finally {
      await fake.close()
    }
  })

  test('the plan shows text from the CSV in caret notation, never raw escapes', async () => {
    const file = write(
      'escapes.csv',
      'email,currency,amount,title\ne@example.com,EUR,1.00,"Red\u001b[31mAlert\u0007"\n',
    )
    const result = await runCli(['links', 'create', '--from-csv', file, '--dry-run'], { env: sandbox.env })
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('  line 2  Red^[[31mAlert^G · 1.00 EUR · e@example.com\n')
    expect(result.stderr).not.toContain('\u001b')
  })

  test('kill -9 half-way leaves a report with no closing mark; --resume against another base URL needs --force', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => `k${i}@example.com,EUR,${i + 1}.00,Killed ${i}`)
    const file = write('killed.csv', ['email,currency,amount,title', ...rows, ''].join('\n'))
    const report = path.join(dir, 'killed-report.csv')
    const proxy = await startProxy(sandbox.baseUrl, () => ({ delayMs: 30 }))
    const other = await startProxy(sandbox.baseUrl)
    try {
      const env = { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl }
      const run = startCli(['links', 'create', '--from-csv', file, '--yes', '--report', report], { env })
      while (!fs.existsSync(report) || fs.readFileSync(report, 'utf8').split(',created,').length < 6) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      run.child.kill('SIGKILL')
      await run.done
      await proxy.idle()
      const meta = readMeta(report)
      expect(meta.input).toMatchObject({ source: `--from-csv ${file}`, count: 40 })
      expect(meta.finished_at).toBeUndefined()

      const elsewhere = await runCli(['links', 'create', '--from-csv', file, '--yes', '--resume', report], {
        env: { ...sandbox.env, PAY_BASE_URL: other.baseUrl },
      })
      expect(elsewhere).toMatchObject({
        code: 2,
        stderr:
          `Error: --resume: ${report} was written against profile (environment) at ${proxy.baseUrl}; ` +
          `this run goes to profile (environment) at ${other.baseUrl}.\n` +
          'Pass --force to resume it there all the same.\n',
      })
      expect(other.requests).toEqual([])
      const forced = await runCli(
        ['links', 'create', '--from-csv', file, '--yes', '--resume', report, '--force', '--retry-unknown'],
        { env: { ...sandbox.env, PAY_BASE_URL: other.baseUrl } },
      )
      expect(forced.code).toBe(0)
      const final = parseCsv(fs.readFileSync(report, 'utf8')).rows
      expect(final.map((row) => [row.line, row.status])).toEqual(
        Array.from({ length: 40 }, (_, i) => [String(i + 2), 'created']),
      )
      expect(readMeta(report)).toMatchObject({
        base_url: other.baseUrl,
        outcome: 'done',
        counts: { created: 40 },
      })
    } finally {
      await proxy.close()
      await other.close()
    }
  })

  test('a report of an earlier pay (a `#` line naming the run, `sending` rows) is resumed and rewritten in this format', async () => {
    const fixtures = path.join(ROOT, 'test/fixtures')
    const own = tempDir('pay-csv-old-')
    const csv = path.join(own, 'invoices-0.1.csv')
    const report = path.join(own, 'report.csv')
    fs.copyFileSync(path.join(fixtures, 'invoices-0.1.csv'), csv)
    fs.copyFileSync(path.join(fixtures, 'report-0.1-create.csv'), report)
    const resume = ['links', 'create', '--from-csv', csv, '--yes', '--resume', report]
    // It names the target of its run in its first line: another one needs --force.
    const refused = await runCli(resume, { env: sandbox.env })
    expect(refused).toMatchObject({ code: 2 })
    expect(refused.stderr.split('\n')[0]).toBe(
      `Error: --resume: ${report} was written against profile sandbox at http://127.0.0.1:4023; this run goes to profile (environment) at ${sandbox.baseUrl}.`,
    )
    const resumed = await runCli([...resume, '--force'], { env: sandbox.env })
    // Lines 2 and 3 were created; line 4 was in flight at the kill: unknown, counted, exit 7.
    expect(resumed.code).toBe(7)
    expect(resumed.stdout.split('\t').slice(0, 2)).toEqual(['4', 'unknown'])
    expect(resumed.stderr).toContain(
      `Skipping 2 rows recorded created and 1 whose POST may have reached the service (--retry-unknown sends them again) in ${report}.\n`,
    )
    expect(resumed.stderr).toContain(
      'Of 1 payment link: 0 created, 1 not created (1 unknown); 2 created in an earlier run.\n',
    )
    const text = fs.readFileSync(report, 'utf8')
    expect(text.split('\n')[0]).toBe(COLUMNS)
    const rows = parseCsv(text).rows
    expect(rows.map((row) => [row.line, row.status, row.title, row.at, row.idempotency_key])).toEqual([
      ['2', 'created', 'Tea', '2026-11-24 13:37:03', '090ed3ea-0317-40d8-ad2d-f30814a6d410'],
      ['3', 'created', "'-Coffee", '2026-11-24 13:37:03', '3ef1a0a0-b21a-49aa-bf1c-9c59f00fc5d6'],
      ['4', 'unknown', 'Cake', expect.stringMatching(AT), '317cbaad-62bd-4586-a9ce-385bddbf2407'],
    ])
  })
})
