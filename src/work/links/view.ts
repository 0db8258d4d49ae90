import { PayError } from '../../errors.js'
import { cellText, formatAmount, paint } from '../../render/format.js'
import type { View } from '../../render/views.js'
import { isPlainWebUrl, plain, type Rec } from '../../values.js'

/** How payment links are shown: a table's columns, a record's fields, one line for a plan. */

/**
 * Paid or not, in words, after the status: `Active, paid` / `Active, unpaid`. The question
 * support staff ask, so a list table never drops it and it never rests on colour alone.
 */
function statusAndPaid(link: Rec, style: { colour: boolean }): string {
  const status = cellText(link, 'status', style)
  if (typeof link.paid !== 'boolean') return status
  const word = link.paid ? 'paid' : 'unpaid'
  const shown = style.colour ? paint(word, link.paid ? 'good' : 'faint') : word
  return status === '' ? shown : `${status}, ${shown}`
}

export const LINK_VIEW: View = {
  noun: 'payment link',
  plural: 'payment links',
  listColumns: ['_id', 'status', 'paid', 'amount', 'email', 'title', 'reference', 'created_at'],
  // On a terminal, paid or not goes under STATUS (`Active, paid`): never dropped, never colour only.
  tableColumns: ['_id', 'status', 'amount', 'email', 'title', 'reference', 'created_at'],
  tableCell: (link, column, style) => (column === 'status' ? statusAndPaid(link, style) : undefined),
  recordFields: [
    '_id',
    'status',
    'paid',
    'amount',
    'email',
    'phone_no',
    'title',
    'description',
    'reference',
    'reference_2',
    'redirect_url',
    'payment_url',
    'business_id',
    'created_at',
    'updated_at',
  ],
  dropOrder: ['created_at', 'reference'],
  lastResort: ['title', 'email'],
}

/** The result of each row of `links create --from-csv`. */
export const CREATE_RESULT_VIEW: View = {
  noun: 'row',
  plural: 'rows',
  listColumns: ['line', 'status', '_id', 'payment_url', 'error'],
  recordFields: ['line', 'ok', 'status', '_id', 'payment_url', 'error', 'idempotency_key'],
  dropOrder: ['error'],
}

/** The money a payment link is about, for a plan's total: its amount. */
export const LINK_MONEY = { of: (link: Rec) => ({ amount: link.amount, currency: link.currency }) }

/** One line for a confirmation: title · amount · e-mail [status, paid] (not yet sanitised). */
export function describeLink(link: Rec): string {
  const what = [plain(link.title), formatAmount(link.amount, link.currency), plain(link.email)]
    .filter((part) => part !== '')
    .join(' · ')
  // Paid or not in words, as STATUS shows it (`Active, unpaid`); nothing when the record does not say.
  const paid = typeof link.paid === 'boolean' ? (link.paid ? 'paid' : 'unpaid') : ''
  const state = [plain(link.status), paid].filter((part) => part !== '').join(', ')
  return state === '' ? what : `${what}  [${state}]`
}

/** The address where the customer pays, checked, for `links open`, `links qr` and `--open`. */
export function paymentUrlOf(link: Rec): string {
  const url = link.payment_url
  // Nothing but a plain web address goes to a browser or into a QR code (no shell syntax either).
  if (typeof url === 'string' && isPlainWebUrl(url)) return url
  throw new PayError(`The service gave no usable payment_url for payment link ${String(link._id ?? '')}.`, {
    kind: 'general',
  })
}
