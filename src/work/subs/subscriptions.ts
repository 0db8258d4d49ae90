import { Flags } from '@oclif/core'
import { formatAmount } from '../../render/format.js'
import { inWords, type View } from '../../render/views.js'
import type { Choice } from '../../runtime/io.js'
import type { SubscriptionInput, SubscriptionUpdate } from '../../shared/fields.js'
import { isRecord, plain, type Rec, sanitizeText } from '../../values.js'
import { COMMON_FIELDS, fieldsOf, rules } from '../common/field-set.js'
import {
  allOf,
  CREATED_FLAGS,
  canonicalStatus,
  createdWithin,
  matchesAll,
  type Statuses,
} from '../common/filters.js'

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

export const SUBSCRIPTION_VIEW: View = {
  noun: 'subscription',
  plural: 'subscriptions',
  listColumns: [
    '_id',
    'status',
    'email',
    'package.name',
    'package.amount',
    'package.frequency',
    'created_at',
  ],
  recordFields: [
    '_id',
    'status',
    'email',
    'phone_no',
    'package_id',
    'package.name',
    'package.amount',
    'package.frequency',
    'package.date_charge_start',
    'created_at',
    'updated_at',
  ],
  dropOrder: ['created_at', 'package.frequency'],
  lastResort: ['package.name', 'email'],
  words: { status: { cancel: 'cancelled' } },
}

/** The client-side filters of `subs list`. */
export const SUBSCRIPTION_FILTER_FLAGS = {
  status: Flags.string({
    description: 'Only subscriptions with this status: created, cancel (or cancelled); any case.',
  }),
  email: Flags.string({ description: 'Only subscriptions of this customer e-mail; any case.' }),
  ...CREATED_FLAGS,
}

/** The filter the flags describe (`now` for a span such as 7d); undefined when none was given. */
export function subscriptionFilter(
  flags: { status?: string; email?: string; 'created-after'?: string; 'created-before'?: string },
  now = Date.now(),
) {
  const fields = matchesAll([
    { field: 'status', value: canonicalStatus(flags.status, SUBSCRIPTION_STATUSES) },
    { field: 'email', value: flags.email },
  ])
  return allOf(fields, createdWithin(flags, now))
}

/** The status Update Subscription accepts to cancel (docs/spec/payment-service-api.md 3). */
export const CANCELLED_STATUS = 'cancel'

export const isCancelled = (subscription: Rec) =>
  plain(subscription.status).toLowerCase() === CANCELLED_STATUS

/** One line for a confirmation: e-mail · package · amount [status] (not yet sanitised). */
export function describeSubscription(subscription: Rec): string {
  const pkg = isRecord(subscription.package) ? subscription.package : {}
  const what = [
    plain(subscription.email),
    plain(pkg.name),
    pkg.amount === undefined ? '' : formatAmount(pkg.amount, pkg.currency),
  ]
    .filter((part) => part !== '')
    .join(' · ')
  return `${what}  [${plain(inWords(subscription, SUBSCRIPTION_VIEW).status)}]`
}
