import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { centsOf, paymentTime } from '../../../../src/sandbox/handlers/notify/notification.js'
import { verifyWebhook } from '../../../../src/shared/webhook-signature.js'
import {
  NOTIFICATION_KEY as KEY,
  NOTIFIED_LINK as LINK,
  sandboxNotification as notify,
} from '../../../helpers/notification-fixture.js'

/**
 * The hash of a notification against an independent computation: the service's WooCommerce
 * plugin's `get_valid_ipn_response` and `verify_hash` (swipe-engineer/swipe-for-woocommerce,
 * libraries/swipego/includes/abstracts/abstract-swipego-client.php), written again here from the
 * PHP, not from the sandbox's code.
 */

/** The keys the plugin requires (`isset`: present and not null), each replaced by `trim(sanitize_text_field(v))`. */
const CALLBACK_PARAMS = [
  'attempt_id',
  'payment_id',
  'payment_time',
  'payment_amount',
  'payment_status',
  'payment_link_id',
  'payment_link_reference',
  'payment_link_reference_2',
  'payment_message',
  'payment_currency',
  'hash',
]

/** PHP's `(string)`: an integer in decimal, a string as it is. */
const phpString = (value: unknown) => (typeof value === 'number' ? String(value) : String(value))

/**
 * WordPress's sanitize_text_field, for the text of these tests: tags stripped, line breaks, tabs
 * and runs of spaces made one space, `%XX` octets removed, the ends trimmed.
 */
const sanitizeTextField = (value: string) =>
  value
    .replace(/<[^>]*>/g, '')
    .replace(/[\r\n\t ]+/g, ' ')
    .replace(/%[a-f0-9]{2}/gi, '')
    .trim()

/** The plugin, from the raw POST body to `$hash == $generated_hash`. */
function pluginAccepts(rawBody: string, signatureKey: string): boolean {
  const response = JSON.parse(rawBody)
  const data: Record<string, unknown> = { ...response.data }
  for (const param of CALLBACK_PARAMS) {
    if (data[param] === undefined || data[param] === null) return false
    data[param] = sanitizeTextField(phpString(data[param])).trim()
  }
  const hash = data.hash
  delete data.hash
  const encoded = Object.values(data).map(phpString).join('')
  const generated = createHmac('sha256', signatureKey)
    .update(signatureKey + encoded)
    .digest('hex')
  return hash === generated
}

describe('a notification', () => {
  it('is the service’s shape: trigger_at, event, data in the documented order, hash last, no nulls', () => {
    const body = JSON.parse(notify({ reference: undefined, reference_2: undefined }))
    expect(Object.keys(body)).toEqual(['trigger_at', 'event', 'data'])
    expect(body.trigger_at).toBe('2026-11-24T17:10:25.000Z')
    expect(body.event).toBe('payment.created')
    expect(body.data).toEqual({
      attempt_id: expect.stringMatching(/^[0-9a-f]{24}$/),
      payment_id: expect.stringMatching(/^[0-9a-f]{24}$/),
      payment_time: '24-11-2026 05:10:25 pm',
      payment_amount: 2550,
      payment_status: 1,
      payment_link_id: LINK._id,
      payment_link_reference: '',
      payment_link_reference_2: '',
      payment_message: 'Payment successful',
      payment_currency: 'EUR',
      payment_method: 'card',
      payment_provider: 'pay-sandbox',
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
    expect(Object.keys(body.data)).toEqual([
      ...CALLBACK_PARAMS.slice(0, -1),
      'payment_method',
      'payment_provider',
      'hash',
    ])
    expect(body.data.attempt_id).not.toBe(body.data.payment_id)
  })

  it('a failed attempt has a status other than 1 and 2, the plugins’ failed', () => {
    const { data } = JSON.parse(notify({ paid: false }, false))
    expect([data.payment_status, data.payment_message]).toEqual([3, 'Payment failed'])
  })

  it('payment_time is PHP’s d-m-Y h:i:s a in UTC; payment_amount whole cents, never through a float product', () => {
    expect(paymentTime(Date.parse('2026-01-02T00:00:09Z'))).toBe('02-01-2026 12:00:09 am')
    expect(paymentTime(Date.parse('2026-01-02T12:30:00Z'))).toBe('02-01-2026 12:30:00 pm')
    expect(paymentTime(Date.parse('2026-12-31T23:59:59Z'))).toBe('31-12-2026 11:59:59 pm')
    const cents = [25.5, 19.99, 1.1, 0.01, 0.005, 0.004, 1000, 1234567.89, 99999999999.99].map(centsOf)
    expect(cents).toEqual([2550, 1999, 110, 1, 1, 0, 100000, 123456789, 9999999999999])
    expect(19.99 * 100).not.toBe(1999) // what a float product would have sent
  })

  it('is accepted by the plugin’s own check, for the values the sandbox makes and the references apps send', () => {
    const references = ['7', '', 'ORD-2026/11', 'Zoë’s café ☕', '12345678901234567890', '50%']
    for (const reference of references) {
      for (const paid of [true, false]) {
        const raw = notify({ reference, amount: 0.01 }, paid)
        expect(pluginAccepts(raw, KEY), reference).toBe(true)
        expect(verifyWebhook(raw, KEY), reference).toBe(true)
      }
    }
  })

  it('a reference that sanitising changes: sent as the link holds it and hashed so; the plugin, which hashes what it sanitised, refuses it', () => {
    // docs/choices.md says why: what is sent is what is hashed, so any verifier of the body agrees.
    const raw = notify({ reference: '  ORD-7  ', reference_2: 'a\tb' })
    expect(JSON.parse(raw).data.payment_link_reference).toBe('  ORD-7  ')
    expect(verifyWebhook(raw, KEY)).toBe(true)
    expect(pluginAccepts(raw, KEY)).toBe(false)
  })
})
