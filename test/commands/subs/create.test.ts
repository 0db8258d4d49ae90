import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import { startProxy } from '../../helpers/proxy.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { parseCsv, recordTsv, unknownId } from '../../helpers/subs.js'

/**
 * Every `pay subs` command but cancel, run in this process against a real sandbox,
 * with exact stdout, stderr and exit code, and what the sandbox holds afterwards.
 */

let sandbox: TestSandbox
let starter: string
let business: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  ;[starter, business] = sandbox.packageIds
})
afterAll(async () => {
  await sandbox?.close()
})

const pay = (args: string[], target: TestSandbox = sandbox, input?: string) =>
  runInProcess(args, { env: target.env, input })

const held = async (id: string, target: TestSandbox = sandbox) =>
  target.request('GET', `/subscriptions/${id}`)

describe.concurrent('subs create', () => {
  test('--json prints the full record with its embedded package, as the server holds it', async () => {
    const result = await pay([
      'subs',
      'create',
      '--package-id',
      business,
      '--email',
      'jane@example.com',
      '--phone',
      '+44 20 7946 0000',
      '--json',
    ])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const printed = JSON.parse(result.stdout)
    expect(Object.keys(printed)).toEqual([
      '_id',
      'package_id',
      'email',
      'phone_no',
      'status',
      'package',
      'payment_links',
      'created_at',
      'updated_at',
    ])
    expect(printed).toMatchObject({
      package_id: business,
      email: 'jane@example.com',
      phone_no: '+44 20 7946 0000',
      status: 'created',
      payment_links: [],
    })
    expect(printed.package).toMatchObject({
      _id: business,
      name: 'Business',
      amount: 1250.5,
      currency: 'USD',
      frequency: 'yearly',
    })
    expect(Object.keys(printed.package)).toEqual([
      '_id',
      'name',
      'description',
      'amount',
      'frequency',
      'currency',
      'date_charge_start',
      'business_id',
      'status',
      'created_at',
      'updated_at',
    ])
    const stored = await held(printed._id)
    expect(stored.status).toBe(200)
    expect(printed).toEqual(stored.body.data)
  })

  test('off a terminal without --json: key<TAB>value lines, the package name, amount and frequency', async () => {
    const result = await pay(['subs', 'create', '--package-id', starter, '--email', 'tsv@example.com'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const id = /^_id\t(\w+)\n/.exec(result.stdout)?.[1] ?? ''
    const stored = (await held(id)).body.data
    expect(stored).toMatchObject({ email: 'tsv@example.com', package_id: starter, status: 'created' })
    expect(stored.phone_no).toBeUndefined()
    expect(result.stdout).toBe(recordTsv(stored))
  })

  test('-q prints only the new id', async () => {
    const result = await pay([
      'subs',
      'create',
      '--package-id',
      starter,
      '--email',
      'quiet@example.com',
      '-q',
    ])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^[0-9a-f]{24}\n$/)
    expect((await held(result.stdout.trim())).body.data.email).toBe('quiet@example.com')
  })

  test('missing flags off a terminal: exit 2 naming every one, nothing created', async () => {
    const [none, noPackage, noEmail] = await Promise.all([
      pay(['subs', 'create']),
      pay(['subs', 'create', '--email', 'missing@example.com']),
      pay(['subs', 'create', '--package-id', starter]),
    ])
    const hint = 'Pass them as flags (neither stdin nor stdout is a terminal, so pay does not ask).\n'
    expect(none).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `Error: Missing required flags: --package-id, --email\n${hint}`,
    })
    expect(noPackage).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `Error: Missing required flag: --package-id\n${hint}`,
    })
    expect(noEmail).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `Error: Missing required flag: --email\n${hint}`,
    })
    const all = await sandbox.request('GET', '/subscriptions?per_page=500')
    expect(all.body.data.data.map((s: { email: string }) => s.email)).not.toContain('missing@example.com')
  })

  test('an unknown package: exit 3 with the --package-id line; a bad e-mail: exit 3 before sending', async () => {
    const [unknown, badEmail] = await Promise.all([
      pay(['subs', 'create', '--package-id', unknownId(1), '--email', 'nopkg@example.com']),
      pay(['subs', 'create', '--package-id', starter, '--email', 'not-an-email']),
    ])
    expect(unknown).toMatchObject({
      code: 3,
      stdout: '',
      stderr: 'Error: The given data was invalid.\n  --package-id  The selected package_id is invalid.\n',
    })
    expect(badEmail).toMatchObject({
      code: 3,
      stdout: '',
      stderr: 'Error: The given data was invalid.\n  --email  The email must be a valid email address.\n',
    })
    const json = await pay([
      'subs',
      'create',
      '--package-id',
      unknownId(1),
      '--email',
      'nopkg@example.com',
      '--json',
    ])
    expect(json.code).toBe(3)
    expect(json.stdout).toBe('')
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        status: 422,
        kind: 'validation',
        exit_code: 3,
        message: 'The given data was invalid.',
        errors: { package_id: ['The selected package_id is invalid.'] },
      },
    })
    const all = await sandbox.request('GET', '/subscriptions?per_page=500')
    expect(all.body.data.data.map((s: { email: string }) => s.email)).not.toContain('nopkg@example.com')
  })
})

describe.concurrent('subs create --from-csv', () => {
  const dir = tempDir('pay-subs-from-csv-')
  const write = (name: string, text: string) => {
    const file = path.join(dir, name)
    fs.writeFileSync(file, text)
    return file
  }
  /** The subscriptions the sandbox holds of these e-mails, by e-mail. */
  const heldBy = async (emails: string[]) => {
    const answer = await sandbox.request('GET', '/subscriptions?per_page=1000')
    const all = answer.body.data.data as { email: string; package_id: string; phone_no?: string }[]
    return emails.map((email) => all.filter((sub) => sub.email === email))
  }

  test('a subscription per row of a semicolon file, each with its own Idempotency-Key; the report and --from-file of it', async () => {
    const file = write(
      'customers.csv',
      `package_id;email;phone\n${starter};ann.csv@example.com;\n${business};bob.csv@example.com;+44 20 7946 0000\n`,
    )
    const report = path.join(dir, 'customers-report.csv')
    const result = await pay([
      'subs',
      'create',
      '--from-csv',
      file,
      '--yes',
      '--report',
      report,
      '--bom',
      '--json',
    ])
    expect(result).toMatchObject({
      code: 0,
      stderr:
        `About to create 2 subscriptions:\n  profile:  (environment)\n  base URL: ${sandbox.baseUrl}\n` +
        `  line 2  ann.csv@example.com · package ${starter}\n` +
        `  line 3  bob.csv@example.com · package ${business} · +44 20 7946 0000\n` +
        `Of 2 subscriptions: 2 created, 0 not created.\nReport written to ${report}\n`,
    })
    const rows = JSON.parse(result.stdout) as Record<string, unknown>[]
    expect(rows.map(({ _id, idempotency_key, ...rest }) => rest)).toEqual([
      { line: 2, ok: true, status: 'created', error: null },
      { line: 3, ok: true, status: 'created', error: null },
    ])
    expect(new Set(rows.map((row) => row.idempotency_key)).size).toBe(2)
    const [ann, bob] = await heldBy(['ann.csv@example.com', 'bob.csv@example.com'])
    expect(ann.map((sub) => [sub.package_id, sub.phone_no ?? null])).toEqual([[starter, null]])
    expect(bob.map((sub) => [sub.package_id, sub.phone_no])).toEqual([[business, '+44 20 7946 0000']])
    expect(rows.map((row) => row._id)).toEqual([ann, bob].map(([sub]) => (sub as { _id?: string })._id))

    // --bom: the report starts with a UTF-8 byte-order mark, which pay's readers of it skip.
    expect(fs.readFileSync(report).subarray(0, 8).toString('latin1')).toBe('\xef\xbb\xbfline,')
    const csv = parseCsv(fs.readFileSync(report, 'utf8').slice(1))
    expect(csv.header).toEqual([
      'line',
      'ok',
      'status',
      'error',
      '_id',
      'at',
      'email',
      'package_id',
      'phone_no',
      'idempotency_key',
      'row_hash',
    ])
    expect(csv.rows.map((row) => [row.line, row.status, row._id, row.email, row.phone_no])).toEqual([
      ['2', 'created', rows[0]._id, 'ann.csv@example.com', ''],
      ['3', 'created', rows[1]._id, 'bob.csv@example.com', "'+44 20 7946 0000"],
    ])
    // The subscriptions it made are ids `subs cancel` takes; `links delete` refuses them.
    const cancel = await pay(['subs', 'cancel', '--from-file', report, '--dry-run', '--json'])
    expect(JSON.parse(cancel.stdout).ids).toEqual(rows.map((row) => row._id))
    expect(await pay(['links', 'delete', '--from-file', report, '--yes'])).toMatchObject({
      code: 2,
      stderr: `Error: --from-file: ${report} is a report of \`pay subs create --from-csv\` (one row per CSV line); it holds no payment link ids.\n`,
    })
  })

  test('every row checked first: invalid ones by line, nothing sent (exit 3); --skip-invalid sends the rest (exit 7); --dry-run sends nothing', async () => {
    const file = write(
      'mixed.csv',
      `email,package-id\nok.mixed@example.com,${starter}\nnot-an-email,${starter}\nnone.mixed@example.com,\n`,
    )
    const refused = await pay(['subs', 'create', '--from-csv', file, '--yes'])
    expect(refused).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'Line 3:\n' +
        '  --email  The email must be a valid email address.\n' +
        'Line 4:\n' +
        '  --package-id  The package_id field is required.\n' +
        'Error: 2 of 3 rows are invalid; nothing was sent.\n' +
        'Fix them, or pass --skip-invalid to send the valid rows only.\n',
    })
    const dry = await pay(['subs', 'create', '--from-csv', file, '--skip-invalid', '--dry-run'])
    expect(dry).toMatchObject({ code: 0, stdout: '' })
    expect(dry.stderr).toContain(
      `About to create 1 subscription:\n  profile:  (environment)\n  base URL: ${sandbox.baseUrl}\n` +
        `  line 2  ok.mixed@example.com · package ${starter}\nDry run: nothing was changed.\n`,
    )
    expect((await heldBy(['ok.mixed@example.com']))[0]).toEqual([])
    const sent = await pay(['subs', 'create', '--from-csv', file, '--skip-invalid', '--yes'])
    expect(sent.code).toBe(7)
    expect(sent.stdout.split('\n')[1]).toBe('3\tinvalid\t\temail: The email must be a valid email address.')
    expect(sent.stderr).toContain('Of 3 subscriptions: 1 created, 2 not created (2 invalid).\n')
    expect((await heldBy(['ok.mixed@example.com']))[0]).toHaveLength(1)
  })

  test('a row whose POST may have reached the service is unknown; --resume --retry-unknown sends it again with its key: created once', async () => {
    const file = write('slow.csv', `email,package_id\nslow.csv@example.com,${starter}\n`)
    const report = path.join(dir, 'slow-report.csv')
    let posts = 0
    // The first POST reaches the sandbox (the subscription is made) but its answer comes too late.
    const proxy = await startProxy(sandbox.baseUrl, ({ method }) =>
      method === 'POST' && ++posts === 1 ? { answerDelayMs: 2500 } : {},
    )
    try {
      const env = { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl }
      const create = ['subs', 'create', '--from-csv', file, '--yes']
      const first = await runInProcess([...create, '--timeout', '1', '--report', report], { env })
      expect(first.code).toBe(6)
      expect(first.stdout).toMatch(/^2\tunknown\t\t/)
      await proxy.idle()
      const held = await runInProcess([...create, '--resume', report], { env })
      expect(held).toMatchObject({ code: 7 })
      expect(held.stderr).toContain('Check with `pay subs list`; resume with --resume REPORT --retry-unknown')
      const retried = await runInProcess([...create, '--resume', report, '--retry-unknown', '--json'], {
        env,
      })
      expect(retried.code).toBe(0)
      const [made] = await heldBy(['slow.csv@example.com'])
      expect(made).toHaveLength(1)
      expect(JSON.parse(retried.stdout)[0]).toMatchObject({
        status: 'created',
        _id: (made[0] as { _id?: string })._id,
      })
      const keys = proxy.requests.filter((r) => r.method === 'POST').map((r) => r.headers['idempotency-key'])
      expect(keys).toEqual([keys[0], keys[0]])
    } finally {
      await proxy.close()
    }
  })
})
