import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AMOUNT_CASES,
  CURRENCY_CASES,
  EMAIL_CASES,
  FIFTY_EMOJI,
  NOT_AMOUNTS,
} from '../../../helpers/field-rules.js'
import {
  invalid,
  startTestSandbox,
  type TestSandbox,
  VALID_LINK,
  VALID_TOKEN,
} from '../../../helpers/sandbox.js'

/**
 * The sandbox against the table pay's local checks are held to as well (test/helpers/field-rules.ts):
 * the service's e-mail rule everywhere an e-mail is taken, amounts near a decimal said for what
 * they are, and the fields the service's documentation bounds, on create and update, every
 * failing field at once, in Laravel's words.
 */

let t: TestSandbox
let packageId: string
let link: { _id: string }
let subscription: { _id: string }
beforeAll(async () => {
  t = await startTestSandbox()
  packageId = t.packageIds[0]
  link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
  subscription = (await t.a.call('POST', '/subscriptions', { package_id: packageId, email: 'a@b.co' })).json
    .data
})
afterAll(() => t.close())

const EMAIL_INVALID = invalid({ email: ['The email must be a valid email address.'] })

describe('the e-mail rule, everywhere an e-mail is taken', () => {
  it.each(EMAIL_CASES)('%j: taken %s', async (email, taken) => {
    const answers = await Promise.all([
      t.a.call('POST', '/tokenizations/create-token', { ...VALID_TOKEN, email }),
      t.a.call('POST', '/payment-links', { ...VALID_LINK, email }),
      t.a.call('PUT', `/payment-links/${link._id}`, { ...VALID_LINK, email }),
      t.a.call('POST', '/subscriptions', { package_id: packageId, email }),
      t.a.call('PUT', `/subscriptions/${subscription._id}`, { email }),
    ])
    for (const answer of answers) {
      if (taken) expect(answer.status).toBe(200)
      else expect([answer.status, answer.json]).toEqual([422, EMAIL_INVALID])
    }
    if (taken) expect(answers[0].json.data.email).toBe(email)
  })
})

describe('amounts', () => {
  it.each(AMOUNT_CASES)('%j: %s', async (amount, problem) => {
    const answers = await Promise.all([
      t.a.call('POST', '/payment-links', { ...VALID_LINK, amount }),
      t.a.call('PUT', `/payment-links/${link._id}`, { ...VALID_LINK, amount }),
    ])
    for (const answer of answers) {
      if (problem === undefined) expect(answer.status).toBe(200)
      else expect([answer.status, answer.json]).toEqual([422, invalid({ amount: [`The amount ${problem}`] })])
    }
  })

  it.each(NOT_AMOUNTS)('%j is no number: Laravel’s words', async (amount) => {
    const answer = await t.a.call('POST', '/payment-links', { ...VALID_LINK, amount })
    expect([answer.status, answer.json]).toEqual([422, invalid({ amount: ['The amount must be a number.'] })])
  })
})

describe('the fields the service’s documentation bounds', () => {
  const TOO_LONG = `${FIFTY_EMOJI}x`

  it('title, reference and reference_2: 50 characters pass (counted in code points: 50 emoji), 51 fail, every one at once, on create and update', async () => {
    const fifty = { ...VALID_LINK, title: FIFTY_EMOJI, reference: FIFTY_EMOJI, reference_2: 'r'.repeat(50) }
    for (const [method, path] of [
      ['POST', '/payment-links'],
      ['PUT', `/payment-links/${link._id}`],
    ]) {
      const ok = await t.a.call(method, path, fifty)
      expect([method, ok.status, ok.json.data.title]).toEqual([method, 200, FIFTY_EMOJI])
      const long = await t.a.call(method, path, {
        ...VALID_LINK,
        currency: 'EURO',
        title: TOO_LONG,
        reference: TOO_LONG,
        reference_2: 'r'.repeat(51),
      })
      expect([method, long.status, long.json]).toEqual([
        method,
        422,
        invalid({
          currency: ['The currency must be 3 characters.', 'The currency may only contain letters.'].slice(
            0,
            1,
          ),
          title: ['The title may not be greater than 50 characters.'],
          reference: ['The reference may not be greater than 50 characters.'],
          reference_2: ['The reference_2 may not be greater than 50 characters.'],
        }),
      ])
    }
  })

  it('a tokenization’s title too', async () => {
    expect(
      (await t.a.call('POST', '/tokenizations/create-token', { ...VALID_TOKEN, title: FIFTY_EMOJI })).status,
    ).toBe(200)
    const long = await t.a.call('POST', '/tokenizations/create-token', { ...VALID_TOKEN, title: TOO_LONG })
    expect([long.status, long.json]).toEqual([
      422,
      invalid({ title: ['The title may not be greater than 50 characters.'] }),
    ])
  })

  it.each(CURRENCY_CASES)('the currency %j: a three-letter code %s', async (currency, code) => {
    const answer = await t.a.call('POST', '/payment-links', { ...VALID_LINK, currency })
    if (code) expect(answer.status).toBe(200)
    else {
      const messages = [
        ...([...currency].length === 3 ? [] : ['The currency must be 3 characters.']),
        ...(/^[A-Za-z]+$/.test(currency) ? [] : ['The currency may only contain letters.']),
      ]
      expect([answer.status, answer.json]).toEqual([422, invalid({ currency: messages })])
    }
  })
})
