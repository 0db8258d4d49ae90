import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shown } from '../../../../src/render/result.js'
import { CommandContext } from '../../../../src/runtime/run-context.js'
import { parseDuration } from '../../../../src/shared/duration.js'
import { listSubscriptions } from '../../../../src/work/subs/list.js'
import { SUBSCRIPTION_VIEW } from '../../../../src/work/subs/view.js'
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
const SUBSCRIPTIONS = [
  { _id: 's-2020', payment_links: [{ paid: false, created_at: '2020-04-01T00:00:00Z' }] },
  { _id: 's-2040-april', payment_links: [{ paid: false, created_at: '2040-04-01T00:00:00Z' }] },
  { _id: 's-2040-may-30', payment_links: [{ paid: false, created_at: '2040-05-30T00:00:00Z' }] },
  { _id: 's-paid', payment_links: [{ paid: true, created_at: '2040-01-01T00:00:00Z' }] },
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
    shown.list(found.batches, SUBSCRIPTION_VIEW, found.outcome),
    shown.later(() => found.warnings().map(shown.warn)),
  ])
  await context.close()
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
