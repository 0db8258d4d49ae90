import { createRequire } from 'node:module'
import path from 'node:path'
import type Libsql from 'libsql'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BILLING } from '../../../../src/sandbox/store/schedule.js'
import { DURATION_FORMS } from '../../../../src/shared/duration.js'
import { BROWSER_SAME_ORIGIN, card, formFields, get, post } from '../../../helpers/pages.js'
import {
  clientFor,
  invalid,
  KEY_B,
  META_TIMESTAMP,
  startTestSandbox,
  type TestSandbox,
  tempDir,
  VALID_LINK,
} from '../../../helpers/sandbox.js'

/**
 * The sandbox clock and the charges of subscriptions over HTTP: `GET/POST
 * /_sandbox/clock`, what a charge is, what cancelling and deleting do, billing as real time
 * passes, and the charge's payment page. The calendar itself: calendar.test.ts.
 */

const DAY = 86_400_000
const open: TestSandbox[] = []
afterEach(async () => {
  vi.useRealTimers()
  await Promise.all(open.splice(0).map((t) => t.close()))
})

async function sandbox(dir?: string): Promise<TestSandbox> {
  const t = await startTestSandbox({ dir })
  open.push(t)
  return t
}

/** The seeded packages of the first business: Starter (yearly), Business (yearly), Monthly. */
const monthlyOf = (t: TestSandbox) => t.packageIds[2]

async function subscribe(t: TestSandbox, packageId = monthlyOf(t), fields: Record<string, string> = {}) {
  const answer = await t.a.call('POST', '/subscriptions', {
    package_id: packageId,
    email: 'jane@example.com',
    ...fields,
  })
  expect(answer.status).toBe(200)
  return answer.json.data
}

const moveClock = (t: TestSandbox, body: unknown) => t.a.call('POST', '/_sandbox/clock', body)
const subscription = async (t: TestSandbox, id: string) =>
  (await t.a.call('GET', `/subscriptions/${id}`)).json.data

/** The first of the month after `at`, as YYYY-MM-DD (the Monthly package bills on the 1st). */
function firstOfNextMonth(at: number, months = 1): string {
  const date = new Date(at)
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1)).toISOString().slice(0, 10)
}

describe('the clock', () => {
  it('is real time with no offset at first; advance moves it, for every business, and it survives a restart', async () => {
    const dir = tempDir('pay-clock-')
    const t = await sandbox(dir)
    const asked = Date.now()
    const start = await t.a.call('GET', '/_sandbox/clock')
    const answered = Date.now()
    expect(start.status).toBe(200)
    expect(start.json).toMatchObject({ success: true, errors: null, data: { offset_seconds: 0 } })
    // Real time: while the request was under way.
    expect(Date.parse(start.json.data.now)).toBeGreaterThanOrEqual(asked)
    expect(Date.parse(start.json.data.now)).toBeLessThanOrEqual(answered)

    const before = Date.now()
    const moved = await moveClock(t, { advance: '30d' })
    expect(moved.status).toBe(200)
    expect(moved.json.data).toEqual({ now: expect.any(String), charges_created: 0 })
    expect(Date.parse(moved.json.data.now) - before).toBeGreaterThanOrEqual(30 * DAY)
    expect(moved.json.meta.timestamp).toBe(
      `${moved.json.data.now.slice(0, 10)} ${moved.json.data.now.slice(11, 19)} UTC`,
    )

    const b = await t.b.call('GET', '/_sandbox/clock')
    expect(b.json.data.offset_seconds).toBe(30 * 86_400)
    await t.close()
    open.splice(0)
    const again = await sandbox(dir)
    expect((await again.a.call('GET', '/_sandbox/clock')).json.data.offset_seconds).toBe(30 * 86_400)
  })

  it('stamps every timestamp it writes with sandbox time: created_at, updated_at, meta.timestamp', async () => {
    const t = await sandbox()
    await moveClock(t, { advance: '1y' })
    const realNow = Date.now()
    const link = await t.a.call('POST', '/payment-links', VALID_LINK)
    const created = Date.parse(link.json.data.created_at)
    expect(created - realNow).toBeGreaterThan(360 * DAY)
    expect(link.json.meta.timestamp).toMatch(META_TIMESTAMP)
    expect(
      Date.parse(link.json.meta.timestamp.replace(' UTC', 'Z').replace(' ', 'T')) - realNow,
    ).toBeGreaterThan(360 * DAY)
    const sub = await subscribe(t)
    expect(Date.parse(sub.created_at) - realNow).toBeGreaterThan(360 * DAY)
    await moveClock(t, { advance: '2d' })
    const paid = await t.a.call('POST', `/_sandbox/payment-links/${link.json.data._id}/pay`)
    expect(Date.parse(paid.json.data.updated_at) - created).toBeGreaterThanOrEqual(2 * DAY)
    const cancelled = await t.a.call('PUT', `/subscriptions/${sub._id}`, { status: 'cancel' })
    expect(Date.parse(cancelled.json.data.updated_at) - Date.parse(sub.created_at)).toBeGreaterThanOrEqual(
      2 * DAY,
    )
  })

  it('only goes forward: a time before its own is refused and changes nothing; the same day changes nothing', async () => {
    const t = await sandbox()
    await moveClock(t, { to: '2031-06-15T12:00:00Z' })
    const refused = await moveClock(t, { to: '2031-06-14' })
    expect(refused.status).toBe(422)
    expect(refused.json).toEqual(
      invalid({
        to: [
          expect.stringMatching(
            /^2031-06-14T00:00:00\.000Z is before the sandbox's time, 2031-06-15T12:00:\d\d\.\d{3}Z: the clock only goes forward\.$/,
          ),
        ],
      }),
    )
    const same = await moveClock(t, { to: '2031-06-15' })
    expect(same.status).toBe(200)
    expect(same.json.data.charges_created).toBe(0)
    expect(same.json.data.now.slice(0, 16)).toBe('2031-06-15T12:00')
    const clock = (await t.a.call('GET', '/_sandbox/clock')).json.data
    expect(clock.now.slice(0, 16)).toBe('2031-06-15T12:00')
  })

  it.each([
    [{}, 'advance', 'Send one of advance (a duration, e.g. "30d") and to (a date, e.g. "2027-01-01").'],
    [
      { advance: '1d', to: '2031-01-01' },
      'to',
      'Send one of advance (a duration, e.g. "30d") and to (a date, e.g. "2027-01-01").',
    ],
    [{ advance: '3x' }, 'advance', `The advance must be a duration: ${DURATION_FORMS}.`],
    [{ advance: 30 }, 'advance', `The advance must be a duration: ${DURATION_FORMS}.`],
    [
      { to: '2031-02-30' },
      'to',
      'The to field must be a date, 2027-01-01 (midnight UTC), or a date and time, 2027-01-01T09:30:00Z.',
    ],
    [
      { to: 20310101 },
      'to',
      'The to field must be a date, 2027-01-01 (midnight UTC), or a date and time, 2027-01-01T09:30:00Z.',
    ],
  ])('refuses %j with a 422 naming what it takes', async (body, field, message) => {
    const t = await sandbox()
    const answer = await moveClock(t, body)
    expect(answer.status).toBe(422)
    expect(answer.json).toEqual(invalid({ [field]: [message] }))
    expect((await t.a.call('GET', '/_sandbox/clock')).json.data.offset_seconds).toBe(0)
  })

  it('needs a key the sandbox serves', async () => {
    const t = await sandbox()
    const answer = await clientFor(t.baseUrl, null).call('POST', '/_sandbox/clock', { advance: '1d' })
    expect(answer.status).toBe(401)
    expect((await t.a.call('GET', '/_sandbox/clock')).json.data.offset_seconds).toBe(0)
  })

  it('goes back to real time with a reset, and the charges go with the records', async () => {
    const t = await sandbox()
    await subscribe(t)
    expect((await moveClock(t, { advance: '3mo' })).json.data.charges_created).toBeGreaterThanOrEqual(3)
    expect((await t.a.call('POST', '/_sandbox/reset')).status).toBe(200)
    expect((await t.a.call('GET', '/_sandbox/clock')).json.data.offset_seconds).toBe(0)
    expect((await t.a.call('GET', '/payment-links')).json.data.total).toBe(0)
    const counts = t.sandbox.database
    const db = new (createRequire(import.meta.url)('libsql') as typeof Libsql)(counts)
    try {
      for (const table of ['charges', 'schedules']) {
        expect((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n).toBe(0)
      }
    } finally {
      db.close()
    }
  })
})

describe('charges', () => {
  it("are listed in the subscription's payment_links, oldest first, with their paid as it is now", async () => {
    const t = await sandbox()
    const sub = await subscribe(t, monthlyOf(t), { phone_no: '+1 555 0100' })
    expect(sub.payment_links).toEqual([])
    const moved = await moveClock(t, { advance: '3mo' })
    const now = Date.parse(moved.json.data.now)
    const dates = [1, 2, 3].map((months) => firstOfNextMonth(Date.parse(sub.created_at), months))
    const expected = dates.filter((date) => Date.parse(date) <= now)
    expect(moved.json.data.charges_created).toBe(expected.length)

    const billed = await subscription(t, sub._id)
    expect(billed.payment_links.map((link: { created_at: string }) => link.created_at.slice(0, 10))).toEqual(
      expected,
    )
    const [first, second] = billed.payment_links
    expect(first).toMatchObject({
      email: 'jane@example.com',
      phone_no: '+1 555 0100',
      currency: 'USD',
      amount: 15,
      title: `Monthly: ${expected[0]} to ${new Date(Date.parse(expected[1] ?? dates[1]) - DAY).toISOString().slice(0, 10)}`,
      reference: sub._id,
      status: 'Active',
      paid: false,
      payment_url: `${t.baseUrl}/checkout/pay?id=${first._id}`,
    })
    // A link like any other: get, list, and the customer paying it shows in the subscription at once.
    expect((await t.a.call('GET', `/payment-links/${first._id}`)).json.data).toEqual(first)
    expect((await t.a.call('POST', `/_sandbox/payment-links/${second._id}/pay`)).status).toBe(200)
    const after = await subscription(t, sub._id)
    expect(after.payment_links.map((link: { paid: boolean }) => link.paid)).toEqual(
      expected.map((_, i) => i === 1),
    )
    const listed = (await t.a.call('GET', '/subscriptions')).json.data.data[0]
    expect(listed.payment_links).toEqual(after.payment_links)
    // The other business sees none of it.
    expect((await t.b.call('GET', `/payment-links/${first._id}`)).status).toBe(404)
  })

  it('stop when a subscription is cancelled (those made stay) and outlive a deleted subscription as links', async () => {
    const t = await sandbox()
    const cancelled = await subscribe(t)
    const deleted = await subscribe(t)
    await moveClock(t, { advance: '2mo' })
    const made = (await subscription(t, cancelled._id)).payment_links
    const deletedLinks = (await subscription(t, deleted._id)).payment_links
    expect(made.length).toBeGreaterThanOrEqual(1)
    expect((await t.a.call('PUT', `/subscriptions/${cancelled._id}`, { status: 'cancel' })).status).toBe(200)
    expect((await t.a.call('DELETE', `/subscriptions/${deleted._id}`)).status).toBe(200)
    expect((await moveClock(t, { advance: '1y' })).json.data.charges_created).toBe(0)
    expect((await subscription(t, cancelled._id)).payment_links).toEqual(made)
    for (const link of deletedLinks) {
      expect((await t.a.call('GET', `/payment-links/${link._id}`)).json.data).toEqual(link)
    }
  })

  it('a charge link deleted leaves the subscription without it, and is not made again', async () => {
    const t = await sandbox()
    const sub = await subscribe(t)
    await moveClock(t, { advance: '2mo' })
    const [first, ...rest] = (await subscription(t, sub._id)).payment_links
    expect((await t.a.call('DELETE', `/payment-links/${first._id}`)).status).toBe(200)
    await moveClock(t, { advance: '1d' })
    const after = (await subscription(t, sub._id)).payment_links
    expect(after.slice(0, rest.length)).toEqual(rest)
    expect(after.map((link: { created_at: string }) => link.created_at)).not.toContain(first.created_at)
  })

  it('are made as real time passes, by the next request, naming the address it came to', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const t = await sandbox()
    const sub = await subscribe(t)
    vi.setSystemTime(Date.now() + 62 * DAY)
    const billed = (await subscription(t, sub._id)).payment_links
    expect(billed.length).toBeGreaterThanOrEqual(2)
    expect(billed[0].payment_url).toBe(`${t.baseUrl}/checkout/pay?id=${billed[0]._id}`)
    const answer = await get(t.baseUrl, '/subscriptions', 'GET')
    expect(answer.status).toBe(401) // the public can neither read nor bill anything
  })

  it('a charge page names the package and the period; paying it shows in the subscription at once', async () => {
    const t = await sandbox()
    const sub = await subscribe(t, t.packageIds[0]) // Starter, yearly from 2025-01-01
    await moveClock(t, { advance: '1y' })
    const [charge] = (await subscription(t, sub._id)).payment_links
    const year = charge.created_at.slice(0, 4)
    const path = `/checkout/pay?id=${charge._id}`
    const page = await get(t.baseUrl, path)
    expect(page.status).toBe(200)
    // The dates of the title are kept whole: a phone's narrow screen never breaks one at a hyphen.
    expect(card(page.text)).toContain(
      `<h1 dir="auto">Starter: <span class="nowrap">${year}-01-01</span> to <span class="nowrap">${year}-12-31</span></h1>`,
    )
    expect(card(page.text)).toContain(
      `<dl class="details"><dt>Package</dt><dd dir="auto">Starter</dd><dt>Period</dt><dd dir="auto">1 Jan ${year} – 31 Dec ${year}</dd><dt>Subscription</dt><dd dir="auto">${sub._id}</dd></dl>`,
    )
    const paid = await post(t.baseUrl, path, formFields(page.text), BROWSER_SAME_ORIGIN)
    expect(paid.status).toBe(200)
    expect(card(paid.text)).toContain('<dt>Period</dt>')
    expect((await subscription(t, sub._id)).payment_links[0].paid).toBe(true)
  })
})

describe('the statements of billing', () => {
  const Database = createRequire(import.meta.url)('libsql') as typeof Libsql

  it.each(Object.entries(BILLING))(
    '%s reads no table whole: its rows are found through an index',
    async (_, sql) => {
      const t = await sandbox()
      await t.close()
      open.splice(0)
      const db = new Database(path.join(t.dir, 'store.db'))
      const named = [...sql.matchAll(/:(\w+)/g)].map((match) => match[1])
      const parameters = named.length ? Object.fromEntries(named.map((name) => [name, '1'])) : undefined
      const positional = Array.from(sql.matchAll(/\?/g), () => '1')
      const statement = db.prepare(`EXPLAIN QUERY PLAN ${sql}`)
      const plan = (parameters ? statement.all(parameters) : statement.all(...positional)) as {
        detail: string
      }[]
      db.close()
      for (const { detail } of plan) {
        expect(detail, sql).not.toMatch(/^SCAN (schedules|charges|payment_links|subscriptions|businesses)\b/)
      }
    },
  )
})

describe('another business', () => {
  it('moves the same clock', async () => {
    const t = await sandbox()
    await clientFor(t.baseUrl, KEY_B).call('POST', '/_sandbox/clock', { advance: '2d' })
    expect((await t.a.call('GET', '/_sandbox/clock')).json.data.offset_seconds).toBe(2 * 86_400)
  })
})
