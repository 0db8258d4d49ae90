import { afterEach, describe, expect, it, vi } from 'vitest'
import { businessOf, keyHash, PACKAGE_SLUGS } from '../../../../src/sandbox/domain/business.js'
import {
  checkFixtures,
  FixtureSyntaxError,
  parseFixtures,
  seedFixtures,
  seedIn,
} from '../../../../src/sandbox/handlers/double/fixtures.js'
import { SandboxStore } from '../../../../src/sandbox/store/store.js'
import {
  clientFor,
  KEY_A,
  KEY_B,
  OBJECT_ID,
  readStore,
  startTestSandbox,
  type TestSandbox,
  tempDir,
} from '../../../helpers/sandbox.js'

/**
 * Fixtures at the store level: checked by the API's rules, named per entry and
 * field, seeded in one transaction, names kept for `once`. The commands are in
 * test/e2e/sandbox/seed.test.ts.
 */

const ORIGIN = 'http://127.0.0.1:4999'
const LINK = { email: 'ada@example.com', currency: 'EUR', amount: '25.50', title: 'Invoice 42' }
const FIXTURES = {
  tokenizations: [{ name: 'ada-card', email: 'ada@example.com', title: 'Card', description: 'On file' }],
  links: [
    { name: 'inv-42', ...LINK, paid: true },
    { name: 'inv-43', ...LINK, amount: '10' },
  ],
  subscriptions: [
    { name: 'ada-monthly', package: 'monthly', email: 'ada@example.com' },
    { name: 'ada-cancelled', package: 'monthly', email: 'ada@example.com', status: 'cancel' },
  ],
}

const stores: SandboxStore[] = []
const running: TestSandbox[] = []
afterEach(async () => {
  for (const store of stores.splice(0)) store.close()
  await Promise.all(running.splice(0).map((t) => t.close()))
  vi.restoreAllMocks()
})

const business = (dir: string, key = KEY_A) => readStore(dir).businesses[keyHash(key)]
const seededNames = (dir: string) => {
  const store = new SandboxStore(dir)
  try {
    return store.statement('SELECT name, kind, id FROM seeded ORDER BY name', 'all')
  } finally {
    store.close()
  }
}

describe('seedFixtures', () => {
  it('makes every record as the API would, with paid links and cancelled subscriptions, and names them', () => {
    const dir = tempDir()
    const done = seedIn(dir, KEY_A, FIXTURES, { origin: ORIGIN })
    if (!done.ok) throw new Error(JSON.stringify(done.errors))
    const { ids, records } = done.value
    expect(Object.keys(ids)).toEqual(['ada-card', 'inv-42', 'inv-43', 'ada-monthly', 'ada-cancelled'])
    for (const id of Object.values(ids)) expect(id).toMatch(OBJECT_ID)
    expect(records.map((r) => [r.name, r.kind, r.skipped])).toEqual([
      ['ada-card', 'tokenization', false],
      ['inv-42', 'payment_link', false],
      ['inv-43', 'payment_link', false],
      ['ada-monthly', 'subscription', false],
      ['ada-cancelled', 'subscription', false],
    ])
    const seen = business(dir)
    const paidLink = seen.payment_links[ids['inv-42']] as Record<string, unknown>
    expect(paidLink).toMatchObject({ ...LINK, amount: 25.5, paid: true, status: 'Active' })
    expect(paidLink.payment_url).toBe(`${ORIGIN}/checkout/pay?id=${ids['inv-42']}`)
    expect((seen.payment_links[ids['inv-43']] as Record<string, unknown>).paid).toBe(false)
    const monthly = seen.subscriptions[ids['ada-monthly']] as Record<string, unknown>
    const packages = businessOf(KEY_A).packages
    expect(monthly.package_id).toBe(packages[PACKAGE_SLUGS.indexOf('monthly')]._id)
    expect((seen.subscriptions[ids['ada-cancelled']] as Record<string, unknown>).status).toBe('cancel')
    expect(Object.keys(seen.tokenizations)).toHaveLength(1)
    // Another business has nothing.
    expect(business(dir, KEY_B)).toBeUndefined()
    expect(seededNames(dir)).toEqual(
      Object.entries(ids)
        .map(([name, id]) => ({ name, id, kind: records.find((r) => r.name === name)?.kind }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    )
  })

  it('names an invalid entry links[2] and its field, and keeps nothing of a file with one', () => {
    const dir = tempDir()
    const fixtures = {
      links: [
        { name: 'a', ...LINK },
        { name: 'b', ...LINK },
        { name: 'c', ...LINK, amount: 'lots', colour: 'red' },
        'not an entry',
      ],
      subscriptions: [{ name: 'a', package: 'weekly-ish', email: 'ada@example.com' }],
      widgets: [],
    }
    const done = seedIn(dir, KEY_A, fixtures, { origin: ORIGIN })
    expect(done).toEqual({
      ok: false,
      errors: {
        widgets: [
          'The widgets section is unknown: a fixture file has tokenizations, links, subscriptions and account.',
        ],
        'links[2].colour': [
          'The colour field is not a field of a payment link (email, currency, amount, title, phone_no, description, redirect_url, reference, reference_2, send_email, paid, and name).',
        ],
        'links[2].amount': ['The amount must be a number.'],
        'links[3]': ["Each entry must be an object: a payment link's fields and a name."],
        'subscriptions[0].name': ['The name "a" is taken by links[0]: names are unique in a file.'],
        'subscriptions[0].package': [
          "The selected package is invalid: give a package's slug (starter, business, monthly) or _id.",
        ],
      },
    })
    expect(business(dir)).toBeUndefined()
    expect(seededNames(dir)).toEqual([])
  })

  it('is one transaction: a failure while writing the third record leaves none of them', () => {
    const dir = tempDir()
    seedIn(dir, KEY_A, { links: [{ name: 'before', ...LINK }] }, { origin: ORIGIN })
    const store = new SandboxStore(dir)
    stores.push(store)
    const insert = store.insert.bind(store)
    let calls = 0
    vi.spyOn(store, 'insert').mockImplementation((...args: Parameters<SandboxStore['insert']>) => {
      if (++calls === 3) throw new Error('disk full')
      return insert(...args)
    })
    const fixtures = { links: [1, 2, 3, 4].map((n) => ({ name: `l${n}`, ...LINK })) }
    expect(() => seedFixtures(store, businessOf(KEY_A), fixtures, { origin: ORIGIN })).toThrow('disk full')
    expect(calls).toBe(3)
    const links = Object.values(business(dir).payment_links) as { _id: string }[]
    expect(links).toHaveLength(1)
    expect((seededNames(dir) as { name: string }[]).map((row) => row.name)).toEqual(['before'])
  })

  it('once: names seeded before are skipped with the ids they were seeded as; without it, made again', () => {
    const dir = tempDir()
    const first = seedIn(dir, KEY_A, { links: [{ name: 'inv-42', ...LINK }] }, { origin: ORIGIN })
    if (!first.ok) throw new Error('not seeded')
    const fixtures = {
      links: [
        { name: 'inv-42', ...LINK },
        { name: 'inv-43', ...LINK },
      ],
    }
    const again = seedIn(dir, KEY_A, fixtures, { once: true, origin: ORIGIN })
    if (!again.ok) throw new Error('not seeded')
    expect(again.value.ids['inv-42']).toBe(first.value.ids['inv-42'])
    expect(again.value.records.map((r) => [r.name, r.skipped])).toEqual([
      ['inv-42', true],
      ['inv-43', false],
    ])
    expect(Object.keys(business(dir).payment_links)).toHaveLength(2)
    // Names are per business: KEY_B seeding once makes its own.
    const other = seedIn(dir, KEY_B, fixtures, { once: true, origin: ORIGIN })
    if (!other.ok) throw new Error('not seeded')
    expect(other.value.records.every((r) => !r.skipped)).toBe(true)
    // Without once: made again, the name now pointing at the newer record.
    const twice = seedIn(dir, KEY_A, fixtures, { origin: ORIGIN })
    if (!twice.ok) throw new Error('not seeded')
    expect(twice.value.ids['inv-42']).not.toBe(first.value.ids['inv-42'])
    expect(Object.keys(business(dir).payment_links)).toHaveLength(4)
    const after = seedIn(dir, KEY_A, fixtures, { once: true, origin: ORIGIN })
    expect(after.ok && after.value.ids['inv-42']).toBe(twice.value.ids['inv-42'])
  })
})

describe('checkFixtures and parseFixtures', () => {
  it('refuses what is not an object or whose sections are not lists', () => {
    const packages = businessOf(KEY_A).packages
    expect(checkFixtures([], packages)).toEqual({
      ok: false,
      errors: {
        fixtures: [
          'A fixture file is a JSON object: {"tokenizations": [...], "links": [...], "subscriptions": [...]}.',
        ],
      },
    })
    expect(checkFixtures({ links: {} }, packages)).toEqual({
      ok: false,
      errors: { links: ['The links section must be a list of entries.'] },
    })
    expect(checkFixtures({ links: [{ ...LINK, paid: 'yes' }] }, packages)).toEqual({
      ok: false,
      errors: {
        'links[0].name': ['The name field is required.'],
        'links[0].paid': ['The paid field must be true or false.'],
      },
    })
    expect(checkFixtures({ links: [{ name: 'a\u001b[31m', ...LINK }] }, packages).ok).toBe(false)
    // A package by its id, or the API's own package_id, is as good as its slug.
    const id = packages[1]._id
    for (const entry of [{ package: id }, { package_id: id }]) {
      const checked = checkFixtures(
        { subscriptions: [{ name: 's', email: 'ada@example.com', ...entry }] },
        packages,
      )
      expect(checked.ok && checked.value[0]).toMatchObject({ kind: 'subscription', pkg: { _id: id } })
    }
  })

  it('lists at most 50 invalid entries and counts the rest', () => {
    const checked = checkFixtures(
      { links: Array.from({ length: 53 }, (_, n) => ({ name: `l${n}` })) },
      businessOf(KEY_A).packages,
    )
    expect(checked.ok).toBe(false)
    if (checked.ok) return
    expect(checked.errors.fixtures).toEqual(['3 more invalid entries are not listed.'])
    expect(Object.keys(checked.errors).some((key) => key.startsWith('links[50]'))).toBe(false)
    expect(checked.errors['links[49].email']).toEqual(['The email field is required.'])
  })

  it('parses JSON (a byte-order mark allowed); anything else is a FixtureSyntaxError', () => {
    expect(parseFixtures('\uFEFF{"links": []}')).toEqual({ links: [] })
    expect(() => parseFixtures('links: []')).toThrow(FixtureSyntaxError)
  })
})

describe('POST /_sandbox/seed', () => {
  it('seeds the caller’s business only; needs its key; refuses other origins, a bad once, an invalid file', async () => {
    const t = await startTestSandbox()
    running.push(t)
    const fixtures = { links: [{ name: 'inv-42', ...LINK }] }
    const seeded = await t.b.call('POST', '/_sandbox/seed', fixtures)
    expect(seeded.status).toBe(200)
    const id = seeded.json.data.ids['inv-42']
    expect(seeded.json.data).toEqual({
      ids: { 'inv-42': id },
      records: [{ name: 'inv-42', kind: 'payment_link', id, skipped: false }],
    })
    expect((await t.b.call('GET', `/payment-links/${id}`)).status).toBe(200)
    expect((await t.a.call('GET', `/payment-links/${id}`)).status).toBe(404)
    const once = await t.b.call('POST', '/_sandbox/seed?once=true', fixtures)
    expect(once.json.data.records[0]).toEqual({ name: 'inv-42', kind: 'payment_link', id, skipped: true })

    expect((await clientFor(t.baseUrl, null).call('POST', '/_sandbox/seed', fixtures)).status).toBe(401)
    const foreign = await t.a.call('POST', '/_sandbox/seed', fixtures, { Origin: 'http://evil.example' })
    expect(foreign.status).toBe(403)
    const badOnce = await t.a.call('POST', '/_sandbox/seed?once=maybe', fixtures)
    expect(badOnce.status).toBe(422)
    expect(badOnce.json.errors).toEqual({ once: ['The once field must be true or false.'] })
    const invalid = await t.a.call('POST', '/_sandbox/seed', { links: [{ name: 'x', ...LINK, amount: 'x' }] })
    expect(invalid.status).toBe(422)
    expect(invalid.json.errors).toEqual({ 'links[0].amount': ['The amount must be a number.'] })
    expect(business(t.dir, KEY_A)?.payment_links ?? {}).toEqual({})
  })
})

describe('hostile fixtures', () => {
  const DEEP = `{"links": [{"name": "deep", "title": ${'['.repeat(200_000)}${']'.repeat(200_000)}}]}`
  const protoEntry =
    '{"links": [{"__proto__": {"paid": true}, "name": "x", "email": "a@b.co", "currency": "EUR", "amount": "1", "title": "T"}]}'
  const protoSection = '{"__proto__": [{"name": "x"}], "links": []}'

  it('a "__proto__" entry field or section, and a 200,000-deep file: each named, none a TypeError or RangeError; nothing kept', () => {
    const dir = tempDir()
    const errorsOf = (text: string) => {
      const checked = seedIn(dir, KEY_A, parseFixtures(text), { origin: ORIGIN })
      return checked.ok ? undefined : JSON.parse(JSON.stringify(checked.errors))
    }
    expect(errorsOf(protoEntry)).toEqual({
      'links[0].__proto__': [
        'The __proto__ field is not a field of a payment link (email, currency, amount, title, phone_no, description, redirect_url, reference, reference_2, send_email, paid, and name).',
      ],
    })
    // As JSON: an object literal's `__proto__` would set a prototype, not name a field.
    expect(JSON.stringify(errorsOf(protoSection))).toBe(
      '{"__proto__":["The __proto__ section is unknown: a fixture file has tokenizations, links, subscriptions and account."]}',
    )
    expect(errorsOf(DEEP)).toEqual({
      fixtures: ['A fixture file is nested at most 64 levels deep: this one is deeper.'],
    })
    // A deep object of the library's, and one that holds itself, are refused alike.
    const cyclic: Record<string, unknown> = { links: [] }
    ;(cyclic.links as unknown[]).push(cyclic)
    expect(checkFixtures(cyclic, []).ok).toBe(false)
    expect(business(dir, KEY_A)?.payment_links ?? {}).toEqual({})
  })

  it('over HTTP: a 422 naming each, never a 500; a "__proto__" field of an API body is no field either', async () => {
    const t = await startTestSandbox()
    running.push(t)
    const entry = await t.a.call('POST', '/_sandbox/seed', protoEntry)
    expect([entry.status, Object.keys(entry.json.errors)]).toEqual([422, ['links[0].__proto__']])
    const section = await t.a.call('POST', '/_sandbox/seed', protoSection)
    expect([section.status, JSON.stringify(section.json.errors)]).toEqual([
      422,
      '{"__proto__":["The __proto__ section is unknown: a fixture file has tokenizations, links, subscriptions and account."]}',
    ])
    const api = await t.a.call(
      'POST',
      '/payment-links',
      `{"__proto__": {"x": 1}, ${JSON.stringify(LINK).slice(1)}`,
    )
    expect(api.status).toBe(200)
    expect(Object.keys(api.json.data)).not.toContain('__proto__')
    expect(business(t.dir, KEY_A)?.payment_links ?? {}).toHaveProperty(api.json.data._id)
  })
})
