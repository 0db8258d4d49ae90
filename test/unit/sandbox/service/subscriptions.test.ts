import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ISO_TIMESTAMP,
  invalid,
  KEY_A,
  META_TIMESTAMP,
  OBJECT_ID,
  required,
  startTestSandbox,
  type TestSandbox,
} from '../../../helpers/sandbox.js'

let t: TestSandbox
let packageId: string
beforeAll(async () => {
  t = await startTestSandbox()
  packageId = t.sandbox.packages[KEY_A][0]._id
})
afterAll(() => t.sandbox.close())

const createSubscription = async (fields: Record<string, unknown> = {}) => {
  const answer = await t.a.call('POST', '/subscriptions', {
    package_id: packageId,
    email: 'ada@example.com',
    ...fields,
  })
  expect(answer.status).toBe(200)
  return answer.json.data
}

describe('seeded packages', () => {
  it('gives every business its own packages with every field of spec 2.5', () => {
    const [packagesA, packagesB] = [t.sandbox.packages[KEY_A], Object.values(t.sandbox.packages)[1]]
    expect(packagesA).toHaveLength(3)
    expect(packagesA.map((pkg) => pkg.frequency)).toEqual(['yearly', 'yearly', 'monthly'])
    for (const pkg of packagesA) {
      expect(Object.keys(pkg)).toEqual([
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
      expect(pkg._id).toMatch(OBJECT_ID)
      expect(typeof pkg.amount).toBe('number')
      expect(pkg.date_charge_start).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      expect(pkg.status).toBe('active')
      expect(pkg.created_at).toMatch(ISO_TIMESTAMP)
      expect(pkg.updated_at).toMatch(ISO_TIMESTAMP)
    }
    expect(new Set([...packagesA, ...packagesB].map((pkg) => pkg._id)).size).toBe(6)
    expect(packagesB[0].business_id).not.toBe(packagesA[0].business_id)
  })

  it('keeps package ids and business ids the same across restarts', async () => {
    const again = await startTestSandbox({ dir: t.dir })
    try {
      expect(again.sandbox.packages).toEqual(t.sandbox.packages)
    } finally {
      await again.sandbox.close()
    }
  })
})

describe('POST /subscriptions', () => {
  it('creates a subscription with status created, the full package and no payment links', async () => {
    const answer = await t.a.call('POST', '/subscriptions', {
      package_id: packageId,
      email: 'ada@example.com',
    })
    expect(answer.status).toBe(200)
    expect(answer.json.success).toBe(true)
    expect(answer.json.errors).toBeNull()
    expect(answer.json.meta.timestamp).toMatch(META_TIMESTAMP)
    expect(answer.json.meta.timezone).toBe('UTC')
    const subscription = answer.json.data
    expect(Object.keys(subscription)).toEqual([
      '_id',
      'package_id',
      'email',
      'status',
      'package',
      'payment_links',
      'created_at',
      'updated_at',
    ])
    expect(subscription._id).toMatch(OBJECT_ID)
    expect(subscription.package_id).toBe(packageId)
    expect(subscription.email).toBe('ada@example.com')
    expect(subscription.status).toBe('created')
    expect(subscription.package).toEqual(t.sandbox.packages[KEY_A][0])
    expect(subscription.payment_links).toEqual([])
    expect(subscription.created_at).toMatch(ISO_TIMESTAMP)
    expect(subscription.updated_at).toBe(subscription.created_at)
  })

  it('echoes phone_no when sent', async () => {
    const subscription = await createSubscription({ phone_no: '+2348000000000' })
    expect(Object.keys(subscription).slice(0, 5)).toEqual([
      '_id',
      'package_id',
      'email',
      'phone_no',
      'status',
    ])
    expect(subscription.phone_no).toBe('+2348000000000')
  })

  it('answers only the email entry for an empty body (spec 7, rule 2)', async () => {
    const { status, json, text } = await t.a.call('POST', '/subscriptions', {})
    expect(status).toBe(422)
    expect(json).toEqual(invalid({ email: required('email') }))
    expect(text).not.toContain('success')
    expect(text).not.toContain('meta')
  })

  it('requires package_id once email is present', async () => {
    const { status, json } = await t.a.call('POST', '/subscriptions', { email: 'ada@example.com' })
    expect(status).toBe(422)
    expect(json).toEqual(invalid({ package_id: required('package_id') }))
  })

  it('rejects an unknown package_id, and another business’s package', async () => {
    const foreignPackage = Object.values(t.sandbox.packages)[1][0]._id
    for (const package_id of ['000000000000000000000000', foreignPackage]) {
      const { status, json } = await t.a.call('POST', '/subscriptions', {
        package_id,
        email: 'ada@example.com',
      })
      expect(status).toBe(422)
      expect(json).toEqual(invalid({ package_id: ['The selected package_id is invalid.'] }))
    }
  })

  it('rejects wrong JSON types', async () => {
    const { status, json } = await t.a.call('POST', '/subscriptions', {
      package_id: 5,
      email: 'ada@example.com',
      phone_no: true,
    })
    expect(status).toBe(422)
    expect(json).toEqual(
      invalid({
        package_id: ['The package_id must be a string.'],
        phone_no: ['The phone_no must be a string.'],
      }),
    )
  })
})

describe('GET /subscriptions/{id}', () => {
  it('returns the stored subscription', async () => {
    const created = await createSubscription()
    const { status, json } = await t.a.call('GET', `/subscriptions/${created._id}`)
    expect(status).toBe(200)
    expect(json.success).toBe(true)
    expect(json.data).toEqual(created)
  })

  it('answers 404 for an unknown id', async () => {
    const { status, json } = await t.a.call('GET', '/subscriptions/000000000000000000000000')
    expect(status).toBe(404)
    expect(json).toEqual({ message: 'Subscription not found.' })
  })
})

describe('PUT /subscriptions/{id}', () => {
  it('accepts status cancel', async () => {
    const created = await createSubscription()
    const { status, json } = await t.a.call('PUT', `/subscriptions/${created._id}`, { status: 'cancel' })
    expect(status).toBe(200)
    expect(json.success).toBe(true)
    expect(json.data).toEqual({ ...created, status: 'cancel', updated_at: json.data.updated_at })
    expect(json.data.updated_at > created.updated_at).toBe(true)
    expect((await t.a.call('GET', `/subscriptions/${created._id}`)).json.data).toEqual(json.data)
  })

  it('answers 200 with the record unchanged, updated_at included, when cancelling a cancelled one', async () => {
    const created = await createSubscription()
    const cancelled = await t.a.call('PUT', `/subscriptions/${created._id}`, { status: 'cancel' })
    const again = await t.a.call('PUT', `/subscriptions/${created._id}`, { status: 'cancel' })
    expect(again.status).toBe(200)
    expect(again.json.data).toEqual(cancelled.json.data)
  })

  it('updates email and phone_no, keeping the fields not sent', async () => {
    const created = await createSubscription()
    const { status, json } = await t.a.call('PUT', `/subscriptions/${created._id}`, {
      email: 'new@example.com',
      phone_no: '+15550100',
    })
    expect(status).toBe(200)
    expect(json.data).toEqual({
      ...created,
      email: 'new@example.com',
      phone_no: '+15550100',
      updated_at: json.data.updated_at,
    })
    expect(Object.keys(json.data)).toEqual(Object.keys(await createSubscription({ phone_no: 'x' })))
  })

  it('accepts an empty body and changes nothing', async () => {
    const created = await createSubscription()
    const { status, json } = await t.a.call('PUT', `/subscriptions/${created._id}`, {})
    expect(status).toBe(200)
    expect(json.data).toEqual(created)
  })

  it('rejects a status other than cancel, and wrong types', async () => {
    const created = await createSubscription()
    const { status, json } = await t.a.call('PUT', `/subscriptions/${created._id}`, {
      status: 'active',
      email: 42,
    })
    expect(status).toBe(422)
    expect(json).toEqual(
      invalid({ email: ['The email must be a string.'], status: ['The selected status is invalid.'] }),
    )
    expect((await t.a.call('GET', `/subscriptions/${created._id}`)).json.data).toEqual(created)
  })

  it('answers 404 for an unknown id', async () => {
    const { status, json } = await t.a.call('PUT', '/subscriptions/000000000000000000000000', {
      status: 'cancel',
    })
    expect(status).toBe(404)
    expect(json).toEqual({ message: 'Subscription not found.' })
  })
})

describe('DELETE /subscriptions/{id}', () => {
  it('removes it for good', async () => {
    const created = await createSubscription()
    const deleted = await t.a.call('DELETE', `/subscriptions/${created._id}`)
    expect(deleted.status).toBe(200)
    expect(deleted.json.success).toBe(true)
    expect(deleted.json.data).toBeNull()
    expect((await t.a.call('GET', `/subscriptions/${created._id}`)).status).toBe(404)
    expect((await t.a.call('PUT', `/subscriptions/${created._id}`, { status: 'cancel' })).status).toBe(404)
    expect((await t.a.call('DELETE', `/subscriptions/${created._id}`)).status).toBe(404)
  })
})

describe('GET /subscriptions', () => {
  it('lists the business’s subscriptions newest first, paginated', async () => {
    const fresh = await startTestSandbox()
    try {
      const pkg = fresh.sandbox.packages[KEY_A][2]._id
      const ids: string[] = []
      for (let i = 0; i < 3; i++) {
        const { json } = await fresh.a.call('POST', '/subscriptions', {
          package_id: pkg,
          email: `c${i}@example.com`,
        })
        ids.push(json.data._id)
      }
      const { status, json } = await fresh.a.call('GET', '/subscriptions?per_page=2')
      expect(status).toBe(200)
      expect(json.data.data.map((s: { _id: string }) => s._id)).toEqual([ids[2], ids[1]])
      expect(json.data).toMatchObject({
        current_page: 1,
        last_page: 2,
        per_page: 2,
        total: 3,
        next_page_url: `${fresh.sandbox.baseUrl}/subscriptions?page=2&per_page=2`,
        prev_page_url: null,
      })
      expect(json.data.data[0].package._id).toBe(pkg)
    } finally {
      await fresh.sandbox.close()
    }
  })
})
