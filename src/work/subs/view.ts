import { formatAmount } from '../../render/format.js'
import { inWords, type View } from '../../render/views.js'
import { isRecord, plain, type Rec } from '../../values.js'

/** How subscriptions are shown: a table's columns, a record's fields, one line for a plan. */

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

/**
 * `subs list --unpaid` and `--overdue`: the unpaid charges' count and the amount owed (owedBy,
 * charges.ts) after the package, a table's OWED the sum with its currency, CSV and TSV the number
 * with a column of its currency. The package's price, its period and the date go first at 80 columns.
 */
export const OWING_VIEW: View = {
  ...SUBSCRIPTION_VIEW,
  listColumns: [
    '_id',
    'status',
    'email',
    'package.name',
    'unpaid_charges',
    'amount_owed.amount',
    'package.amount',
    'package.frequency',
    'created_at',
  ],
  recordFields: [
    ...SUBSCRIPTION_VIEW.recordFields,
    'unpaid_charges',
    'amount_owed.amount',
    'amount_owed.currency',
  ],
  dropOrder: ['created_at', 'package.frequency', 'package.amount'],
}

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

/** The money a subscription is about, for a plan's total: its package's price (each per its own period). */
export const SUBSCRIPTION_MONEY = {
  of: (subscription: Rec) => {
    const pkg = isRecord(subscription.package) ? subscription.package : {}
    return { amount: pkg.amount, currency: pkg.currency }
  },
  what: "the packages' prices",
}
