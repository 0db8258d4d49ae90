import type { View } from '../render/views.js'
import { COMMON_FIELDS, FieldSet, rules } from './fields.js'

/** The fields of `token create` (docs/spec/payment-service-api.md 4.1). */
export const TOKEN_FIELDS = new FieldSet({
  email: COMMON_FIELDS.email,
  title: COMMON_FIELDS.title,
  description: { field: 'description', description: 'What the token is for.', question: 'Description' },
  phone: COMMON_FIELDS.phone,
  'redirect-url': {
    field: 'redirect_url',
    description: 'Where the customer goes after activating: an absolute http(s) URL.',
    rules: [rules.webAddress],
  },
})

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
  dropOrder: ['created_at'],
  lastResort: ['title', 'email'],
}
