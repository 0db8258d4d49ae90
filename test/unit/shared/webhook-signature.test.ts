import { createHmac } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { verifyWebhook, webhookProblem } from '../../../src/shared/webhook-signature.js'
import {
  sandboxNotification as fromSandbox,
  NOTIFICATION_KEY as KEY,
} from '../../helpers/notification-fixture.js'

/**
 * The strict check of a notification (`verifyWebhook`, `webhookProblem`): the service's hash runs
 * the values of `data` together with no separator, so whoever holds one genuine notification can
 * move characters between values, add a key, or reorder the keys, and keep the hash. Each
 * forgery below keeps the hash (the loose check, as the plugins and the earlier verifyWebhook
 * made it, still accepts it) and is refused; genuine notifications are accepted.
 */

type Data = Record<string, string | number>

/** The hash as the service's plugins compute it, written again here: the key, then every value run together. */
const hashFor = (data: Data) =>
  createHmac('sha256', KEY)
    .update(KEY + Object.values(data).map(String).join(''))
    .digest('hex')

/** A notification of `data` signed with KEY, in the service's shape. */
const signed = (data: Data) => ({
  trigger_at: '2026-11-24T17:10:25.000Z',
  event: 'payment.created',
  data: { ...data, hash: hashFor(data) },
})

/** The check the plugins make (and verifyWebhook made): the hash of the values in whatever keys and order came. */
function looseAccepts(body: { data: Data }): boolean {
  const { hash, ...rest } = body.data
  return hash === hashFor(rest)
}

/** A genuine failed notification, its ids chosen so that the forgeries below can be made of it. */
const FAILED: Data = {
  attempt_id: '5a91a6b5a2892c6e66e4f23c',
  payment_id: 'a18c7a2b52b481b51bdcff21',
  payment_time: '24-11-2026 05:10:25 pm',
  payment_amount: 2550,
  payment_status: 3,
  payment_link_id: 'd39b449b8858ea22c160a3f5',
  payment_link_reference: '17',
  payment_link_reference_2: '',
  payment_message: 'Payment failed',
  payment_currency: 'EUR',
  payment_method: 'card',
  payment_provider: 'pay-sandbox',
}
const PAID: Data = { ...FAILED, payment_status: 1, payment_message: 'Payment successful' }

/** `data` with its values as given, in the order given, and the genuine notification's hash. */
const forged = (genuine: Data, data: Data) => ({
  ...signed(genuine),
  data: { ...data, hash: hashFor(genuine) },
})

describe('genuine notifications are accepted', () => {
  it('the sandbox’s, paid and failed, with the references apps send (text, empty, numbers as text, spaces)', () => {
    const references = [
      '7',
      '17',
      '',
      'ORD-2026/11',
      'Zoë’s café ☕',
      '12345678901234567890',
      '50%',
      '  ORD-7  ',
    ]
    for (const reference of references) {
      for (const paid of [true, false]) {
        const raw = fromSandbox(
          { reference, reference_2: reference === '7' ? undefined : 'a\tb', amount: 0.01 },
          paid,
        )
        expect(webhookProblem(raw, KEY), reference).toBeUndefined()
        expect(verifyWebhook(raw, KEY), reference).toBe(true)
      }
    }
  })

  it('as raw text, as a Buffer, and as the object parsed from it; the same under another key is refused', () => {
    const raw = fromSandbox()
    expect(verifyWebhook(raw, KEY)).toBe(true)
    expect(verifyWebhook(Buffer.from(raw), KEY)).toBe(true)
    expect(verifyWebhook(JSON.parse(raw), KEY)).toBe(true)
    expect(webhookProblem(raw, `${KEY}0`)).toBe(
      'the hash does not match: it was not signed with this signature key, or it was changed',
    )
    expect(webhookProblem(raw, '')).toBe('the signature key is empty')
    expect(webhookProblem(raw, undefined)).toBe('there is no signature key to check it with')
    expect(verifyWebhook(raw, undefined)).toBe(false)
  })

  it('the pending status (2), and the notifications written here (the forgeries’ genuine originals)', () => {
    expect(verifyWebhook(signed({ ...PAID, payment_status: 2 }), KEY)).toBe(true)
    expect(verifyWebhook(signed(FAILED), KEY)).toBe(true)
    expect(verifyWebhook(signed(PAID), KEY)).toBe(true)
  })
})

describe('each forgery made by moving characters keeps the hash, and is refused', () => {
  const refused = (body: { data: Data }, why: string) => {
    expect(looseAccepts(body), 'the forgery keeps the hash').toBe(true)
    expect(webhookProblem(body, KEY)).toBe(why)
    expect(verifyWebhook(body, KEY)).toBe(false)
  }

  it('a failed notification made paid: a 1 moved out of payment_id, the 3 into an added key', () => {
    const { attempt_id, payment_id, payment_time, payment_amount, payment_status: _, ...after } = FAILED
    const shorter = String(payment_id).slice(0, -1)
    const made = {
      attempt_id,
      payment_id: shorter,
      payment_status: 1,
      payment_time,
      payment_amount,
      status: 3,
      ...after,
    }
    refused(forged(FAILED, made), 'data has a key the service never sends: "status"')
    // With no key added, the 3 taken into the amount: the keys out of order.
    const reordered = {
      attempt_id,
      payment_id: shorter,
      payment_status: 1,
      payment_time,
      payment_amount: 25503,
      ...after,
    }
    refused(
      forged(FAILED, reordered),
      "data's keys are out of order: payment_status where payment_time belongs",
    )
    // In the documented order, the id one digit short is refused all the same.
    expect(webhookProblem(signed({ ...FAILED, payment_id: shorter }), KEY)).toBe(
      'data.payment_id is not 24 hex digits',
    )
  })

  it('a paid notification given a new attempt_id: its last character moved into payment_id', () => {
    const attempt = String(PAID.attempt_id)
    refused(
      forged(PAID, {
        ...PAID,
        attempt_id: attempt.slice(0, -1),
        payment_id: attempt.slice(-1) + PAID.payment_id,
      }),
      'data.attempt_id is not 24 hex digits',
    )
  })

  it('payment_link_reference "17" made "1" (the 7 into an added key) or "517" (the 5 out of payment_link_id)', () => {
    const { payment_link_reference: _, payment_link_reference_2, payment_message, ...rest } = PAID
    const { payment_currency, payment_method, payment_provider, ...before } = rest
    const after = {
      payment_link_reference_2,
      payment_message,
      payment_currency,
      payment_method,
      payment_provider,
    }
    refused(
      forged(PAID, { ...before, payment_link_reference: '1', extra: '7', ...after }),
      'data has a key the service never sends: "extra"',
    )
    const linkId = String(PAID.payment_link_id)
    refused(
      forged(PAID, {
        ...PAID,
        payment_link_id: linkId.slice(0, -1),
        payment_link_reference: `${linkId.slice(-1)}17`,
      }),
      'data.payment_link_id is not 24 hex digits',
    )
  })

  it('text where a number belongs, and a number where text belongs', () => {
    refused(
      forged(PAID, { ...PAID, payment_amount: '2550' }),
      'data.payment_amount is not an integer (cents)',
    )
    refused(
      forged(PAID, { ...PAID, payment_status: '1' }),
      'data.payment_status is not one of 1, 2, 3 (a number)',
    )
    refused(forged(PAID, { ...PAID, payment_link_reference: 17 }), 'data.payment_link_reference is not text')
  })
})

describe('what no check of this scheme can refuse (docs/security.md, Notifications)', () => {
  it('adjacent text fields trading characters: reference "17" and reference_2 "" made "1" and "7"', () => {
    const body = forged(PAID, { ...PAID, payment_link_reference: '1', payment_link_reference_2: '7' })
    // The receiver's defence: the order's payment_link_id, amount and currency, matched against the notification.
    expect(verifyWebhook(body, KEY)).toBe(true)
  })

  it('a notification sent again as it was: the receiver keeps the attempt_ids it has seen', () => {
    const raw = fromSandbox()
    expect([verifyWebhook(raw, KEY), verifyWebhook(raw, KEY)]).toEqual([true, true])
  })
})

describe('webhookProblem says why, in words a command can print', () => {
  const genuine = signed(PAID)
  const without = (key: string) => {
    const { [key]: _, ...rest }: Data = genuine.data
    return { ...genuine, data: rest }
  }

  it('the body: not JSON, not an object, not the notification’s keys in order, another event', () => {
    expect(webhookProblem('not json', KEY)).toBe('the body is not JSON')
    expect(webhookProblem('[]', KEY)).toBe('the body is not a JSON object')
    expect(webhookProblem({ data: genuine.data }, KEY)).toBe('the notification has no trigger_at')
    expect(webhookProblem({ ...genuine, id: 1 }, KEY)).toBe(
      'the notification has a key the service never sends: "id"',
    )
    expect(
      webhookProblem({ event: genuine.event, trigger_at: genuine.trigger_at, data: genuine.data }, KEY),
    ).toBe("the notification's keys are out of order: event where trigger_at belongs")
    expect(webhookProblem({ ...genuine, event: 'payment.updated' }, KEY)).toBe(
      'event is not "payment.created"',
    )
    expect(webhookProblem({ ...genuine, trigger_at: 1 }, KEY)).toBe('trigger_at is not text')
    expect(webhookProblem({ ...genuine, data: [] }, KEY)).toBe('data is not a JSON object')
  })

  it('data: each key missing, and each value out of its form', () => {
    for (const key of Object.keys(genuine.data)) {
      expect(webhookProblem(without(key), KEY), key).toBe(`data has no ${key}`)
    }
    const wrong: [string, unknown, string][] = [
      ['attempt_id', '5A91A6B5A2892C6E66E4F23C', '24 hex digits'],
      ['payment_id', null, '24 hex digits'],
      ['payment_time', '2026-11-24 17:10:25', 'a time as d-m-Y h:i:s a'],
      ['payment_time', '24-11-2026 17:10:25 pm', 'a time as d-m-Y h:i:s a'],
      ['payment_time', '32-11-2026 05:10:25 pm', 'a time as d-m-Y h:i:s a'],
      ['payment_amount', 25.5, 'an integer (cents)'],
      ['payment_amount', -1, 'an integer (cents)'],
      ['payment_status', 4, 'one of 1, 2, 3 (a number)'],
      ['payment_status', 0, 'one of 1, 2, 3 (a number)'],
      ['payment_link_reference', null, 'text'],
      ['payment_message', { a: 1 }, 'text'],
      ['payment_currency', 'EURO', 'three letters'],
      ['payment_currency', '€UR', 'three letters'],
      ['payment_method', 1, 'text'],
      ['hash', String(genuine.data.hash).toUpperCase(), '64 lowercase hex digits'],
      ['hash', String(genuine.data.hash).slice(0, 62), '64 lowercase hex digits'],
      ['hash', 'é'.repeat(64), '64 lowercase hex digits'],
    ]
    for (const [key, value, said] of wrong) {
      const body = { ...genuine, data: { ...genuine.data, [key]: value } }
      expect(webhookProblem(body, KEY), `${key} ${JSON.stringify(value)}`).toBe(`data.${key} is not ${said}`)
    }
    const last = String(genuine.data.hash)
    const flipped = {
      ...genuine,
      data: { ...genuine.data, hash: last.replace(/.$/, last.endsWith('0') ? '1' : '0') },
    }
    expect(webhookProblem(flipped, KEY)).toBe(
      'the hash does not match: it was not signed with this signature key, or it was changed',
    )
  })

  it('never throws, and refuses whatever is not a notification', () => {
    fc.assert(
      fc.property(fc.anything(), fc.string(), (body, key) => {
        expect(typeof verifyWebhook(body, key)).toBe('boolean')
        const problem = webhookProblem(body, key)
        expect(problem === undefined || typeof problem === 'string').toBe(true)
      }),
    )
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(verifyWebhook(text, KEY)).toBe(false)
      }),
    )
    for (const other of ['', '{"data":[]}', fromSandbox().slice(0, -1), 42, null, undefined, [], new Map()]) {
      expect(verifyWebhook(other, KEY), String(other)).toBe(false)
    }
  })
})
