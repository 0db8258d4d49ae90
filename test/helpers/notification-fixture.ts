import type { PaymentLinkRecord } from '../../src/sandbox/domain/records.js'
import { notificationText } from '../../src/sandbox/handlers/notify/notification.js'

/** A signature key of the sandbox's form, for notifications signed in unit tests. */
export const NOTIFICATION_KEY = 'sig_sandbox_0123456789abcdef0123456789abcdef0123456789abcdef'

/** A paid link as the sandbox keeps it, the subject of the notifications below. */
export const NOTIFIED_LINK: PaymentLinkRecord = {
  _id: '65a1f0c2e4b0a1b2c3d4e5f6',
  email: 'ada@example.com',
  currency: 'EUR',
  amount: 25.5,
  title: 'Order 7',
  reference: '7',
  reference_2: 'woocommerce',
  status: 'Active',
  payment_url: 'http://127.0.0.1:4010/checkout/pay?id=65a1f0c2e4b0a1b2c3d4e5f6',
  business_id: 1,
  paid: true,
  created_at: '2026-11-24T17:00:00.000Z',
  updated_at: '2026-11-24T17:10:25.000Z',
}

/** When the notifications below were made. */
export const NOTIFIED_AT = Date.parse('2026-11-24T17:10:25.000Z')

/** The sandbox's notification text of NOTIFIED_LINK, changed by `link`, signed with NOTIFICATION_KEY. */
export const sandboxNotification = (link: Partial<PaymentLinkRecord> = {}, paid = true) =>
  notificationText({ link: { ...NOTIFIED_LINK, ...link }, paid, at: NOTIFIED_AT }, NOTIFICATION_KEY)
