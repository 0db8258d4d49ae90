import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ISO_TIMESTAMP,
  invalid,
  KEY_A,
  META_TIMESTAMP,
  OBJECT_ID,
  rawRequest,
  required,
  startTestSandbox,
  type TestSandbox,
  VALID_LINK,
} from '../../../helpers/sandbox.js'

let t: TestSandbox
beforeAll(async () => {
  t = await startTestSandbox()
})
afterAll(() => t.sandbox.close())

const createLink = async (fields: Record<string, unknown> = {}) => {
  const answer = await t.a.call('POST', '/payment-links', { ...VALID_LINK, ...fields })
  expect(answer.status).toBe(200)
  return answer.json.data
}

const ALL_OPTIONAL = {
  phone_no: '+2348000000000',
  description: 'For March',
  redirect_url: 'https://shop.example/thanks',
  reference: 'INV-42',
  reference_2: 'CUST-7',
}

describe('POST /payment-links', () => {
  it('creates an Active, unpaid link holding only the fields sent', async () => {
    const answer = await t.a.call('POST', '/payment-links', { ...VALID_LINK, send_email: true })
    expect(answer.status).toBe(200)
    expect(answer.json.success).toBe(true)
    expect(answer.json.errors).toBeNull()
    expect(answer.json.meta.timestamp).toMatch(META_TIMESTAMP)
    expect(answer.json.meta.timezone).toBe('UTC')
    const link = answer.json.data
    expect(Object.keys(link)).toEqual([
      '_id',
      'email',
      'currency',
      'amount',
      'title',
      'status',
      'payment_url',
      'business_id',
      'paid',
      'created_at',
      'updated_at',
    ])
    expect(link._id).toMatch(OBJECT_ID)
    expect(link).toMatchObject({
      email: 'ada@example.com',
      currency: 'NGN',
      amount: 25.5,
      title: 'Invoice 42',
    })
    expect(link.status).toBe('Active')
    expect(link.paid).toBe(false)
    expect(link.payment_url).toBe(`${t.sandbox.baseUrl}/checkout/pay?id=${link._id}`)
    expect(new URL(link.payment_url).searchParams.get('id')).toBe(link._id)
    expect(Number.isInteger(link.business_id)).toBe(true)
    expect(link.created_at).toMatch(ISO_TIMESTAMP)
    expect(link.updated_at).toBe(link.created_at)
    expect(link).not.toHaveProperty('send_email')
  })

  it('echoes every optional field sent, in record order, and never send_email', async () => {
    const link = await createLink({ ...ALL_OPTIONAL, send_email: false })
    expect(Object.keys(link)).toEqual([
      '_id',
      'email',
      'phone_no',
      'currency',
      'amount',
      'title',
      'description',
      'redirect_url',
      'reference',
      'reference_2',
      'status',
      'payment_url',
      'business_id',
      'paid',
      'created_at',
      'updated_at',
    ])
    expect(link).toMatchObject(ALL_OPTIONAL)
  })

  it.each([
    ['25.50', 25.5],
    ['1000', 1000],
    ['0.01', 0.01],
    ['007.10', 7.1],
    ['123456789012.345', 123456789012.345],
  ])('returns the amount %j as the number %d', async (amount, expected) => {
    const link = await createLink({ amount })
    expect(link.amount).toBe(expected)
  })

  it.each([
    ['abc', 'The amount must be a number.'],
    ['25,50', 'The amount must use a point for its decimals and no thousands separator, like 1000.50.'],
    ['-5', 'The amount must be greater than 0.'],
    ['1e3', 'The amount must be written out in digits, not with an exponent like 1e3.'],
    [' 25', 'The amount must not begin or end with a space.'],
    ['0', 'The amount must be greater than 0.'],
    ['0.00', 'The amount must be greater than 0.'],
    ['1234567890123456', 'The amount must not have more than 15 significant digits.'],
  ])('rejects the amount %j', async (amount, message) => {
    const { status, json } = await t.a.call('POST', '/payment-links', { ...VALID_LINK, amount })
    expect(status).toBe(422)
    expect(json).toEqual(invalid({ amount: [message] }))
  })

  it('reports every missing required field at once, in spec order, with no success or meta', async () => {
    const { status, json } = await t.a.call('POST', '/payment-links', { send_email: true })
    expect(status).toBe(422)
    expect(json).toEqual(
      invalid({
        currency: required('currency'),
        email: required('email'),
        amount: required('amount'),
        title: required('title'),
      }),
    )
    expect(Object.keys(json)).toEqual(['message', 'errors'])
    expect(Object.keys(json.errors)).toEqual(['currency', 'email', 'amount', 'title'])
  })

  it('rejects wrong JSON types, one entry per field', async () => {
    const { status, json } = await t.a.call('POST', '/payment-links', {
      email: 'ada@example.com',
      currency: 566,
      amount: true,
      title: { text: 'x' },
      reference_2: ['7'],
      send_email: 'yes',
    })
    expect(status).toBe(422)
    expect(json).toEqual(
      invalid({
        currency: ['The currency must be a string.'],
        amount: ['The amount must be a string or a number.'],
        title: ['The title must be a string.'],
        reference_2: ['The reference_2 must be a string or a number.'],
        send_email: ['The send_email field must be true or false.'],
      }),
    )
  })

  it('accepts the send_email values of the Laravel boolean rule', async () => {
    for (const send_email of [true, false, 1, 0, '1', '0']) {
      const { status, json } = await t.a.call('POST', '/payment-links', { ...VALID_LINK, send_email })
      expect(status).toBe(200)
      expect(json.data).not.toHaveProperty('send_email')
    }
  })

  it('treats an optional field sent as null or empty as not sent', async () => {
    const link = await createLink({ phone_no: null, reference: '' })
    expect(link).not.toHaveProperty('phone_no')
    expect(link).not.toHaveProperty('reference')
  })
})

describe('GET /payment-links/{id}', () => {
  it('returns the stored record in the envelope', async () => {
    const created = await createLink(ALL_OPTIONAL)
    const { status, json } = await t.a.call('GET', `/payment-links/${created._id}`)
    expect(status).toBe(200)
    expect(json.success).toBe(true)
    expect(json.meta.timestamp).toMatch(META_TIMESTAMP)
    expect(json.data).toEqual(created)
  })

  it.each(['000000000000000000000000', 'nope', 'constructor', '__proto__', '%E0%A4%A'])(
    'answers 404 for the unknown id %j',
    async (id) => {
      const { status, json } = await t.a.call('GET', `/payment-links/${id}`)
      expect(status).toBe(404)
      expect(json).toEqual({ message: id === '%E0%A4%A' ? 'Not found.' : 'Payment link not found.' })
    },
  )
})

describe('PUT /payment-links/{id}', () => {
  it('replaces the editable fields, drops optional ones not sent, keeps the rest', async () => {
    const created = await createLink(ALL_OPTIONAL)
    const body = {
      email: 'bob@example.com',
      currency: 'USD',
      amount: '99.90',
      title: 'New',
      reference: 'R-2',
    }
    const { status, json } = await t.a.call('PUT', `/payment-links/${created._id}`, {
      ...body,
      send_email: true,
    })
    expect(status).toBe(200)
    expect(json.success).toBe(true)
    expect(json.data).toEqual({
      _id: created._id,
      email: 'bob@example.com',
      currency: 'USD',
      amount: 99.9,
      title: 'New',
      reference: 'R-2',
      status: 'Active',
      payment_url: created.payment_url,
      business_id: created.business_id,
      paid: false,
      created_at: created.created_at,
      updated_at: json.data.updated_at,
    })
    expect(json.data.updated_at).toMatch(ISO_TIMESTAMP)
    expect(json.data.updated_at > created.updated_at).toBe(true)
    const fetched = await t.a.call('GET', `/payment-links/${created._id}`)
    expect(fetched.json.data).toEqual(json.data)
  })

  it('leaves updated_at alone when nothing changed', async () => {
    const created = await createLink({ reference: 'same' })
    const { status, json } = await t.a.call('PUT', `/payment-links/${created._id}`, {
      ...VALID_LINK,
      reference: 'same',
    })
    expect(status).toBe(200)
    expect(json.data).toEqual(created)
  })

  it('needs the full body: every missing required field is reported', async () => {
    const created = await createLink()
    const { status, json } = await t.a.call('PUT', `/payment-links/${created._id}`, { title: 'Only a title' })
    expect(status).toBe(422)
    expect(json).toEqual(
      invalid({ currency: required('currency'), email: required('email'), amount: required('amount') }),
    )
    const fetched = await t.a.call('GET', `/payment-links/${created._id}`)
    expect(fetched.json.data).toEqual(created)
  })

  it('answers 404 for an unknown id, before validating the body', async () => {
    const { status, json } = await t.a.call('PUT', '/payment-links/000000000000000000000000', {})
    expect(status).toBe(404)
    expect(json).toEqual({ message: 'Payment link not found.' })
  })
})

describe('DELETE /payment-links/{id}', () => {
  it('removes the link: the envelope carries data null, then GET is 404', async () => {
    const created = await createLink()
    const deleted = await t.a.call('DELETE', `/payment-links/${created._id}`)
    expect(deleted.status).toBe(200)
    expect(deleted.json.success).toBe(true)
    expect(deleted.json.data).toBeNull()
    expect(deleted.json.errors).toBeNull()
    expect(deleted.json.meta.timestamp).toMatch(META_TIMESTAMP)
    expect((await t.a.call('GET', `/payment-links/${created._id}`)).status).toBe(404)
    expect((await t.a.call('PUT', `/payment-links/${created._id}`, VALID_LINK)).status).toBe(404)
    const again = await t.a.call('DELETE', `/payment-links/${created._id}`)
    expect(again.status).toBe(404)
    expect(again.json).toEqual({ message: 'Payment link not found.' })
  })
})

describe('GET /payment-links', () => {
  it('pages newest first, Laravel style, with absolute page URLs', async () => {
    const fresh = await startTestSandbox()
    try {
      const ids: string[] = []
      for (let i = 0; i < 5; i++) {
        const { json } = await fresh.a.call('POST', '/payment-links', { ...VALID_LINK, title: `Link ${i}` })
        ids.push(json.data._id)
      }
      const newestFirst = [...ids].reverse()
      const base = fresh.sandbox.baseUrl

      const first = await fresh.a.call('GET', '/payment-links?per_page=2')
      expect(first.status).toBe(200)
      expect(first.json.success).toBe(true)
      expect(first.json.meta.timestamp).toMatch(META_TIMESTAMP)
      expect({
        ...first.json.data,
        data: first.json.data.data.map((link: { _id: string }) => link._id),
      }).toEqual({
        current_page: 1,
        data: newestFirst.slice(0, 2),
        first_page_url: `${base}/payment-links?page=1&per_page=2`,
        from: 1,
        last_page: 3,
        last_page_url: `${base}/payment-links?page=3&per_page=2`,
        next_page_url: `${base}/payment-links?page=2&per_page=2`,
        path: `${base}/payment-links`,
        per_page: 2,
        prev_page_url: null,
        to: 2,
        total: 5,
      })

      const last = await fresh.a.call('GET', first.json.data.last_page_url.slice(base.length))
      expect(last.json.data.data.map((link: { _id: string }) => link._id)).toEqual(newestFirst.slice(4))
      expect(last.json.data.next_page_url).toBeNull()
      expect(last.json.data.prev_page_url).toBe(`${base}/payment-links?page=2&per_page=2`)
      expect(last.json.data.from).toBe(5)
      expect(last.json.data.to).toBe(5)

      const all = await fresh.a.call('GET', '/payment-links')
      expect(all.json.data.per_page).toBe(50)
      expect(all.json.data.first_page_url).toBe(`${base}/payment-links?page=1`)
      expect(all.json.data.data.map((link: { _id: string }) => link._id)).toEqual(newestFirst)

      const beyond = await fresh.a.call('GET', '/payment-links?page=9')
      expect(beyond.json.data).toMatchObject({ current_page: 9, data: [], from: null, to: null, total: 5 })

      const clamped = await fresh.a.call('GET', '/payment-links?per_page=100000&page=zero')
      expect(clamped.json.data).toMatchObject({ current_page: 1, per_page: 500 })
    } finally {
      await fresh.sandbox.close()
    }
  })

  it('builds page URLs from the Host the client used', async () => {
    const port = new URL(t.sandbox.baseUrl).port
    const answer = await rawRequest(t.sandbox.baseUrl, {
      path: '/payment-links?per_page=1',
      headers: { Host: `localhost:${port}`, Authorization: `Bearer ${KEY_A}` },
    })
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text).data.path).toBe(`http://localhost:${port}/payment-links`)
    const created = await rawRequest(t.sandbox.baseUrl, {
      method: 'POST',
      path: '/payment-links',
      headers: {
        Host: `localhost:${port}`,
        Authorization: `Bearer ${KEY_A}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify(VALID_LINK),
    })
    const link = JSON.parse(created.text).data
    expect(link.payment_url).toBe(`http://localhost:${port}/checkout/pay?id=${link._id}`)
  })

  it('refuses a Host header that is not a plain host name (421; test/unit/sandbox/addresses.test.ts)', async () => {
    const answer = await rawRequest(t.sandbox.baseUrl, {
      path: '/payment-links',
      headers: { Host: 'evil.example/<script>', Authorization: `Bearer ${KEY_A}` },
    })
    expect(answer.status).toBe(421)
    expect(answer.text).not.toContain('evil.example')
  })

  it('answers an empty page for a business without links', async () => {
    const fresh = await startTestSandbox()
    try {
      const { status, json } = await fresh.a.call('GET', '/payment-links')
      expect(status).toBe(200)
      expect(json.data).toMatchObject({
        current_page: 1,
        data: [],
        last_page: 1,
        next_page_url: null,
        total: 0,
      })
    } finally {
      await fresh.sandbox.close()
    }
  })
})
