import { Flags } from '@oclif/core'
import type { LinkInput } from '../api/types.js'
import type { View } from '../render/views.js'
import { plain, type Rec } from '../values.js'
import { COMMON_FIELDS, FieldSet, type FieldValues, rules } from './fields.js'
import { matchesAll } from './filters.js'

/** The fields of `links create` and `links update`: every field of spec 4.2. */
export const LINK_FIELDS = new FieldSet({
  email: COMMON_FIELDS.email,
  currency: {
    field: 'currency',
    description: 'Currency code, e.g. EUR.',
    question: 'Currency (e.g. EUR)',
    rules: [rules.currency],
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
  'redirect-url': { field: 'redirect_url', description: 'Where the customer goes after paying.' },
  reference: { field: 'reference', description: 'Your own reference.' },
  'reference-2': { field: 'reference_2', description: 'A second reference.' },
  'send-email': {
    field: 'send_email',
    description: 'Ask the service to e-mail the link to the customer.',
    boolean: true,
  },
})

export const LINK_VIEW: View = {
  noun: 'payment link',
  plural: 'payment links',
  listColumns: ['_id', 'status', 'paid', 'amount', 'email', 'title', 'reference', 'created_at'],
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
}

/** The client-side filters of `links list`. */
export const LINK_FILTER_FLAGS = {
  status: Flags.string({ description: 'Only links with this status (e.g. Active); case-insensitive.' }),
  paid: Flags.boolean({ description: 'Only paid links (--no-paid: only unpaid).', allowNo: true }),
  email: Flags.string({ description: 'Only links for this customer e-mail; case-insensitive.' }),
  reference: Flags.string({ description: 'Only links with this reference.' }),
}

export function linkFilter(flags: { status?: string; paid?: boolean; email?: string; reference?: string }) {
  return matchesAll([
    { field: 'status', value: flags.status },
    { field: 'paid', value: flags.paid },
    { field: 'email', value: flags.email },
    { field: 'reference', value: flags.reference, exact: true },
  ])
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
