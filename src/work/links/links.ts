import { Flags } from '@oclif/core'
import { type FieldErrors, PayError, validationError } from '../../errors.js'
import { cellText, formatAmount, paint } from '../../render/format.js'
import type { View } from '../../render/views.js'
import type { LinkInput } from '../../shared/fields.js'
import { currencyDigits } from '../../shared/money.js'
import { isPlainWebUrl, plain, type Rec } from '../../values.js'
import {
  COMMON_FIELDS,
  type FieldValues,
  fieldsOf,
  type Relation,
  rules,
  upperCase,
} from '../common/field-set.js'

/**
 * Why `amount` has more decimals than `currency` allows (1.5 JPY, 0.001 EUR), or undefined
 * when it fits, or when either is not well-formed (their own rules say so), or when the code is
 * no ISO currency (BTC), whose amounts may have any decimals.
 */
function excessDecimals(amount: unknown, currency: unknown) {
  if (typeof amount !== 'string' || typeof currency !== 'string') return undefined
  if (!/^\d+(\.\d+)?$/.test(amount)) return undefined
  const digits = currencyDigits(currency)
  const decimals = amount.includes('.') ? amount.length - amount.indexOf('.') - 1 : 0
  if (digits === undefined || decimals <= digits) return undefined
  const allowed = digits === 0 ? 'no decimals' : `at most ${digits} decimal${digits === 1 ? '' : 's'}`
  return { code: currency.toUpperCase(), allowed, decimals }
}

/**
 * An amount and its currency agree: said under --amount, or at the currency's question when
 * the amount came first (the answer to change is the one being typed).
 */
const amountFitsCurrency: Relation = (values, asking): FieldErrors | undefined => {
  const excess = excessDecimals(values.amount, values.currency)
  if (!excess) return undefined
  if (asking === 'currency') {
    return {
      currency: [
        `${excess.code} allows ${excess.allowed}, and the amount ${String(values.amount)} has ${excess.decimals}: type another currency, or press Ctrl-C and give another --amount.`,
      ],
    }
  }
  return { amount: [`The amount must have ${excess.allowed} for ${excess.code}.`] }
}

import {
  allOf,
  CREATED_FLAGS,
  canonicalStatus,
  containsText,
  createdWithin,
  matchesAll,
  type Statuses,
} from '../common/filters.js'

/** The fields of `links create` and `links update`: every field of docs/spec/payment-service-api.md 4.2. */
export const LINK_FIELDS = fieldsOf<LinkInput>()(
  {
    email: COMMON_FIELDS.email,
    currency: {
      field: 'currency',
      description: 'Currency code, e.g. EUR (sent in capitals).',
      question: 'Currency (e.g. EUR)',
      rules: [rules.currency],
      normalize: upperCase,
    },
    amount: {
      field: 'amount',
      description: 'Amount as a decimal, e.g. 25.50 (sent exactly as typed).',
      question: 'Amount (e.g. 25.50)',
      rules: [rules.amount],
    },
    title: COMMON_FIELDS.title,
    phone: COMMON_FIELDS.phone,
    description: { field: 'description', description: 'Longer description.' },
    'redirect-url': {
      field: 'redirect_url',
      description: 'Where the customer goes after paying: an absolute http(s) URL.',
      rules: [rules.webAddress],
    },
    reference: {
      field: 'reference',
      description: 'Your own reference (at most 50 characters).',
      rules: [rules.maxCharacters],
    },
    'reference-2': {
      field: 'reference_2',
      description: 'A second reference (at most 50 characters).',
      rules: [rules.maxCharacters],
    },
    'send-email': {
      field: 'send_email',
      description: 'Ask the service to e-mail the link to the customer.',
      boolean: true,
    },
  },
  [amountFitsCurrency],
)

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

/** Link statuses (docs/spec/payment-service-api.md 3 states only Active). */
const LINK_STATUSES: Statuses = { known: ['Active'], aliases: {} }

/** The result of each row of `links create --from-csv`. */
export const CREATE_RESULT_VIEW: View = {
  noun: 'row',
  plural: 'rows',
  listColumns: ['line', 'status', '_id', 'payment_url', 'error'],
  recordFields: ['line', 'ok', 'status', '_id', 'payment_url', 'error', 'idempotency_key'],
  dropOrder: ['error'],
}

/** The client-side filters of `links list`. */
export const LINK_FILTER_FLAGS = {
  status: Flags.string({ description: 'Only links with this status (Active); any case.' }),
  paid: Flags.boolean({ description: 'Only paid links (--no-paid: only unpaid).', allowNo: true }),
  email: Flags.string({ description: 'Only links for this customer e-mail; any case.' }),
  reference: Flags.string({ description: 'Only links with this reference; any case.' }),
  search: Flags.string({
    description:
      'Only links with this text in the title, description, e-mail or references; any case, accents or not.',
    helpValue: 'TEXT',
  }),
  ...CREATED_FLAGS,
}

/** The filters of `links list`, as its flags name them (`pay mcp` gives the same). */
export interface LinkFilters {
  status?: string
  paid?: boolean
  email?: string
  reference?: string
  search?: string
  'created-after'?: string
  'created-before'?: string
}

/** The fields --search looks in. */
const SEARCHED = ['title', 'description', 'email', 'reference', 'reference_2']

/** The filter the flags describe (`now` for a span such as 7d); undefined when none was given. */
export function linkFilter(flags: LinkFilters, now = Date.now()) {
  const fields = matchesAll([
    { field: 'status', value: canonicalStatus(flags.status, LINK_STATUSES) },
    { field: 'paid', value: flags.paid },
    { field: 'email', value: flags.email },
    { field: 'reference', value: flags.reference },
  ])
  return allOf(fields, containsText(SEARCHED, flags.search), createdWithin(flags, now))
}

/**
 * An amount with more decimals than its currency has (1.5 JPY, 0.001 EUR) is refused here, as
 * a 422 would be (exit 3, under --amount). Codes that are no ISO currency (BTC) take any.
 */
export function checkAmountDigits(values: { amount?: unknown; currency?: unknown }): void {
  const errors = amountFitsCurrency(values as FieldValues)
  if (errors) throw validationError(errors)
}

/**
 * `links update` given a currency but no amount: the link's own amount must fit the new
 * currency (10.50 EUR cannot become JPY as it is). Said under --currency, the flag given, with
 * the way out: give --amount too.
 */
export function checkCurrencyChange(body: LinkInput, changes: FieldValues): void {
  if (changes.amount !== undefined || changes.currency === undefined) return
  const excess = excessDecimals(body.amount, body.currency)
  if (!excess) return
  throw validationError({
    currency: [
      `The link's amount, ${body.amount}, has decimals ${excess.code} does not allow (${excess.allowed}): give a new --amount with --currency ${excess.code}.`,
    ],
  })
}

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

const OPTIONAL_TEXT_FIELDS = ['phone_no', 'description', 'redirect_url', 'reference', 'reference_2'] as const

/**
 * PUT replaces the link: the body is the current link's fields with the given ones on top.
 * The amount the service returned as a number goes back as its decimal text.
 */
export function mergeLinkUpdate(current: Rec, changes: FieldValues): LinkInput {
  const given = changes as Partial<LinkInput>
  const text = (value: unknown) => (value === undefined || value === null ? undefined : plain(value))
  const merged: LinkInput = {
    email: given.email ?? text(current.email) ?? '',
    currency: given.currency ?? text(current.currency) ?? '',
    amount: given.amount ?? text(current.amount) ?? '',
    title: given.title ?? text(current.title) ?? '',
  }
  for (const field of OPTIONAL_TEXT_FIELDS) {
    const value = given[field] ?? text(current[field])
    if (value !== undefined) merged[field] = value
  }
  if (given.send_email !== undefined) merged.send_email = given.send_email
  return merged
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
