import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { DURATION_FORMS } from '../../../src/shared/duration.js'
import { runCli } from '../../helpers/cli.js'
import { envelope, type FakeServer, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import { FAKE_KEY } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTerminal } from '../../helpers/terminal.js'

/**
 * Finance's view of charges: `subs get` shows them, `subs list --unpaid` and
 * `--overdue DURATION` find who has not paid, by the service's own clock, on every page; entries a
 * service gives without `paid`/`created_at` are neither counted nor silently hidden.
 */

let sandbox: TestSandbox
const DAY = 86_400_000
/** The subscriptions of the story, by name, and their charges' link ids, oldest first. */
const subs: Record<string, { _id: string; charges: { _id: string; created_at: string; paid: boolean }[] }> =
  {}
let others: string[]

const pay = (args: string[]) => runCli(args, { env: sandbox.env })
const payLink = async (id: string) => {
  expect((await sandbox.request('POST', `/_sandbox/payment-links/${id}/pay`)).status).toBe(200)
}

beforeAll(async () => {
  sandbox = await startTestSandbox()
  const monthly = sandbox.packageIds[2]
  const subscribe = async (email: string) =>
    (await sandbox.request('POST', '/subscriptions', { package_id: monthly, email })).body.data._id as string
  const ids = {
    allUnpaid: await subscribe('all-unpaid@example.com'),
    latestUnpaid: await subscribe('latest-unpaid@example.com'),
    allPaid: await subscribe('all-paid@example.com'),
    middleUnpaid: await subscribe('middle-unpaid@example.com'),
    cancelled: await subscribe('cancelled@example.com'),
  }
  // The sandbox's clock goes 14 months ahead of this machine's: every charge is dated in this
  // machine's future, and the latest one is less than 30 days old by the sandbox's clock.
  const now = new Date(Date.now() + 14 * 31 * DAY)
  const target = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 10)).toISOString().slice(0, 10)
  expect((await sandbox.request('POST', '/_sandbox/clock', { to: target })).status).toBe(200)
  for (const [name, id] of Object.entries(ids)) {
    subs[name] = {
      _id: id,
      charges: (await sandbox.request('GET', `/subscriptions/${id}`)).body.data.payment_links,
    }
    expect(subs[name].charges.length).toBeGreaterThanOrEqual(13)
  }
  for (const charge of subs.latestUnpaid.charges.slice(0, -1)) await payLink(charge._id)
  for (const charge of subs.allPaid.charges) await payLink(charge._id)
  for (const charge of subs.middleUnpaid.charges.filter((_, i) => i !== 3)) await payLink(charge._id)
  await sandbox.request('PUT', `/subscriptions/${ids.cancelled}`, { status: 'cancel' })
  // 55 newer subscriptions without a charge fill the first page of 50: the story is on the second.
  others = []
  for (let i = 0; i < 55; i++) others.push(await subscribe(`new${i}@example.com`))
})
afterAll(async () => {
  await closeTerminals()
  await sandbox?.close()
})

const ids = (...names: string[]) => names.map((name) => subs[name]._id)
/** Newest first, as the service lists them. */
const NEWEST_FIRST = ['cancelled', 'middleUnpaid', 'allPaid', 'latestUnpaid', 'allUnpaid']

describe('subs get', () => {
  test('piped: the record, then a line per charge: charge, date, amount, currency, paid, link id', async () => {
    const result = await pay(['subs', 'get', subs.middleUnpaid._id])
    expect(result).toMatchObject({ code: 0, stderr: '' })
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines.filter((line) => !line.startsWith('charge\t'))).toContain(`_id\t${subs.middleUnpaid._id}`)
    expect(lines.filter((line) => line.startsWith('charge\t'))).toEqual(
      subs.middleUnpaid.charges.map(
        (charge, i) => `charge\t${charge.created_at.slice(0, 10)}\t15\tUSD\t${i !== 3}\t${charge._id}`,
      ),
    )
    // The charge lines come last.
    expect(lines.findIndex((line) => line.startsWith('charge\t'))).toBe(
      lines.length - subs.middleUnpaid.charges.length,
    )
  })

  test('--json is the record as the service gives it, charges included; -q and --columns print no charge', async () => {
    const [json, quiet, columns] = await Promise.all([
      pay(['subs', 'get', subs.allUnpaid._id, '--json']),
      pay(['subs', 'get', subs.allUnpaid._id, '-q']),
      pay(['subs', 'get', subs.allUnpaid._id, '--columns', 'status']),
    ])
    expect(JSON.parse(json.stdout)).toEqual(
      (await sandbox.request('GET', `/subscriptions/${subs.allUnpaid._id}`)).body.data,
    )
    expect(quiet.stdout).toBe(`${subs.allUnpaid._id}\n`)
    expect(columns.stdout).toBe('created\n')
  })

  test('on a terminal of 80 columns: a table of the charges under the record', async () => {
    const term = await startTerminal(['subs', 'get', subs.latestUnpaid._id], { env: sandbox.env, height: 60 })
    expect(await term.exitCode()).toBe(0)
    const screen = (await term.screen()).trimEnd().split('\n')
    const title = screen.findIndex((line) => line.startsWith('Charges ('))
    expect(screen[title]).toBe(`Charges (${subs.latestUnpaid.charges.length}, 1 unpaid)`)
    expect(screen[title - 1]).toBe('')
    expect(screen[title + 1].split(/\s{2,}/)).toEqual(['DATE', 'AMOUNT', 'PAID', 'LINK ID'])
    expect(screen.slice(title + 2).map((line) => line.split(/\s{2,}/))).toEqual(
      subs.latestUnpaid.charges.map((charge, i, all) => [
        charge.created_at.slice(0, 10),
        '15.00 USD',
        String(i !== all.length - 1),
        charge._id,
      ]),
    )
  })
})

describe('subs list --unpaid / --overdue', () => {
  test('--unpaid: every subscription with an unpaid charge, searching every page', async () => {
    const result = await pay(['subs', 'list', '--unpaid', '-q'])
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(
      ids(...NEWEST_FIRST.filter((name) => name !== 'allPaid'))
        .map((id) => `${id}\n`)
        .join(''),
    )
    expect(result.stderr).toBe('Searched 60 subscriptions on 2 pages.\n')
    // What each owes: its unpaid charges, and their sum with the currency.
    const json = await pay(['subs', 'list', '--unpaid', '--json'])
    const unpaid = (name: string) =>
      subs[name].charges.filter((_, i, all) => {
        if (name === 'latestUnpaid') return i === all.length - 1
        if (name === 'middleUnpaid') return i === 3
        return true
      }).length
    expect(
      JSON.parse(json.stdout).map((sub: Record<string, unknown>) => [
        sub._id,
        sub.unpaid_charges,
        sub.amount_owed,
      ]),
    ).toEqual(
      NEWEST_FIRST.filter((name) => name !== 'allPaid').map((name) => [
        subs[name]._id,
        unpaid(name),
        { amount: 15 * unpaid(name), currency: 'USD' },
      ]),
    )
    expect(unpaid('latestUnpaid')).toBe(1)
  })

  test("--overdue 30d: by the sandbox's clock, 14 months ahead of this machine's", async () => {
    const result = await pay(['subs', 'list', '--overdue', '30d', '-q'])
    expect(result).toMatchObject({ code: 0, stderr: 'Searched 60 subscriptions on 2 pages.\n' })
    // By this machine's clock none would be: every charge is dated in its future.
    expect(result.stdout).toBe(
      ids('cancelled', 'middleUnpaid', 'allUnpaid')
        .map((id) => `${id}\n`)
        .join(''),
    )
    const created = await pay(['subs', 'list', '--overdue', 'P1M', '--status', 'created', '--json'])
    expect(JSON.parse(created.stdout).map((sub: { _id: string }) => sub._id)).toEqual(
      ids('middleUnpaid', 'allUnpaid'),
    )
    const jq = await pay(['subs', 'list', '--overdue', '30d', '--jq', '.[].email'])
    expect(jq.stdout).toBe('cancelled@example.com\nmiddle-unpaid@example.com\nall-unpaid@example.com\n')
    const jsonl = await pay(['subs', 'list', '--overdue', '30d', '--jsonl', '--status', 'cancelled'])
    expect(
      jsonl.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)._id),
    ).toEqual(ids('cancelled'))
  })

  test('--overdue longer than the oldest unpaid charge finds none: [] and exit 0', async () => {
    const result = await pay(['subs', 'list', '--overdue', '2y', '--json'])
    expect(result).toMatchObject({ code: 0, stdout: '[]\n' })
  })

  test('a duration that means nothing is exit 2, naming the forms', async () => {
    const result = await pay(['subs', 'list', '--overdue', '30'])
    expect(result).toMatchObject({ code: 2, stdout: '' })
    expect(result.stderr).toBe(
      `Error: --overdue: Expected a duration, ${DURATION_FORMS}; received: 30\nSee \`pay subs list --help\`.\n`,
    )
  })
})

describe('a service whose charges the spec does not show, and whose clock is its own', () => {
  let fake: FakeServer
  const entries = {
    unpaidOld: {
      _id: 's-unpaid-old',
      payment_links: [
        { _id: 'l1', paid: false, created_at: '2020-04-01T00:00:00Z', amount: 9.5, currency: 'EUR' },
      ],
    },
    // 12 days old by the service's clock (2020-06-01), years by this machine's.
    unpaidRecent: {
      _id: 's-unpaid-recent',
      payment_links: [{ paid: false, created_at: '2020-05-20T00:00:00Z' }],
    },
    paid: { _id: 's-paid', payment_links: [{ paid: true, created_at: '2020-01-01T00:00:00Z' }] },
    noPaid: { _id: 's-no-paid', payment_links: [{ _id: 'l2', created_at: '2020-01-01T00:00:00Z' }] },
    ids: { _id: 's-ids', payment_links: ['l3', 'l4'] },
    noDate: { _id: 's-no-date', payment_links: [{ paid: false }] },
    none: { _id: 's-none' },
    empty: { _id: 's-empty', payment_links: [] },
  }
  const list = Object.values(entries)
  beforeAll(async () => {
    fake = await startFakeServer((request, res) => {
      if (request.path.startsWith('/bare')) return sendJson(res, 200, list)
      const body = envelope({ data: list, next_page_url: null })
      sendJson(res, 200, { ...body, meta: { timestamp: '2020-06-01 00:00:00 UTC', timezone: 'UTC' } })
    })
  })
  afterAll(() => fake?.close())
  const run = (args: string[], base = fake.baseUrl) =>
    runCli(args, { env: { PAY_API_KEY: FAKE_KEY, PAY_BASE_URL: base } })

  test('--unpaid: entries without paid are not counted, and stderr says which could not be judged', async () => {
    const result = await run(['subs', 'list', '--unpaid', '-q'])
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('s-unpaid-old\ns-unpaid-recent\ns-no-date\n')
    expect(result.stderr).toBe(
      'Warning: 3 subscriptions could not be judged (charges without paid), so they are not listed: s-no-paid, s-ids, s-none.\n' +
        'Warning: The amount owed by 2 subscriptions could not be summed (an unpaid charge without amount or currency, ' +
        'or charges in more than one currency), so amount_owed is null (an empty cell): s-unpaid-recent, s-no-date.\n',
    )
    const csv = await run([
      'subs',
      'list',
      '--unpaid',
      '--format',
      'csv',
      '--columns',
      'id,unpaid,owed,amount_owed.currency',
    ])
    expect(csv.stdout).toBe(
      '_id,unpaid_charges,amount_owed.amount,amount_owed.currency\ns-unpaid-old,1,9.5,EUR\ns-unpaid-recent,1,,\ns-no-date,1,,\n',
    )
  })

  test("--overdue 30d: by the service's meta.timestamp, not this machine's clock", async () => {
    const result = await run(['subs', 'list', '--overdue', '30d', '--json'])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).map((sub: { _id: string }) => sub._id)).toEqual(['s-unpaid-old'])
    expect(result.stderr).toBe(
      'Warning: 4 subscriptions could not be judged (charges without paid or created_at), so they are not listed: s-no-paid, s-ids, s-no-date, s-none.\n',
    )
  })

  test("an answer without meta.timestamp: this machine's clock, and a warning", async () => {
    const result = await run(['subs', 'list', '--overdue', '30d', '-q'], `${fake.baseUrl}/bare`)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('s-unpaid-old\ns-unpaid-recent\n')
    expect(result.stderr.split('\n')[0]).toBe(
      "Warning: The service's answers carried no meta.timestamp: ages were measured by this machine's clock.",
    )
  })
})
