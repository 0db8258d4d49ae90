import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accountBusinesses } from '../../../../src/sandbox/domain/account.js'
import { type RunningSandbox, startSandbox } from '../../../../src/sandbox/http/server.js'
import {
  clientFor,
  ISO_TIMESTAMP,
  invalid,
  KEY_A,
  KEY_B,
  OBJECT_ID,
  required,
  tempDir,
  VALID_LINK,
} from '../../../helpers/sandbox.js'

/**
 * The account's endpoints (src/sandbox/handlers/account/), as the service's shop plugins call
 * them: the sign-in and its access token, the approved businesses (one per key), and the webhook
 * events of a business's integration, which are its webhook endpoints; who may call what; the
 * sandbox's account.
 */

const ACCOUNT = { email: 'Merchant@Example.com', password: 'a password: with a colon' }
const [A, B] = accountBusinesses([KEY_A, KEY_B])

let sandbox: RunningSandbox
let dir: string
let token: string
const events = (business = A) =>
  `/integrations/businesses/${business.businessId}/integrations/${business.integrationId}/webhook-events`

beforeAll(async () => {
  dir = tempDir('pay-account-')
  sandbox = await startSandbox({ dir, keys: [KEY_A, KEY_B], port: 0, account: ACCOUNT })
  token = (await clientFor(sandbox.baseUrl, null).call('POST', '/auth/sign-in', ACCOUNT)).json.data.token
})
afterAll(() => sandbox.close())

const withToken = () => clientFor(sandbox.baseUrl, token)

describe('POST /auth/sign-in', () => {
  it('gives an access token for the account’s e-mail (in any case) and password, in the envelope', async () => {
    const signed = await clientFor(sandbox.baseUrl, null).call('POST', '/api/auth/sign-in', {
      email: 'merchant@example.COM',
      password: ACCOUNT.password,
    })
    expect(signed.status).toBe(200)
    expect(signed.json).toMatchObject({
      success: true,
      data: { token: expect.stringMatching(/^sat_/) },
      errors: null,
    })
    expect(Object.keys(signed.json.data)).toEqual(['token'])
  })

  it('a wrong e-mail or password, or none: the service’s 422, on the e-mail', async () => {
    const anyone = clientFor(sandbox.baseUrl, null)
    for (const body of [
      { email: ACCOUNT.email, password: 'wrong' },
      { email: 'other@example.com', password: ACCOUNT.password },
      { email: ACCOUNT.email, password: `${ACCOUNT.password} ` },
    ]) {
      const answer = await anyone.call('POST', '/auth/sign-in', body)
      expect([answer.status, answer.json]).toEqual([
        422,
        invalid({ email: ['These credentials do not match our records.'] }),
      ])
    }
    const empty = await anyone.call('POST', '/auth/sign-in', {})
    expect([empty.status, empty.json]).toEqual([
      422,
      invalid({ email: required('email'), password: required('password') }),
    ])
  })
})

describe('who may call what', () => {
  it('the account’s routes take the access token and refuse an API key or nothing (401); the API refuses the token', async () => {
    for (const route of ['/approved-businesses', events()]) {
      for (const [who, key] of [
        ['API key', KEY_A],
        ['nothing', null],
        ['another token', 'sat_zzzzzzzz_0000000000000000000000000000000000000000000000000000000000000000'],
      ] as const) {
        const answer = await clientFor(sandbox.baseUrl, key).call('GET', route)
        expect([route, who, answer.status, answer.json]).toEqual([
          route,
          who,
          401,
          { message: 'Unauthenticated.' },
        ])
      }
    }
    const links = await withToken().call('GET', '/payment-links')
    expect([links.status, links.json]).toEqual([401, { message: 'Unauthenticated.' }])
  })

  it('a token of another account, or of another directory, is refused; the same directory’s next sandbox takes it', async () => {
    const other = await startSandbox({
      dir,
      keys: [KEY_A],
      port: 0,
      account: { ...ACCOUNT, password: 'another' },
    })
    const elsewhere = await startSandbox({
      dir: tempDir('pay-account-'),
      keys: [KEY_A],
      port: 0,
      account: ACCOUNT,
    })
    const same = await startSandbox({ dir, keys: [KEY_A], port: 0, account: ACCOUNT })
    try {
      expect((await clientFor(other.baseUrl, token).call('GET', '/approved-businesses')).status).toBe(401)
      expect((await clientFor(elsewhere.baseUrl, token).call('GET', '/approved-businesses')).status).toBe(401)
      expect((await clientFor(same.baseUrl, token).call('GET', '/approved-businesses')).status).toBe(200)
    } finally {
      await Promise.all([other.close(), elsewhere.close(), same.close()])
    }
  })

  it('a token lasts 7 days of sandbox time', async () => {
    const own = await startSandbox({ dir: tempDir('pay-account-'), keys: [KEY_A], port: 0, account: ACCOUNT })
    try {
      const anyone = clientFor(own.baseUrl, null)
      const fresh = (await anyone.call('POST', '/auth/sign-in', ACCOUNT)).json.data.token
      const key = clientFor(own.baseUrl)
      await key.call('POST', '/_sandbox/clock', { advance: '6d' })
      expect((await clientFor(own.baseUrl, fresh).call('GET', '/approved-businesses')).status).toBe(200)
      await key.call('POST', '/_sandbox/clock', { advance: '2d' })
      expect((await clientFor(own.baseUrl, fresh).call('GET', '/approved-businesses')).status).toBe(401)
    } finally {
      await own.close()
    }
  })
})

describe('GET /approved-businesses', () => {
  it('every business of the sandbox (one per key), with its integration: its keys, its webhook events', async () => {
    const added = (
      await clientFor(sandbox.baseUrl, KEY_B).call('POST', '/_sandbox/webhooks', {
        url: 'https://b.example/hook',
      })
    ).json.data
    const answer = await withToken().call('GET', '/approved-businesses')
    expect(answer.status).toBe(200)
    expect(answer.json.data).toEqual([
      {
        id: A.businessId,
        name: 'Sandbox business 1',
        integration: {
          id: A.integrationId,
          api_key: KEY_A,
          signature_key: sandbox.webhooks.signatureKeys[0],
          webhook_events: [],
        },
      },
      {
        id: B.businessId,
        name: 'Sandbox business 2',
        integration: {
          id: B.integrationId,
          api_key: KEY_B,
          signature_key: sandbox.webhooks.signatureKeys[1],
          webhook_events: [
            {
              _id: added._id,
              name: 'payment.created',
              url: 'https://b.example/hook',
              enabled: true,
              created_at: expect.stringMatching(ISO_TIMESTAMP),
              updated_at: expect.stringMatching(ISO_TIMESTAMP),
            },
          ],
        },
      },
    ])
    await clientFor(sandbox.baseUrl, KEY_B).call('DELETE', `/_sandbox/webhooks/${added._id}`)
  })
})

describe('the webhook events of an integration', () => {
  it('POST adds one (its _id, name, url, enabled, times), GET lists it in data.data, PATCH changes it, DELETE (with the plugins’ body) removes it', async () => {
    const client = withToken()
    const url = 'http://127.0.0.1:8090/?wc-api=swipego_wc_gateway'
    const added = await client.call('POST', `/api${events()}`, {
      name: 'payment.created',
      url,
      enabled: true,
    })
    expect(added.status).toBe(200)
    const event = added.json.data
    expect(event).toEqual({
      _id: expect.stringMatching(OBJECT_ID),
      name: 'payment.created',
      url,
      enabled: true,
      created_at: expect.stringMatching(ISO_TIMESTAMP),
      updated_at: event.created_at,
    })
    expect((await client.call('GET', events())).json.data).toEqual({ data: [event] })
    // It is the business's webhook endpoint: the sandbox's controls see it.
    expect((await clientFor(sandbox.baseUrl).call('GET', '/_sandbox/webhooks')).json.data.endpoints).toEqual([
      { _id: event._id, url, events: ['payment.created'], enabled: true },
    ])
    const patched = await client.call('PATCH', `${events()}/${event._id}`, {
      url: 'https://shop.example/hook',
      enabled: false,
    })
    expect(patched.json.data).toMatchObject({
      _id: event._id,
      url: 'https://shop.example/hook',
      enabled: false,
    })
    expect(patched.json.data.updated_at >= event.updated_at).toBe(true)
    const removed = await client.call('DELETE', `${events()}/${event._id}`, { enabled: true })
    expect([removed.status, removed.json.data]).toEqual([200, null])
    expect((await client.call('GET', events())).json.data).toEqual({ data: [] })
  })

  it('a bad url or an unknown name: 422 with field errors; a URL another event has: 422', async () => {
    const client = withToken()
    const bad = await client.call('POST', events(), {
      name: 'payment.refunded',
      url: 'ftp://x',
      enabled: 'yes',
    })
    expect([bad.status, bad.json]).toEqual([
      422,
      invalid({
        name: ['The selected name is invalid.'],
        url: ['The url format is invalid.'],
        enabled: ['The enabled field must be true or false.'],
      }),
    ])
    const none = await client.call('POST', events(), {})
    expect(none.json).toEqual(invalid({ name: required('name'), url: required('url') }))
    const one = (
      await client.call('POST', events(), { name: 'payment.created', url: 'https://one.example/' })
    ).json.data
    const two = (
      await client.call('POST', events(), { name: 'payment.created', url: 'https://two.example/' })
    ).json.data
    const taken = await client.call('PATCH', `${events()}/${two._id}`, { url: 'https://one.example/' })
    expect([taken.status, taken.json]).toEqual([422, invalid({ url: ['The url has already been taken.'] })])
    for (const id of [one._id, two._id]) await client.call('DELETE', `${events()}/${id}`)
  })

  it('404 for a business not the account’s, an integration not that business’s, or an event the integration lacks, before the body is read', async () => {
    const client = withToken()
    const cases = [
      [`/integrations/businesses/404/integrations/${A.integrationId}/webhook-events`, 'Business not found.'],
      [
        `/integrations/businesses/${A.businessId}/integrations/${B.integrationId}/webhook-events`,
        'Integration not found.',
      ],
    ]
    for (const [route, message] of cases) {
      for (const [method, body] of [
        ['GET', undefined],
        ['POST', {}],
      ] as const) {
        const answer = await client.call(method, route, body)
        expect([route, method, answer.status, answer.json]).toEqual([route, method, 404, { message }])
      }
    }
    const missing = `${events()}/0123456789abcdef01234567`
    for (const method of ['PATCH', 'DELETE']) {
      const answer = await client.call(method, missing, { url: 'not a url' })
      expect([method, answer.status, answer.json]).toEqual([
        method,
        404,
        { message: 'Webhook event not found.' },
      ])
    }
    // Another business's event is not this integration's.
    const b = (
      await clientFor(sandbox.baseUrl, KEY_B).call('POST', '/_sandbox/webhooks', {
        url: 'https://b.example/x',
      })
    ).json.data
    expect((await client.call('DELETE', `${events()}/${b._id}`)).status).toBe(404)
    expect((await client.call('DELETE', `${events(B)}/${b._id}`)).status).toBe(200)
  })

  it('a disabled event is notified of nothing; enabled again, it is', async () => {
    const client = withToken()
    const url = 'http://127.0.0.1:9/never'
    const event = (await client.call('POST', events(), { name: 'payment.created', url, enabled: false })).json
      .data
    const key = clientFor(sandbox.baseUrl)
    const link = (await key.call('POST', '/payment-links', VALID_LINK)).json.data
    await key.call('POST', `/_sandbox/payment-links/${link._id}/fail`)
    const deliveries = async () =>
      (await key.call('GET', '/_sandbox/webhooks/deliveries')).json.data.filter(
        (d: { url: string }) => d.url === url,
      )
    // Deliveries are written with the payment: none for a disabled event.
    expect(await deliveries()).toEqual([])
    await client.call('PATCH', `${events()}/${event._id}`, { enabled: true })
    await key.call('POST', `/_sandbox/payment-links/${link._id}/pending`)
    expect((await deliveries()).map((d: { payment_link_id: string }) => d.payment_link_id)).toEqual([
      link._id,
    ])
    await client.call('DELETE', `${events()}/${event._id}`)
  })
})

describe('the sandbox’s account', () => {
  it('without one given: the same for every sandbox of a directory, another for another directory', async () => {
    const here = tempDir('pay-account-')
    const first = await startSandbox({ dir: here, port: 0 })
    const again = await startSandbox({ dir: here, port: 0 })
    const elsewhere = await startSandbox({ dir: tempDir('pay-account-'), port: 0 })
    try {
      expect(first.account).toEqual(again.account)
      expect(first.account.email).toMatch(/^merchant-[0-9a-f]{8}@sandbox\.pay\.example$/)
      expect(first.account.password).toMatch(/^[0-9a-f]{24}$/)
      expect(elsewhere.account).not.toEqual(first.account)
      const signed = await clientFor(first.baseUrl, null).call('POST', '/auth/sign-in', first.account)
      expect(signed.status).toBe(200)
    } finally {
      await Promise.all([first.close(), again.close(), elsewhere.close()])
    }
  })

  it('a fixture file’s account when it names one; a given account over it', async () => {
    const fixtures = { account: { email: 'fixture@example.com', password: 'from the file' } }
    const seeded = await startSandbox({ dir: tempDir('pay-account-'), port: 0, seed: { fixtures } })
    const given = await startSandbox({
      dir: tempDir('pay-account-'),
      port: 0,
      seed: { fixtures },
      account: ACCOUNT,
    })
    try {
      expect(seeded.account).toEqual(fixtures.account)
      expect(given.account).toEqual(ACCOUNT)
    } finally {
      await Promise.all([seeded.close(), given.close()])
    }
  })
})
