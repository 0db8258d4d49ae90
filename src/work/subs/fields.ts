import { formatAmount } from '../../render/format.js'
import type { Choice } from '../../runtime/io.js'
import type { SubscriptionInput, SubscriptionUpdate } from '../../shared/fields.js'
import { plain, type Rec, sanitizeText } from '../../values.js'
import { COMMON_FIELDS, fieldsOf, rules } from '../common/field-set.js'
import type { Statuses } from '../common/filters.js'

/** The fields of `subs create` (docs/spec/payment-service-api.md 4.7). */
export const SUBSCRIPTION_FIELDS = fieldsOf<SubscriptionInput>()({
  'package-id': {
    field: 'package_id',
    description:
      'Package to subscribe to (_id of the package; `pay sandbox packages` lists the sandbox ones).',
    question: 'Package id',
    rules: [rules.id],
  },
  email: COMMON_FIELDS.email,
  phone: COMMON_FIELDS.phone,
})

/** Subscription statuses (docs/spec/payment-service-api.md 3), and the words pay prints for them. */
export const SUBSCRIPTION_STATUSES: Statuses = {
  known: ['created', 'cancel'],
  aliases: { cancelled: 'cancel', canceled: 'cancel' },
}

/** The statuses an update may set: docs/spec/payment-service-api.md 4.9 states `cancel` only. */
const SETTABLE_STATUSES = ['cancel']

/** A status as the service spells it: the words pay prints (`cancelled`), in any case, are taken. */
function serviceStatus(typed: string): string {
  const word = typed.trim().toLowerCase()
  if (Object.hasOwn(SUBSCRIPTION_STATUSES.aliases, word)) return SUBSCRIPTION_STATUSES.aliases[word]
  return SUBSCRIPTION_STATUSES.known.find((status) => status.toLowerCase() === word) ?? typed
}

const settableStatus = (value: string, field: string) =>
  SETTABLE_STATUSES.includes(value)
    ? undefined
    : `The ${field} an update can set is cancel (pay shows it as cancelled; cancelled and canceled are taken too).`

/**
 * The fields of `subs update` (docs/spec/payment-service-api.md 4.9):
 * all optional, only those given are sent.
 */
export const SUBSCRIPTION_CHANGE_FIELDS = fieldsOf<SubscriptionUpdate>()({
  email: { field: 'email', description: 'New customer e-mail address.', rules: [rules.email] },
  phone: { field: 'phone_no', description: 'New customer phone number.' },
  status: {
    field: 'status',
    description: 'New status: cancel (or cancelled, as pay shows it); sent as "cancel".',
    rules: [settableStatus],
    normalize: serviceStatus,
  },
})

/** A package as a choice of the `Package id` question: `Starter · 120.00 USD yearly · ID`. */
export function packageChoice(pkg: Rec): Choice {
  const what = [plain(pkg.name), `${formatAmount(pkg.amount, pkg.currency)} ${plain(pkg.frequency)}`.trim()]
  return { name: sanitizeText([...what, plain(pkg._id)].filter(Boolean).join(' · ')), value: plain(pkg._id) }
}

/** The status Update Subscription accepts to cancel (docs/spec/payment-service-api.md 3). */
export const CANCELLED_STATUS = 'cancel'

export const isCancelled = (subscription: Rec) =>
  plain(subscription.status).toLowerCase() === CANCELLED_STATUS
