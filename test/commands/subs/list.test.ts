import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runInProcess } from '../../helpers/in-process.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { cancelDirectly, seedSubscriptions } from '../../helpers/subs.js'

/**
 * Every `pay subs` command but cancel, run in this process against a real sandbox,
 * with exact stdout, stderr and exit code, and what the sandbox holds afterwards.
 */

let sandbox: TestSandbox
/** A second sandbox of its own for the list tests, so that other tests' records don't show. */
let listing: TestSandbox

beforeAll(async () => {
  ;[sandbox, listing] = await Promise.all([startTestSandbox(), startTestSandbox()])
})
afterAll(async () => {
  await Promise.all([sandbox?.close(), listing?.close()])
})

const pay = (args: string[], target: TestSandbox = sandbox, input?: string) =>
  runInProcess(args, { env: target.env, input })

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

  test('tables and TSV show the word pay prints (cancelled), JSON the service’s value (cancel)', async () => {
    const [tsv, table, json, get, getJson] = await Promise.all([
      pay(['subs', 'list', '--status', 'cancelled', '--columns', '_id,status'], listing),
      runInProcess(['subs', 'list', '--status', 'cancelled', '--columns', 'status,email'], {
        env: listing.env,
        terminal: true,
        colour: false,
        width: 80,
      }),
      pay(['subs', 'list', '--status', 'cancelled', '--json'], listing),
      pay(['subs', 'get', cancelled[0]], listing),
      pay(['subs', 'get', cancelled[0], '--json'], listing),
    ])
    const cancelledRows = everything.filter((sub) => cancelled.includes(sub._id))
    expect(tsv.stdout).toBe(cancelledRows.map((sub) => `${sub._id}\tcancelled\n`).join(''))
    expect(table.stdout.split('\n').slice(0, 2)).toEqual([
      'STATUS     EMAIL',
      `cancelled  ${cancelledRows[0].email}`,
    ])
    expect(JSON.parse(json.stdout).map((sub: { status: string }) => sub.status)).toEqual(
      cancelledRows.map(() => 'cancel'),
    )
    expect(get.stdout).toContain('status\tcancelled\n')
    expect(JSON.parse(getJson.stdout).status).toBe('cancel')
  })

  test('--sort reads every page and orders by the field (-FIELD: descending), ties in the service order', async () => {
    const [byEmail, downward, created] = await Promise.all([
      pay(['subs', 'list', '--sort', 'email', '--limit', '3', '-q'], listing),
      pay(['subs', 'list', '--sort', '-email', '--limit', '4', '-q'], listing),
      pay(
        [
          'subs',
          'list',
          '--sort',
          'package.amount',
          '--created-after',
          '1d',
          '--created-before',
          '2999-01-01',
        ],
        listing,
      ),
    ])
    const byAddress = (email: string) => everything.find((sub) => sub.email === email)!
    // customer2 before customer10: numbers in text compare as numbers.
    const first = ['customer0@example.com', 'customer1@example.com', 'customer2@example.com'].map(byAddress)
    expect(byEmail).toMatchObject({
      code: 0,
      stdout: ids(first),
      stderr: 'Showing the first 3 subscriptions: a higher --limit shows more.\n',
    })
    // Jane@ three times (J after c, whatever the case), as the service listed them; then customer54.
    expect(downward.stdout).toBe(ids([...everything.slice(-3), byAddress('customer54@example.com')]))
    expect(created.code).toBe(0)
    expect(created.stdout.trim().split('\n')).toHaveLength(everything.length)
    expect(await pay(['subs', 'list', '--created-before', '1d', '-q'], listing)).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `Searched ${everything.length} subscriptions on 2 pages.\n`,
    })
  })

  test('--format csv: the header, then a row per subscription; --columns honoured', async () => {
    const [whole, picked] = await Promise.all([
      pay(['subs', 'list', '--format', 'csv', '--email', 'jane@example.com'], listing),
      pay(
        ['subs', 'list', '--format', 'csv', '--columns', 'email,package.amount,status', '--limit', '1'],
        listing,
      ),
    ])
    // The status in pay's words, as in tables and TSV (cancel is cancelled); a time as every CSV
    // pay writes it, as the bulk reports do (UTC, YYYY-MM-DD HH:MM:SS).
    const sheetTime = (iso: string) => iso.slice(0, 19).replace('T', ' ')
    expect(sheetTime('2026-11-23T15:19:46.772Z')).toBe('2026-11-23 15:19:46')
    const words = (status: string) => (status === 'cancel' ? 'cancelled' : status)
    const row = (sub: { _id: string; status: string; created_at: string }) =>
      `${sub._id},${words(sub.status)},Jane@Example.com,Starter,120,USD,yearly,${sheetTime(sub.created_at)}\n`
    expect(whole).toMatchObject({
      code: 0,
      stdout:
        '_id,status,email,package.name,package.amount,package.currency,package.frequency,created_at\n' +
        everything.slice(-3).map(row).join(''),
    })
    const newest = everything[0]
    expect(picked).toMatchObject({
      code: 0,
      stdout: `email,package.amount,status\n${newest.email},120,${words(newest.status)}\n`,
    })
  })

  test('--bom: the same CSV behind a UTF-8 byte-order mark; without --format csv it is a usage error', async () => {
    const [marked, unmarked, alone, json] = await Promise.all([
      pay(['subs', 'list', '--format', 'csv', '--bom', '--email', 'jane@example.com'], listing),
      pay(['subs', 'list', '--format', 'csv', '--email', 'jane@example.com'], listing),
      pay(['subs', 'list', '--bom'], listing),
      pay(['subs', 'list', '--bom', '--json'], listing),
    ])
    expect(unmarked.stdout.startsWith('_id,')).toBe(true)
    expect(marked).toMatchObject({ code: 0, stderr: unmarked.stderr, stdout: `\uFEFF${unmarked.stdout}` })
    expect(Buffer.from(marked.stdout).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]))
    expect(alone).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: The following error occurred:\n  All of the following must be provided when using --bom: --format\nSee `pay subs list --help`.\n',
    })
    expect(json).toMatchObject({ code: 2, stdout: '' })
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

describe('subs list --unpaid: what each owes (UNPAID, OWED; unpaid_charges, amount_owed)', () => {
  let owing: TestSandbox
  /** Newest first, as the service lists them: c owes every charge, a two of 0.10 and 0.20 USD. */
  let c: { _id: string; created_at: string; charges: number }
  let a: { _id: string; created_at: string }

  beforeAll(async () => {
    owing = await startTestSandbox()
    const monthly = owing.packageIds[2]
    const subscribe = async (email: string) =>
      (await owing.request('POST', '/subscriptions', { package_id: monthly, email })).body.data._id as string
    const ids = { a: await subscribe('a@example.com'), b: await subscribe('b@example.com') }
    const cId = await subscribe('c@example.com')
    expect((await owing.request('POST', '/_sandbox/clock', { advance: '3mo' })).status).toBe(200)
    const read = async (id: string) => (await owing.request('GET', `/subscriptions/${id}`)).body.data
    const [subA, subB, subC] = await Promise.all([read(ids.a), read(ids.b), read(cId)])
    for (const sub of [subA, subB, subC]) expect(sub.payment_links.length).toBeGreaterThanOrEqual(2)
    const pay = async (link: { _id: string }) =>
      expect((await owing.request('POST', `/_sandbox/payment-links/${link._id}/pay`)).status).toBe(200)
    for (const link of subB.payment_links) await pay(link)
    for (const link of subA.payment_links.slice(2)) await pay(link)
    for (const [link, amount] of [
      [subA.payment_links[0], '0.1'],
      [subA.payment_links[1], '0.2'],
    ] as const) {
      const { email, currency, title } = link
      const answer = await owing.request('PUT', `/payment-links/${link._id}`, {
        email,
        currency,
        title,
        amount,
      })
      expect(answer.status).toBe(200)
    }
    c = { _id: cId, created_at: subC.created_at, charges: subC.payment_links.length }
    a = { _id: ids.a, created_at: subA.created_at }
  })
  afterAll(() => owing?.close())

  test('--json: each subscription with unpaid_charges and amount_owed (summed exactly, with its currency)', async () => {
    const result = await pay(['subs', 'list', '--unpaid', '--json'], owing)
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(
      JSON.parse(result.stdout).map((sub: Record<string, unknown>) => [
        sub._id,
        sub.unpaid_charges,
        sub.amount_owed,
      ]),
    ).toEqual([
      [c._id, c.charges, { amount: 15 * c.charges, currency: 'USD' }],
      // 0.1 + 0.2 is 0.30000000000000004 in floating point: pay sums the decimals.
      [a._id, 2, { amount: 0.3, currency: 'USD' }],
    ])
    // Without --unpaid or --overdue, the records are the service's, with no field added.
    const plain = JSON.parse((await pay(['subs', 'list', '--json'], owing)).stdout)
    expect(
      plain.map((sub: Record<string, unknown>) => 'amount_owed' in sub || 'unpaid_charges' in sub),
    ).toEqual([false, false, false])
  })

  test('a table at 80 columns: UNPAID and OWED with its currency, the package price and the date dropped first', async () => {
    const table = await runInProcess(['subs', 'list', '--unpaid'], {
      env: owing.env,
      terminal: true,
      colour: false,
      width: 80,
    })
    expect(table).toMatchObject({ code: 0, stderr: '' })
    const owed = (15 * c.charges).toFixed(2)
    expect(table.stdout).toBe(
      [
        'ID                        STATUS   EMAIL          PACKAGE  UNPAID  OWED',
        `${c._id}  created  c@example.com  Monthly  ${String(c.charges).padEnd(6)}  ${owed} USD`,
        `${a._id}  created  a@example.com  Monthly  2       0.30 USD`,
        '',
      ].join('\n'),
    )
    const wide = await runInProcess(['subs', 'list', '--unpaid'], {
      env: owing.env,
      terminal: true,
      colour: false,
      width: 160,
    })
    expect(wide.stdout.split('\n')[0].split(/\s{2,}/)).toEqual([
      'ID',
      'STATUS',
      'EMAIL',
      'PACKAGE',
      'UNPAID',
      'OWED',
      'AMOUNT',
      'FREQUENCY',
      'CREATED',
    ])
  })

  test('--format csv and TSV: the count, the amount as a number and its currency in a column of its own', async () => {
    const [csv, tsv, picked] = await Promise.all([
      pay(['subs', 'list', '--unpaid', '--format', 'csv'], owing),
      pay(['subs', 'list', '--overdue', '1d'], owing),
      pay(['subs', 'list', '--unpaid', '--columns', 'email,unpaid,owed,amount_owed.currency'], owing),
    ])
    const sheetTime = (iso: string) => iso.slice(0, 19).replace('T', ' ')
    expect(csv).toMatchObject({ code: 0, stderr: '' })
    expect(csv.stdout).toBe(
      '_id,status,email,package.name,unpaid_charges,amount_owed.amount,amount_owed.currency,package.amount,package.currency,package.frequency,created_at\n' +
        `${c._id},created,c@example.com,Monthly,${c.charges},${15 * c.charges},USD,15,USD,monthly,${sheetTime(c.created_at)}\n` +
        `${a._id},created,a@example.com,Monthly,2,0.3,USD,15,USD,monthly,${sheetTime(a.created_at)}\n`,
    )
    expect(tsv.stdout).toBe(
      `${c._id}\tcreated\tc@example.com\tMonthly\t${c.charges}\t${15 * c.charges}\tUSD\t15\tUSD\tmonthly\t${c.created_at}\n` +
        `${a._id}\tcreated\ta@example.com\tMonthly\t2\t0.3\tUSD\t15\tUSD\tmonthly\t${a.created_at}\n`,
    )
    expect(picked.stdout).toBe(
      `c@example.com\t${c.charges}\t${15 * c.charges}\tUSD\na@example.com\t2\t0.3\tUSD\n`,
    )
  })

  test('--sort owed (-owed: the most first) orders by the amount owed', async () => {
    const [most, least] = await Promise.all([
      pay(['subs', 'list', '--unpaid', '--sort', '-owed', '-q'], owing),
      pay(['subs', 'list', '--unpaid', '--sort', 'amount_owed.amount', '-q'], owing),
    ])
    expect(most.stdout).toBe(`${c._id}\n${a._id}\n`)
    expect(least.stdout).toBe(`${a._id}\n${c._id}\n`)

    // Without --unpaid or --overdue nothing is counted: said so, not "unknown field".
    expect(await pay(['subs', 'list', '--sort', '-owed'], owing)).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: --sort -owed: what each subscription owes is counted with --unpaid or --overdue only.\n' +
        'Add --unpaid: pay subs list --unpaid --sort -owed\n',
    })
  })
})
