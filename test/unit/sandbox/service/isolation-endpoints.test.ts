import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listPackages } from '../../../../src/sandbox/domain/business.js'
import type { Json } from '../../../helpers/links.js'
import {
  invalid,
  KEY_A,
  KEY_B,
  rawRequest,
  startTestSandbox,
  storeText,
  type TestSandbox,
  VALID_LINK,
} from '../../../helpers/sandbox.js'
import { LINK_NOT_FOUND, listAll, SUB_NOT_FOUND } from '../../../helpers/sandbox-load.js'

/** One business never reaches another's records, on any endpoint. */

describe('isolation on every endpoint', () => {
  let t: TestSandbox
  const ids = {
    A: { links: [] as string[], subs: [] as string[] },
    B: { links: [] as string[], subs: [] as string[] },
  }
  const packagesOf = (key: string) => listPackages(key).map((pkg) => pkg._id)

  beforeAll(async () => {
    t = await startTestSandbox()
    // Two records of each kind per business, one subscription cancelled: lists run over several pages.
    for (const [label, client, key] of [
      ['A', t.a, KEY_A],
      ['B', t.b, KEY_B],
    ] as const) {
      for (const n of [1, 2]) {
        const link = await client.call('POST', '/payment-links', {
          ...VALID_LINK,
          title: `${label} link ${n}`,
        })
        const sub = await client.call('POST', '/subscriptions', {
          package_id: packagesOf(key)[n],
          email: `${label.toLowerCase()}${n}@example.com`,
        })
        expect([link.status, sub.status]).toEqual([200, 200])
        ids[label].links.push(link.json.data._id)
        ids[label].subs.push(sub.json.data._id)
      }
      expect(
        (await client.call('PUT', `/subscriptions/${ids[label].subs[1]}`, { status: 'cancel' })).status,
      ).toBe(200)
    }
  })
  afterAll(() => t.sandbox.close())

  const NOBODYS_ID = 'abcdefabcdefabcdefabcdef'
  /** Every request that names a record, with bodies that would succeed and that would fail validation. */
  const BY_ID: [string, string, 'links' | 'subs', unknown, Json][] = [
    ['get payment link', 'GET', 'links', undefined, LINK_NOT_FOUND],
    ['update payment link', 'PUT', 'links', { ...VALID_LINK, title: 'Taken over' }, LINK_NOT_FOUND],
    // 404 before 422: a validation answer would tell B that the id exists.
    ['update payment link, invalid body', 'PUT', 'links', { amount: '-1' }, LINK_NOT_FOUND],
    ['delete payment link', 'DELETE', 'links', undefined, LINK_NOT_FOUND],
    ['retrieve subscription', 'GET', 'subs', undefined, SUB_NOT_FOUND],
    ['update subscription email', 'PUT', 'subs', { email: 'thief@example.com' }, SUB_NOT_FOUND],
    ['update subscription phone', 'PUT', 'subs', { phone_no: '+15550000000' }, SUB_NOT_FOUND],
    ['update subscription, empty body', 'PUT', 'subs', {}, SUB_NOT_FOUND],
    ['cancel subscription', 'PUT', 'subs', { status: 'cancel' }, SUB_NOT_FOUND],
    ['update subscription, invalid status', 'PUT', 'subs', { status: 'active' }, SUB_NOT_FOUND],
    ['delete subscription', 'DELETE', 'subs', undefined, SUB_NOT_FOUND],
  ]

  it.each(BY_ID)(
    'B: %s of each of A’s records answers as for an id nobody has, and the store is byte-for-byte unchanged',
    async (_label, method, kind, body, notFound) => {
      const prefix = kind === 'links' ? '/payment-links' : '/subscriptions'
      const before = storeText(t.dir)
      const answersOfA = await Promise.all(ids.A[kind].map((id) => t.a.call('GET', `${prefix}/${id}`)))
      for (const id of [...ids.A[kind], NOBODYS_ID]) {
        const answer = await t.b.call(method, `${prefix}/${id}`, body)
        expect([id, answer.status, answer.json]).toEqual([id, 404, notFound])
      }
      expect(storeText(t.dir)).toBe(before)
      const answersAfter = await Promise.all(ids.A[kind].map((id) => t.a.call('GET', `${prefix}/${id}`)))
      expect(answersAfter.map((answer) => JSON.stringify(answer.json.data))).toEqual(
        answersOfA.map((answer) => JSON.stringify(answer.json.data)),
      )
    },
  )

  it.each(['/payment-links', '/subscriptions'])(
    'B: HEAD %s/<A’s id> is a 404 without a body',
    async (prefix) => {
      const kind = prefix === '/payment-links' ? 'links' : 'subs'
      for (const id of ids.A[kind]) {
        const answer = await rawRequest(t.sandbox.baseUrl, {
          method: 'HEAD',
          path: `${prefix}/${id}`,
          headers: { Authorization: `Bearer ${KEY_B}` },
        })
        expect([answer.status, answer.text]).toEqual([404, ''])
      }
    },
  )

  it.each([
    ['/payment-links', 'links'],
    ['/subscriptions', 'subs'],
  ] as const)('GET %s shows each business exactly its own records, on every page', async (route, kind) => {
    for (const [client, label] of [
      [t.a, 'A'],
      [t.b, 'B'],
    ] as const) {
      for (const perPage of [1, 500]) {
        const shown = [...(await listAll(client, route, perPage)).keys()]
        expect(shown.sort()).toEqual([...ids[label][kind]].sort())
      }
    }
  })

  it('B subscribing to A’s package gets the unknown package_id answer (422), and nothing is stored', async () => {
    const before = storeText(t.dir)
    for (const packageId of [...packagesOf(KEY_A), NOBODYS_ID]) {
      const answer = await t.b.call('POST', '/subscriptions', {
        package_id: packageId,
        email: 'b@example.com',
      })
      expect([packageId, answer.status, answer.json]).toEqual([
        packageId,
        422,
        invalid({ package_id: ['The selected package_id is invalid.'] }),
      ])
    }
    expect(storeText(t.dir)).toBe(before)
  })
})

// ---- 4. Malformed, oversized and wrongly typed bodies ----
