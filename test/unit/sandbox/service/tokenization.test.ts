import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ISO_TIMESTAMP,
  invalid,
  META_TIMESTAMP,
  OBJECT_ID,
  required,
  startTestSandbox,
  type TestSandbox,
  VALID_TOKEN,
} from '../../../helpers/sandbox.js'

let t: TestSandbox
beforeAll(async () => {
  t = await startTestSandbox()
})
afterAll(() => t.sandbox.close())

describe('POST /tokenizations/create-token', () => {
  it('answers the envelope with a tokenization record holding only the fields sent', async () => {
    const answer = await t.a.call('POST', '/tokenizations/create-token', VALID_TOKEN)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('application/json')
    expect(Object.keys(answer.json)).toEqual(['success', 'data', 'errors', 'meta'])
    expect(answer.json.success).toBe(true)
    expect(answer.json.errors).toBeNull()
    expect(Object.keys(answer.json.meta)).toEqual(['timestamp', 'timezone'])
    expect(answer.json.meta.timestamp).toMatch(META_TIMESTAMP)
    expect(answer.json.meta.timezone).toBe('UTC')
    const record = answer.json.data
    expect(Object.keys(record)).toEqual([
      '_id',
      'email',
      'title',
      'description',
      'token',
      'activation_url',
      'created_at',
      'updated_at',
    ])
    expect(record._id).toMatch(OBJECT_ID)
    expect(record).toMatchObject(VALID_TOKEN)
    expect(record.token).toMatch(/^[0-9a-f]{40}$/)
    expect(record.activation_url).toBe(
      `${t.sandbox.baseUrl}/checkout/tokens/${record.token}/activate?test=true`,
    )
    expect(new URL(record.activation_url).pathname.split('/')).toContain(record.token)
    expect(record.created_at).toMatch(ISO_TIMESTAMP)
    expect(record.updated_at).toBe(record.created_at)
  })

  it('echoes phone_no and redirect_url when sent', async () => {
    const body = { ...VALID_TOKEN, phone_no: '+2348000000000', redirect_url: 'https://shop.example/done' }
    const { status, json } = await t.a.call('POST', '/tokenizations/create-token', body)
    expect(status).toBe(200)
    expect(json.data.phone_no).toBe('+2348000000000')
    expect(json.data.redirect_url).toBe('https://shop.example/done')
  })

  it('gives each record its own _id and token', async () => {
    const first = await t.a.call('POST', '/tokenizations/create-token', VALID_TOKEN)
    const second = await t.a.call('POST', '/tokenizations/create-token', VALID_TOKEN)
    expect(first.json.data._id).not.toBe(second.json.data._id)
    expect(first.json.data.token).not.toBe(second.json.data.token)
  })

  it('reports every missing required field at once, in order, with no success or meta', async () => {
    const { status, json, text } = await t.a.call('POST', '/tokenizations/create-token', {})
    expect(status).toBe(422)
    expect(json).toEqual(
      invalid({ email: required('email'), title: required('title'), description: required('description') }),
    )
    expect(Object.keys(json.errors)).toEqual(['email', 'title', 'description'])
    expect(text).not.toContain('success')
    expect(text).not.toContain('meta')
  })

  it('treats null, empty and blank strings as missing', async () => {
    const { status, json } = await t.a.call('POST', '/tokenizations/create-token', {
      email: null,
      title: '',
      description: '   ',
    })
    expect(status).toBe(422)
    expect(json).toEqual(
      invalid({ email: required('email'), title: required('title'), description: required('description') }),
    )
  })

  it.each(['not-an-email', 'a@', '@example.com', 'a b@example.com', 'a@exa mple.com'])(
    'rejects the email %j',
    async (email) => {
      const { status, json } = await t.a.call('POST', '/tokenizations/create-token', {
        ...VALID_TOKEN,
        email,
      })
      expect(status).toBe(422)
      expect(json).toEqual(invalid({ email: ['The email must be a valid email address.'] }))
    },
  )

  it('rejects fields of the wrong JSON type', async () => {
    const { status, json } = await t.a.call('POST', '/tokenizations/create-token', {
      ...VALID_TOKEN,
      email: ['ada@example.com'],
      phone_no: 2348000000000,
    })
    expect(status).toBe(422)
    expect(json).toEqual(
      invalid({ email: ['The email must be a string.'], phone_no: ['The phone_no must be a string.'] }),
    )
  })
})
