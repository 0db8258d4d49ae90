import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KEY_A, startTestSandbox, type TestSandbox, VALID_LINK } from '../../../helpers/sandbox.js'

let t: TestSandbox
let linkOfA: Record<string, unknown> & { _id: string }
let subscriptionOfA: Record<string, unknown> & { _id: string }

beforeAll(async () => {
  t = await startTestSandbox()
  linkOfA = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
  subscriptionOfA = (
    await t.a.call('POST', '/subscriptions', {
      package_id: t.sandbox.packages[KEY_A][0]._id,
      email: 'ada@example.com',
    })
  ).json.data
  // B has records of its own, so an empty list proves filtering rather than emptiness.
  await t.b.call('POST', '/payment-links', { ...VALID_LINK, title: 'B link' })
  await t.b.call('POST', '/subscriptions', {
    package_id: Object.values(t.sandbox.packages)[1][0]._id,
    email: 'b@example.com',
  })
})
afterAll(() => t.sandbox.close())

describe('business isolation', () => {
  it('gives each key its own business_id', async () => {
    const ofB = (await t.b.call('GET', '/payment-links')).json.data.data[0]
    expect(ofB.business_id).not.toBe(linkOfA.business_id)
  })

  it('hides A’s payment link from B on get, update and delete', async () => {
    const path = `/payment-links/${linkOfA._id}`
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { ...VALID_LINK, title: 'stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const answer = await t.b.call(method, path, body)
      expect(answer.status).toBe(404)
      expect(answer.json).toEqual({ message: 'Payment link not found.' })
    }
    expect((await t.a.call('GET', path)).json.data).toEqual(linkOfA)
  })

  it('hides A’s subscription from B on get, update and delete', async () => {
    const path = `/subscriptions/${subscriptionOfA._id}`
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { status: 'cancel' }],
      ['DELETE', undefined],
    ] as const) {
      const answer = await t.b.call(method, path, body)
      expect(answer.status).toBe(404)
      expect(answer.json).toEqual({ message: 'Subscription not found.' })
    }
    expect((await t.a.call('GET', path)).json.data).toEqual(subscriptionOfA)
  })

  it('lists only the caller’s records', async () => {
    const linksA = (await t.a.call('GET', '/payment-links')).json.data
    const linksB = (await t.b.call('GET', '/payment-links')).json.data
    expect(linksA.data.map((link: { _id: string }) => link._id)).toEqual([linkOfA._id])
    expect(linksB.total).toBe(1)
    expect(linksB.data[0].title).toBe('B link')
    const subsA = (await t.a.call('GET', '/subscriptions')).json.data
    const subsB = (await t.b.call('GET', '/subscriptions')).json.data
    expect(subsA.data.map((sub: { _id: string }) => sub._id)).toEqual([subscriptionOfA._id])
    expect(subsB.total).toBe(1)
    expect(subsB.data[0].email).toBe('b@example.com')
  })
})
