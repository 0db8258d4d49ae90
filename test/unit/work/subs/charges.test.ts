import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shown } from '../../../../src/render/result.js'
import { CommandContext } from '../../../../src/runtime/run-context.js'
import { parseDuration } from '../../../../src/shared/duration.js'
import { owedBy } from '../../../../src/work/subs/charges.js'
import { listSubscriptions } from '../../../../src/work/subs/list.js'
import { OWING_VIEW } from '../../../../src/work/subs/view.js'
import { tempDir } from '../../../helpers/cli.js'
import { envelope, type FakeServer, sendJson, startFakeServer } from '../../../helpers/fake-server.js'
import { TestIO } from '../../../helpers/io.js'
import { fakeEnv } from '../../../helpers/links.js'

/**
 * `subs list --overdue` measures a charge's age by the service's clock (each page's
 * meta.timestamp), never by this machine's: here the service's clock is in 2040, so a charge made
 * in 2040 is overdue by the service's clock and not made yet by this machine's.
 */

const SERVICE_TIME = '2040-06-01 00:00:00 UTC'
const charge = (paid: boolean, created_at: string) => ({ paid, created_at, amount: 15, currency: 'USD' })
const SUBSCRIPTIONS = [
  { _id: 's-2020', payment_links: [charge(false, '2020-04-01T00:00:00Z')] },
  { _id: 's-2040-april', payment_links: [charge(false, '2040-04-01T00:00:00Z')] },
  { _id: 's-2040-may-30', payment_links: [charge(false, '2040-05-30T00:00:00Z')] },
  { _id: 's-paid', payment_links: [charge(true, '2040-01-01T00:00:00Z')] },
]

let fake: FakeServer
beforeAll(async () => {
  fake = await startFakeServer((request, response) => {
    const body = {
      ...envelope({ data: SUBSCRIPTIONS, next_page_url: null }),
      meta: { timestamp: SERVICE_TIME },
    }
    sendJson(response, 200, request.path.startsWith('/bare/') ? SUBSCRIPTIONS : body)
  })
})
afterAll(() => fake?.close())

async function overdue(duration: string, baseUrl = fake.baseUrl) {
  const io = new TestIO()
  const env = {
    ...fakeEnv(fake),
    PAY_BASE_URL: baseUrl,
    PAY_CONFIG_DIR: tempDir('pay-config-'),
    PAY_JOURNAL: '0',
  }
  const context = await CommandContext.create({
    command: 'pay subs list',
    userAgent: 'pay/test',
    io,
    env,
    output: { json: true },
  })
  const found = await listSubscriptions({ overdue: parseDuration(duration) }, context)
  await context.show([
    shown.list(found.batches, found.view, found.outcome),
    shown.later(() => found.warnings().map(shown.warn)),
  ])
  await context.close()
  expect(found.view).toBe(OWING_VIEW)
  return { ids: JSON.parse(io.stdout.text).map((sub: { _id: string }) => sub._id), stderr: io.stderr.text }
}

describe('subs list --overdue', () => {
  it("measures by the service's meta.timestamp, years ahead of this machine's clock", async () => {
    expect(await overdue('30d')).toEqual({ ids: ['s-2020', 's-2040-april'], stderr: '' })
    expect(await overdue('1d')).toEqual({ ids: ['s-2020', 's-2040-april', 's-2040-may-30'], stderr: '' })
    expect((await overdue('2y')).ids).toEqual(['s-2020'])
  })

  it("an answer without meta.timestamp: this machine's clock, and a warning that says so", async () => {
    expect(await overdue('30d', `${fake.baseUrl}/bare`)).toEqual({
      ids: ['s-2020'],
      stderr:
        "Warning: The service's answers carried no meta.timestamp: ages were measured by this machine's clock.\n",
    })
  })
})

describe('owedBy: what a subscription owes, as subs list --unpaid shows it', () => {
  const entry = (paid: unknown, amount: unknown, currency: unknown) => ({ _id: 'l', paid, amount, currency })

  it('counts the unpaid charges and sums their amounts exactly, in their currency; paid ones are left out', () => {
    const subscription = {
      _id: 's1',
      status: 'created',
      payment_links: [entry(false, 0.1, 'EUR'), entry(true, 500, 'EUR'), entry(false, 0.2, 'EUR')],
    }
    const owed = owedBy(subscription)
    // 0.1 + 0.2 in floating point is 0.30000000000000004.
    expect(owed).toEqual({
      ...subscription,
      unpaid_charges: 2,
      amount_owed: { amount: 0.3, currency: 'EUR' },
    })
    expect(Object.keys(owed).slice(-2)).toEqual(['unpaid_charges', 'amount_owed'])
    // The record given is left as it was.
    expect(Object.keys(subscription)).toEqual(['_id', 'status', 'payment_links'])
    expect(owedBy({ payment_links: [entry(false, 1000, 'JPY'), entry(false, '500', 'JPY')] })).toMatchObject({
      unpaid_charges: 2,
      amount_owed: { amount: 1500, currency: 'JPY' },
    })
    expect(owedBy({ payment_links: [entry(false, 1.5, 'KWD'), entry(false, 0.001, 'KWD')] })).toMatchObject({
      amount_owed: { amount: 1.501, currency: 'KWD' },
    })
  })

  it('nothing unpaid is 0 charges and no amount; an amount it cannot sum is null, never a guess', () => {
    const owed = (...entries: unknown[]) => {
      const { unpaid_charges, amount_owed } = owedBy({ payment_links: entries })
      return { unpaid_charges, amount_owed }
    }
    expect(owed()).toEqual({ unpaid_charges: 0, amount_owed: null })
    expect(owedBy({ _id: 's' })).toEqual({ _id: 's', unpaid_charges: 0, amount_owed: null })
    expect(owed(entry(true, 15, 'USD'))).toEqual({ unpaid_charges: 0, amount_owed: null })
    // Entries that do not say paid false are not counted: neither an id nor a missing or other paid.
    expect(
      owed('l1', entry(undefined, 15, 'USD'), entry('false', 15, 'USD'), entry(false, 15, 'USD')),
    ).toEqual({
      unpaid_charges: 1,
      amount_owed: { amount: 15, currency: 'USD' },
    })
    expect(owed(entry(false, 15, 'USD'), entry(false, 10, 'EUR'))).toEqual({
      unpaid_charges: 2,
      amount_owed: null,
    })
    expect(owed(entry(false, 15, 'USD'), entry(false, undefined, 'USD'))).toEqual({
      unpaid_charges: 2,
      amount_owed: null,
    })
    expect(owed(entry(false, 15, undefined))).toEqual({ unpaid_charges: 1, amount_owed: null })
    expect(owed(entry(false, 'fifteen', 'USD'))).toEqual({ unpaid_charges: 1, amount_owed: null })
  })
})
