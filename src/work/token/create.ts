import type { View } from '../../render/views.js'
import type { RunContext } from '../../runtime/context.js'
import type { TokenInput } from '../../shared/fields.js'
import type { Rec } from '../../values.js'
import { COMMON_FIELDS, type FieldValues, fieldsOf, rules } from '../common/field-set.js'

/** The fields of `token create` (docs/spec/payment-service-api.md 4.1). */
export const TOKEN_FIELDS = fieldsOf<TokenInput>()({
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

/** `token create`: the fields given, the required ones asked for on a terminal; the token as answered. */
export async function createToken(
  options: { fields: FieldValues; idempotencyKey?: string },
  context: RunContext,
): Promise<Rec> {
  const fields = { ...options.fields }
  TOKEN_FIELDS.check(fields)
  // On a terminal, a missing key or a refused base URL is reported before any question.
  if (context.io.canPrompt) await context.api()
  await TOKEN_FIELDS.fillMissing(fields, context.io)
  const { api } = await context.api()
  return api.send('createToken', { body: TOKEN_FIELDS.body(fields), idempotencyKey: options.idempotencyKey })
}
