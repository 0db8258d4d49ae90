import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { cancelDirectly, seedSubscriptions, serverStatuses, unknownId } from '../../helpers/subs.js'

/**
 * Every `pay subs` command but cancel, end to end: the built bin/run.js against a real sandbox,
 * with exact stdout, stderr and exit code, and what the sandbox holds afterwards.
 */

let sandbox: TestSandbox
/** A second sandbox of its own for the list tests, so that other tests' records don't show. */
let listing: TestSandbox
let starter: string
let business: string

beforeAll(async () => {
  ;[sandbox, listing] = await Promise.all([startTestSandbox(), startTestSandbox()])
  ;[starter, business] = sandbox.packageIds
})
afterAll(async () => {
  await Promise.all([sandbox?.close(), listing?.close()])
})

const pay = (args: string[], target: TestSandbox = sandbox, input?: string) =>
  runCli(args, { env: target.env, input })

const held = async (id: string, target: TestSandbox = sandbox) =>
  target.request('GET', `/subscriptions/${id}`)

/** A subscription made directly on the server; its full record. */
const create = async (fields: Record<string, string> = {}) => {
  const answer = await sandbox.request('POST', '/subscriptions', {
    package_id: starter,
    email: 'ada@example.com',
    ...fields,
  })
  expect(answer.status).toBe(200)
  return answer.body.data
}

const STARTER_PACKAGE_TSV = [
  'package.name\tStarter',
  'package.amount\t120',
  'package.currency\tUSD',
  'package.frequency\tyearly',
  'package.date_charge_start\t2025-01-01',
]

/** The TSV of one subscription as pay prints it off a terminal. */
const recordTsv = (sub: Record<string, string>, packageLines = STARTER_PACKAGE_TSV) =>
  [
    `_id\t${sub._id}`,
    `status\t${sub.status}`,
    `email\t${sub.email}`,
    ...(sub.phone_no === undefined ? [] : [`phone_no\t${sub.phone_no}`]),
    `package_id\t${sub.package_id}`,
    ...packageLines,
    `created_at\t${sub.created_at}`,
    `updated_at\t${sub.updated_at}`,
    '',
  ].join('\n')

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
    const hint = 'Pass them as flags (you are not on a terminal, so pay does not ask).\n'
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

describe.concurrent('subs get', () => {
  test('--json is the record the server holds; TSV shows the package; unknown id exit 5', async () => {
    const sub = await create({ email: 'get@example.com', phone_no: '555 0100' })
    const [json, tsv, missing, missingJson] = await Promise.all([
      pay(['subs', 'get', sub._id, '--json']),
      pay(['subs', 'get', sub._id]),
      pay(['subs', 'get', unknownId(2)]),
      pay(['subs', 'get', unknownId(2), '--json']),
    ])
    expect(json).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(json.stdout)).toEqual(sub)
    expect(tsv).toMatchObject({ code: 0, stderr: '', stdout: recordTsv(sub) })
    expect(missing).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Subscription not found.\n' })
    expect(missingJson).toMatchObject({ code: 5, stdout: '' })
    expect(JSON.parse(missingJson.stderr)).toEqual({
      error: { status: 404, kind: 'not_found', exit_code: 5, message: 'Subscription not found.' },
    })
  })

  test('no id: exit 2', async () => {
    const result = await pay(['subs', 'get'])
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'Error: Missing 1 required arg:\nid  Subscription id (_id).\nSee `pay subs get --help`.\n',
    })
  })
})

describe.concurrent('subs list', () => {
  /** Server order (newest first) of the listing sandbox. */
  let everything: { _id: string; status: string; email: string; created_at: string }[]
  let janes: string[]
  let cancelled: string[]

  beforeAll(async () => {
    // The three oldest belong to jane (so they are not on the first page), then 55 others.
    janes = []
    for (let i = 0; i < 3; i += 1)
      janes.push(...(await seedSubscriptions(listing, 1, { prefix: `jane${i}-` })))
    const renamed = janes.map((id) =>
      listing.request('PUT', `/subscriptions/${id}`, { email: 'Jane@Example.com' }),
    )
    expect((await Promise.all(renamed)).map((answer) => answer.status)).toEqual([200, 200, 200])
    const others = await seedSubscriptions(listing, 55)
    cancelled = [janes[1], others[3], others[10], others[50]]
    await cancelDirectly(listing, cancelled)
    const pages = await Promise.all(
      [1, 2].map((page) => listing.request('GET', `/subscriptions?page=${page}`)),
    )
    expect(pages.map((page) => page.body.data.data.length)).toEqual([50, 8])
    everything = [...pages[0].body.data.data, ...pages[1].body.data.data]
    expect(everything.slice(-3).map((sub) => sub._id)).toEqual([...janes].reverse())
  })

  const ids = (subs: { _id: string }[]) => subs.map((sub) => `${sub._id}\n`).join('')
  const MORE = 'More subscriptions exist than this first page: add --all to fetch them all.\n'

  test('the first page only, saying that more exist; --all follows every page', async () => {
    const [first, all, allJson] = await Promise.all([
      pay(['subs', 'list', '--json'], listing),
      pay(['subs', 'list', '--all', '-q'], listing),
      pay(['subs', 'list', '--all', '--json'], listing),
    ])
    expect(first).toMatchObject({ code: 0, stderr: MORE })
    expect(JSON.parse(first.stdout)).toEqual(everything.slice(0, 50))
    expect(all).toMatchObject({ code: 0, stderr: '', stdout: ids(everything) })
    expect(allJson).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(allJson.stdout)).toEqual(everything)
  })

  test('--status and --email filter in any case, over every page, and say how far they searched', async () => {
    const [cancel, byWord, jane, janeWithoutAll, both] = await Promise.all([
      pay(['subs', 'list', '--all', '--status', 'CANCEL', '-q'], listing),
      pay(['subs', 'list', '--status', 'cancelled', '-q'], listing),
      pay(['subs', 'list', '--all', '--email', 'jane@example.COM', '-q'], listing),
      pay(['subs', 'list', '--email', 'jane@example.com', '-q'], listing),
      pay(['subs', 'list', '--all', '--status', 'created', '--email', 'jane@example.com'], listing),
    ])
    const searched = `Searched ${everything.length} subscriptions on 2 pages.\n`
    const cancelledIds = ids(everything.filter((sub) => cancelled.includes(sub._id)))
    expect(cancel).toMatchObject({ code: 0, stderr: searched, stdout: cancelledIds })
    expect(cancel.stdout.split('\n')).toHaveLength(cancelled.length + 1)
    // The word pay prints ("cancelled") finds what the service calls "cancel".
    expect(byWord).toMatchObject({ code: 0, stderr: searched, stdout: cancelledIds })
    expect(jane).toMatchObject({ code: 0, stderr: searched, stdout: ids(everything.slice(-3)) })
    // No page holds jane but the last: the filter searched them all without --all.
    expect(janeWithoutAll).toMatchObject({ code: 0, stderr: searched, stdout: ids(everything.slice(-3)) })
    const row = (id: string) => {
      const sub = everything.find((s) => s._id === id)!
      return `${id}\tcreated\tJane@Example.com\tStarter\t120\tUSD\tyearly\t${sub.created_at}\n`
    }
    expect(both).toMatchObject({ code: 0, stderr: searched, stdout: `${row(janes[2])}${row(janes[0])}` })
  })

  test('a status the service does not have is a usage error naming those it has', async () => {
    expect(await pay(['subs', 'list', '--status', 'paused', '--json'], listing)).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `${JSON.stringify({
        error: {
          status: null,
          kind: 'usage',
          exit_code: 2,
          message: 'Unknown status "paused" for --status.',
          hint: 'Known: created, cancel, cancelled (= cancel), canceled (= cancel).',
        },
      })}\n`,
    })
  })
})

describe.concurrent('subs update', () => {
  test('each flag is sent alone and the server holds the change', async () => {
    const sub = await create({ email: 'before@example.com' })
    const email = await pay(['subs', 'update', sub._id, '--email', 'after@example.com', '--json'])
    expect(email).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(email.stdout)).toMatchObject({
      _id: sub._id,
      email: 'after@example.com',
      status: 'created',
    })

    const phone = await pay(['subs', 'update', sub._id, '--phone', '+1 555 0199'])
    const afterPhone = (await held(sub._id)).body.data
    expect(afterPhone).toMatchObject({
      email: 'after@example.com',
      phone_no: '+1 555 0199',
      status: 'created',
    })
    expect(phone).toMatchObject({ code: 0, stderr: '', stdout: recordTsv(afterPhone) })

    const status = await pay(['subs', 'update', sub._id, '--status', 'cancel', '--json'])
    expect(status).toMatchObject({ code: 0, stderr: '' })
    const afterStatus = (await held(sub._id)).body.data
    expect(afterStatus).toMatchObject({
      email: 'after@example.com',
      phone_no: '+1 555 0199',
      status: 'cancel',
    })
    expect(JSON.parse(status.stdout)).toEqual(afterStatus)
  })

  test('nothing to change: exit 2; an invalid status: exit 3; a bad e-mail: exit 3; unknown id: exit 5', async () => {
    const sub = await create({ email: 'unchanged@example.com' })
    const [nothing, badStatus, badEmail, unknown] = await Promise.all([
      pay(['subs', 'update', sub._id]),
      pay(['subs', 'update', sub._id, '--status', 'paused']),
      pay(['subs', 'update', sub._id, '--email', 'nope']),
      pay(['subs', 'update', unknownId(3), '--status', 'cancel']),
    ])
    expect(nothing).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'Error: Nothing to change.\nGive --email, --phone or --status.\n',
    })
    expect(badStatus).toMatchObject({
      code: 3,
      stdout: '',
      // Checked locally now, naming what is allowed (nothing is sent).
      stderr:
        'Error: The given data was invalid.\n' +
        '  --status  The status an update can set is cancel (pay shows it as cancelled; cancelled and canceled are taken too).\n',
    })
    expect(badEmail).toMatchObject({
      code: 3,
      stdout: '',
      stderr: 'Error: The given data was invalid.\n  --email  The email must be a valid email address.\n',
    })
    expect(unknown).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Subscription not found.\n' })
    expect((await held(sub._id)).body.data).toEqual(sub)
  })
})

describe.concurrent('subs delete', () => {
  const plan = (ids: string[]) =>
    [
      `About to delete ${ids.length} subscription${ids.length === 1 ? '' : 's'}:`,
      '  profile:  (environment)',
      `  base URL: ${sandbox.baseUrl}`,
      `  ids:      ${ids.join(', ')}`,
      'This cannot be undone.',
      '',
    ].join('\n')
  /** The plan of a --dry-run or a refusal: the subscription looked up and described. */
  const described = (id: string) =>
    [
      'About to delete 1 subscription:',
      '  profile:  (environment)',
      `  base URL: ${sandbox.baseUrl}`,
      `  ${id}  ada@example.com · Starter · 120.00 USD  [created]`,
      'This cannot be undone.',
      '',
    ].join('\n')

  test('off a terminal without --yes: refused with exit 2, nothing deleted', async () => {
    const sub = await create()
    const result = await pay(['subs', 'delete', sub._id])
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `${described(sub._id)}Error: Refusing to delete without confirmation: there is no terminal to confirm on.\nPass --yes to confirm, or --dry-run to see the plan. Nothing was changed.\n`,
    })
    expect((await held(sub._id)).status).toBe(200)
  })

  test('--dry-run shows the plan (JSON with --json) and deletes nothing', async () => {
    const sub = await create()
    const [text, json] = await Promise.all([
      pay(['subs', 'delete', sub._id, '--dry-run']),
      pay(['subs', 'delete', sub._id, '--dry-run', '--json']),
    ])
    expect(text).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `${described(sub._id)}Dry run: nothing was changed.\n`,
    })
    expect(json).toMatchObject({ code: 0, stderr: `${described(sub._id)}Dry run: nothing was changed.\n` })
    expect(JSON.parse(json.stdout)).toEqual({
      dry_run: true,
      action: 'delete',
      profile: '(environment)',
      base_url: sandbox.baseUrl,
      ids: [sub._id],
      not_found: [],
      invalid: [],
    })
    expect((await held(sub._id)).status).toBe(200)
  })

  test('--yes deletes, saying it cannot be undone', async () => {
    const sub = await create()
    const result = await pay(['subs', 'delete', sub._id, '--yes'])
    expect(result).toMatchObject({
      code: 0,
      stdout: `${sub._id}\tdeleted\t\n`,
      stderr: `${plan([sub._id])}1 deleted, 0 not found, 0 failed (of 1).\n`,
    })
    expect(await held(sub._id)).toEqual({ status: 404, body: { message: 'Subscription not found.' } })
  })

  test('several ids with one unknown: the others deleted, one result each, exit 7', async () => {
    const [a, b] = await Promise.all([create(), create()])
    const unknown = unknownId(4)
    const result = await pay(['subs', 'delete', a._id, unknown, b._id, a._id, '--yes', '--json'])
    expect(result.code).toBe(7)
    expect(JSON.parse(result.stdout)).toEqual([
      { id: a._id, ok: true, status: 'deleted', error: null },
      { id: unknown, ok: false, status: 'not_found', error: 'Subscription not found.' },
      { id: b._id, ok: true, status: 'deleted', error: null },
    ])
    expect(result.stderr).toBe(
      `${plan([a._id, unknown, b._id])}2 deleted, 1 not found, 0 failed (of 3).\n{"error":{"status":null,"kind":"partial","exit_code":7,"message":"1 of 3 subscriptions not deleted (1 not found)."}}\n`,
    )
    expect((await held(a._id)).status).toBe(404)
    expect((await held(b._id)).status).toBe(404)
    const statuses = await serverStatuses(sandbox)
    expect(statuses.has(a._id) || statuses.has(b._id)).toBe(false)
  })
})
