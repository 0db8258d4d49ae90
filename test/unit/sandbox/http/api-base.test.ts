import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHALLENGE } from '../../../../src/sandbox/http/proof.js'
import { ENDPOINT_LIST, fillPath } from '../../../../src/shared/endpoints.js'
import { startTestSandbox, type TestSandbox, VALID_LINK } from '../../../helpers/sandbox.js'

/**
 * The service's base path: its shop plugins append their routes to `https://<host>/api/`, so every
 * route of the sandbox is served there too, with the same answers (and a base URL works with or
 * without it, the proof of its health route included); the customer pages alone are never under
 * it, and no address the sandbox hands out names it.
 */

let t: TestSandbox
beforeAll(async () => {
  t = await startTestSandbox()
})
afterAll(() => t.close())

/** An answer without what differs from one request to the next (the envelope's time, new ids). */
const same = (json: unknown) =>
  JSON.parse(
    JSON.stringify(json)
      .replace(/"(timestamp|now)":"[^"]*"/g, '"$1":"…"')
      .replace(/\/api\//g, '/'),
  )

describe('every route under /api', () => {
  it('answers each endpoint of the table at /api + its path as at its path', async () => {
    const link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    for (const endpoint of ENDPOINT_LIST.filter(
      (e) => e.method === 'GET' && e.path !== '/_sandbox/requests',
    )) {
      const path = fillPath(endpoint, link._id, { business: '1', integration: 'i' }) as string
      const [root, api] = [await t.a.call('GET', path), await t.a.call('GET', `/api${path}`)]
      expect([path, api.status, same(api.json)]).toEqual([path, root.status, same(root.json)])
    }
  })

  it('creates under /api as at the root: the same record, its payment_url on the sandbox’s own /checkout', async () => {
    const created = await t.a.call('POST', '/api/payment-links', VALID_LINK)
    expect(created.status).toBe(200)
    expect(created.json.data.payment_url).toBe(`${t.baseUrl}/checkout/pay?id=${created.json.data._id}`)
    expect((await t.a.call('GET', `/payment-links/${created.json.data._id}`)).json.data).toEqual(
      created.json.data,
    )
    // An Idempotency-Key is the same key whichever base the POST came under.
    const headers = { 'Idempotency-Key': 'one-key' }
    const first = await t.a.call('POST', '/api/payment-links', VALID_LINK, headers)
    const again = await t.a.call('POST', '/payment-links', VALID_LINK, headers)
    expect(again.json.data._id).toBe(first.json.data._id)
  })

  it('pages under /api name /api in their page URLs', async () => {
    const page = (await t.a.call('GET', '/api/payment-links?per_page=1')).json.data
    expect(page.path).toBe(`${t.baseUrl}/api/payment-links`)
    expect(page.next_page_url).toBe(`${t.baseUrl}/api/payment-links?page=2&per_page=1`)
  })

  it('the health route and its proof at /api/_sandbox/health; no customer page under /api', async () => {
    const challenge = 'a'.repeat(64)
    expect(CHALLENGE.test(challenge)).toBe(true)
    const [root, api] = await Promise.all(
      ['', '/api'].map((base) =>
        fetch(`${t.baseUrl}${base}/_sandbox/health?challenge=${challenge}`).then(
          (r) => r.json() as Promise<{ proof: string }>,
        ),
      ),
    )
    expect(api).toEqual(root)
    expect(root.proof).toMatch(/^[0-9a-f]{64}$/)
    const link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    const page = await fetch(`${t.baseUrl}/api/checkout/pay?id=${link._id}`)
    expect([page.status, page.headers.get('content-type'), await page.json()]).toEqual([
      404,
      'application/json',
      { message: 'Not found.' },
    ])
    expect((await t.a.call('GET', '/api')).status).toBe(404)
  })
})
