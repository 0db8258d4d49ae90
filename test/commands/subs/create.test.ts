import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runInProcess } from '../../helpers/in-process.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { recordTsv, unknownId } from '../../helpers/subs.js'

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
