import { type FieldErrors, validationError } from '../../errors.js'
import type { LinkInput } from '../../shared/fields.js'
import { currencyDigits } from '../../shared/money.js'
import { plain, type Rec } from '../../values.js'
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
