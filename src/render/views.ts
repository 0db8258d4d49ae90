/**
 * What each resource shows: the columns of a list row and the fields of a one-record table.
 * Field names are the service's, dotted for embedded records (`package.name`); `--columns`
 * takes the same names.
 */
export interface View {
  /** Singular noun for messages: "payment link". */
  noun: string
  plural: string
  listColumns: string[]
  recordFields: string[]
  /** The field printed by --quiet; `_id` unless said otherwise. */
  idField?: string
}

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

export const TOKEN_VIEW: View = {
  noun: 'token',
  plural: 'tokens',
  listColumns: ['_id', 'token', 'email', 'title', 'created_at'],
  recordFields: [
    '_id',
    'token',
    'activation_url',
    'email',
    'phone_no',
    'title',
    'description',
    'redirect_url',
    'created_at',
    'updated_at',
  ],
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
    'payment_links',
    'created_at',
    'updated_at',
  ],
}

export const PROFILE_VIEW: View = {
  noun: 'profile',
  plural: 'profiles',
  listColumns: ['name', 'current', 'base_url', 'api_key'],
  recordFields: ['name', 'current', 'base_url', 'api_key', 'key_source', 'built_in'],
  idField: 'name',
}

const HEADERS: Record<string, string> = {
  _id: 'ID',
  base_url: 'BASE URL',
  api_key: 'KEY',
  'package.name': 'PACKAGE',
  created_at: 'CREATED',
  updated_at: 'UPDATED',
}

export function columnHeader(column: string): string {
  // Own entries only: a column named `constructor` is no key of the table.
  if (Object.hasOwn(HEADERS, column)) return HEADERS[column]
  return (column.split('.').pop() ?? column).replace(/_/g, ' ').toUpperCase()
}
