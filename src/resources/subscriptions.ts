import { Flags } from '@oclif/core'
import { formatAmount } from '../render/format.js'
import type { View } from '../render/views.js'
import { isRecord, plain, type Rec } from '../values.js'
import { COMMON_FIELDS, FieldSet, rules } from './fields.js'
import { canonicalStatus, matchesAll, type Statuses } from './filters.js'

/** The fields of `subs create` (spec 4.7). */
export const SUBSCRIPTION_FIELDS = new FieldSet({
  'package-id': {
    field: 'package_id',
    description: 'Package to subscribe to (_id of the package).',
    question: 'Package id',
  },
  email: COMMON_FIELDS.email,
  phone: COMMON_FIELDS.phone,
})

/** The fields of `subs update` (spec 4.9): all optional, only those given are sent. */
export const SUBSCRIPTION_CHANGE_FIELDS = new FieldSet({
  email: { field: 'email', description: 'New customer e-mail address.', rules: [rules.email] },
  phone: { field: 'phone_no', description: 'New customer phone number.' },
  status: { field: 'status', description: 'New status (the service documents "cancel").' },
})

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
}

/** Subscription statuses (spec 3), and the words pay prints for them. */
export const SUBSCRIPTION_STATUSES: Statuses = {
  known: ['created', 'cancel'],
  aliases: { cancelled: 'cancel', canceled: 'cancel' },
}

/** The client-side filters of `subs list`. */
export const SUBSCRIPTION_FILTER_FLAGS = {
  status: Flags.string({
    description: 'Only subscriptions with this status: created, cancel (or cancelled); any case.',
  }),
  email: Flags.string({ description: 'Only subscriptions of this customer e-mail; any case.' }),
}

/** The filter the flags describe; undefined when none was given. */
export function subscriptionFilter(flags: { status?: string; email?: string }) {
  return matchesAll([
    { field: 'status', value: canonicalStatus(flags.status, SUBSCRIPTION_STATUSES) },
    { field: 'email', value: flags.email },
  ])
}

/** The status Update Subscription accepts to cancel (spec 3). */
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
  return `${what}  [${plain(subscription.status)}]`
}
