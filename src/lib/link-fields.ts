import { Flags } from '@oclif/core'
import type { LinkInput } from '../api/client.js'
import { plain, type Rec } from '../render/format.js'
import { checkFields, type Question, rules } from './input.js'

/** The flags of `links create` and `links update`: every field of spec 4.2. */
export const linkFlags = {
  email: Flags.string({ description: 'Customer e-mail address.' }),
  currency: Flags.string({ description: 'Currency code, e.g. EUR.' }),
  amount: Flags.string({ description: 'Amount as a decimal, e.g. 25.50 (sent exactly as typed).' }),
  title: Flags.string({ description: 'Title shown to the customer.' }),
  phone: Flags.string({ description: 'Customer phone number.' }),
  description: Flags.string({ description: 'Longer description.' }),
  'redirect-url': Flags.string({ description: 'Where the customer goes after paying.' }),
  reference: Flags.string({ description: 'Your own reference.' }),
  'reference-2': Flags.string({ description: 'A second reference.' }),
  'send-email': Flags.boolean({
    description: 'Ask the service to e-mail the link to the customer.',
    allowNo: true,
  }),
}

type LinkFlagValues = {
  [K in keyof typeof linkFlags]?: K extends 'send-email' ? boolean : string
}

/** Flag values under the service's field names; only the flags that were given. */
export function linkFieldsFromFlags(flags: LinkFlagValues): Partial<LinkInput> {
  const fields: Partial<LinkInput> = {
    email: flags.email,
    currency: flags.currency,
    amount: flags.amount,
    title: flags.title,
    phone_no: flags.phone,
    description: flags.description,
    redirect_url: flags['redirect-url'],
    reference: flags.reference,
    reference_2: flags['reference-2'],
    send_email: flags['send-email'],
  }
  for (const key of Object.keys(fields) as (keyof LinkInput)[])
    if (fields[key] === undefined) delete fields[key]
  return fields
}

export const linkQuestions: Question[] = [
  { field: 'email', message: 'Customer e-mail', rules: [rules.email] },
  { field: 'currency', message: 'Currency (e.g. EUR)', rules: [rules.currency] },
  { field: 'amount', message: 'Amount (e.g. 25.50)', rules: [rules.amount] },
  { field: 'title', message: 'Title' },
]

/** The local rules for a link body (the same a 422 would report), all failures at once. */
export function checkLink(fields: Partial<LinkInput>): void {
  checkFields(fields as Record<string, string | undefined>, {
    email: [rules.email],
    currency: [rules.currency],
    amount: [rules.amount],
  })
}

const OPTIONAL_TEXT_FIELDS = ['phone_no', 'description', 'redirect_url', 'reference', 'reference_2'] as const

/**
 * PUT replaces the link: the body is the current link's fields with the given ones on top.
 * The amount the service returned as a number goes back as its decimal text.
 */
export function mergeLinkUpdate(current: Rec, changes: Partial<LinkInput>): LinkInput {
  const text = (value: unknown) => (value === undefined || value === null ? undefined : plain(value))
  const merged: LinkInput = {
    email: changes.email ?? text(current.email) ?? '',
    currency: changes.currency ?? text(current.currency) ?? '',
    amount: changes.amount ?? text(current.amount) ?? '',
    title: changes.title ?? text(current.title) ?? '',
  }
  for (const field of OPTIONAL_TEXT_FIELDS) {
    const value = changes[field] ?? text(current[field])
    if (value !== undefined) merged[field] = value
  }
  if (changes.send_email !== undefined) merged.send_email = changes.send_email
  return merged
}
