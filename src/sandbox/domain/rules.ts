/**
 * Validation of request bodies, Laravel style, made from the body's fields as the endpoint table
 * declares them (src/shared/fields.ts: each field's type, whether it is required, its rules): every
 * failed field gets its own entry, in the order the service checks them (checkOrder), with
 * Laravel's messages (field names as sent). A field sent as null, as an empty or blank string, or
 * as an empty array counts as missing; a field the body's list does not declare is ignored. Where
 * the spec is silent, the service's own documentation bounds fields (docs/choices.md): a title,
 * reference and reference_2 of at most 50 characters (code points), a currency of three letters;
 * e-mails follow its framework's RFC rule (email.ts).
 */
import { ENDPOINTS } from '../../shared/endpoints.js'
import type { Field, FieldRule } from '../../shared/fields.js'
import { amountNearMiss, currencyDigits, decimalText, roundedDecimal } from '../../shared/money.js'
import { isEmail } from './email.js'

type FieldErrors = Record<string, string[]>
export type RequestBody = Record<string, unknown>
export type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors }

/** A body's fields that passed their checks, as sent (an amount as the number it spells); no others. */
export type CheckedFields = Record<string, unknown>

/**
 * A check of a field beyond the table's rules, where the service knows something the table cannot
 * say (Laravel's custom rule, such as `exists`): run only on a value that passed the table's
 * rules; the message when it fails.
 */
export type FieldCheck = (value: unknown) => string | undefined

export interface TokenizationInput {
  email: string
  title: string
  description: string
  phone_no?: string
  redirect_url?: string
}

export interface PaymentLinkInput {
  email: string
  currency: string
  amount: number
  title: string
  phone_no?: string
  description?: string
  redirect_url?: string
  reference?: string
  reference_2?: string
}

export interface NewSubscriptionInput {
  package_id: string
  email: string
  phone_no?: string
}

export interface SubscriptionChanges {
  email?: string
  phone_no?: string
  status?: string
}

/** The subscription statuses a client may set (rule `cancel`); docs/spec/payment-service-api.md 4.9 states only `cancel`. */
const SETTABLE_SUBSCRIPTION_STATUSES: readonly string[] = ['cancel']

/** The most characters (code points) of a title, reference and reference_2 (rule `max50`). */
export const MAX_TEXT_FIELD = 50

const DECIMAL = /^[0-9]+(?:\.[0-9]+)?$/
/** Up to 15 significant digits a decimal survives the trip through a JSON number unchanged. */
const MAX_SIGNIFICANT_DIGITS = 15

function significantDigits(decimal: string): number {
  const digits = decimal.replace('.', '').replace(/^0+/, '')
  const fraction = decimal.includes('.') ? decimal.slice(decimal.indexOf('.') + 1) : ''
  const trailingFractionZeros = fraction.length - fraction.replace(/0+$/, '').length
  return Math.max(digits.length - trailingFractionZeros, 0)
}

/** Laravel's message of a value `exists` does not find. */
export const notFoundIn = (field: string) => `The selected ${field} is invalid.`

/**
 * Each rule on a string value: the messages of what fails, in Laravel's words, and the value kept
 * (an amount becomes the number it spells; undefined: the field failed).
 */
const STRING_RULES: Record<
  FieldRule,
  (field: string, text: string) => { failed: string[]; value?: unknown }
> = {
  email: (field, text) => ({ failed: isEmail(text) ? [] : [`The ${field} must be a valid email address.`] }),
  /** Laravel's `max:50` on a string: counted in characters (code points, as mb_strlen counts). */
  max50: (field, text) => ({
    failed:
      [...text].length > MAX_TEXT_FIELD
        ? [`The ${field} may not be greater than ${MAX_TEXT_FIELD} characters.`]
        : [],
  }),
  /** A three-letter code: Laravel's `size:3` (in characters), then letters only (A to Z). */
  currency: (field, text) => ({
    failed: [
      ...([...text].length !== 3 ? [`The ${field} must be 3 characters.`] : []),
      ...(/^[A-Za-z]+$/.test(text) ? [] : [`The ${field} may only contain letters.`]),
    ],
  }),
  /** A positive decimal written as text ("25.50"), kept as the number it spells (25.5). */
  amount: (field, text) => {
    // A near miss (`-1`, `1e3`, ` 5`, `5.`) is said for what it is; anything else is no number.
    if (!DECIMAL.test(text))
      return { failed: [`The ${field} ${amountNearMiss(text) ?? 'must be a number.'}`] }
    if (significantDigits(text) > MAX_SIGNIFICANT_DIGITS) {
      return {
        failed: [`The ${field} must not have more than ${MAX_SIGNIFICANT_DIGITS} significant digits.`],
      }
    }
    const amount = Number(text)
    return amount <= 0 ? { failed: [`The ${field} must be greater than 0.`] } : { failed: [], value: amount }
  },
  cancel: (field, text) => ({
    failed: SETTABLE_SUBSCRIPTION_STATUSES.includes(text) ? [] : [notFoundIn(field)],
  }),
  // When a field is checked, and what it takes besides text: checkOrder and checkField read them.
  first: () => ({ failed: [] }),
  withEmail: () => ({ failed: [] }),
  numberToo: () => ({ failed: [] }),
}

/**
 * A JSON number sent for a text field that takes one too (`numberToo`), as the text the rules
 * check: written out in decimal digits (101 -> "101", 1e3 -> "1000"). An amount is a float of the
 * shop's (PHP's json_encode writes a converted total with all its binary noise,
 * 51.64473684210527): its decimals past those of the body's currency are rounded half up
 * (51.64473684210527 MYR -> "51.64"), counted on its digits, never through a float product. Text is
 * exact and never rounded; a currency with no known decimals (BTC) rounds nothing.
 */
function numberText(field: Field, sent: number, body: RequestBody): string {
  const text = decimalText(sent)
  if (!has(field, 'amount') || typeof body.currency !== 'string') return text
  const digits = currencyDigits(body.currency)
  return digits === undefined ? text : roundedDecimal(text, digits)
}

/** The field types the checks know; a body of another (the sandbox's controls' lists) is checked by its handler. */
export const CHECKED_TYPES: readonly Field['type'][] = ['string', 'boolean']

const has = (field: Field, rule: FieldRule) => field.rules?.includes(rule) === true

const orders = new WeakMap<readonly Field[], readonly Field[]>()

/**
 * The order the service checks a body's fields in, and so the order of its 422's keys: those
 * marked `first`, then the other required ones (but those checked only `withEmail`), then the
 * rest, each round in the order of the body's list (FieldRule).
 */
export function checkOrder(fields: readonly Field[]): readonly Field[] {
  let order = orders.get(fields)
  if (!order) {
    const first = fields.filter((field) => has(field, 'first'))
    const required = fields.filter(
      (field) => !first.includes(field) && field.required && !has(field, 'withEmail'),
    )
    order = [
      ...first,
      ...required,
      ...fields.filter((field) => !first.includes(field) && !required.includes(field)),
    ]
    orders.set(fields, order)
  }
  return order
}

function isMissing(body: RequestBody, field: string): boolean {
  const value = Object.hasOwn(body, field) ? body[field] : undefined
  return (
    value === undefined ||
    value === null ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0)
  )
}

/** One field's checks: its messages, and its value when it passed (undefined for one missing). */
function checkField(field: Field, body: RequestBody): { failed: string[]; value?: unknown } {
  const { name } = field
  if (isMissing(body, name)) return { failed: field.required ? [`The ${name} field is required.`] : [] }
  const sent = body[name]
  if (field.type === 'boolean') {
    // Laravel's `boolean` rule: true, false, 1, 0, "1", "0".
    const taken = ([true, false, 1, 0, '1', '0'] as unknown[]).includes(sent)
    return taken ? { failed: [], value: sent } : { failed: [`The ${name} field must be true or false.`] }
  }
  if (field.type !== 'string')
    throw new TypeError(`The ${name} field is of a type the sandbox does not check.`)
  const number = typeof sent === 'number' && has(field, 'numberToo')
  if (typeof sent !== 'string' && !number) {
    const kind = has(field, 'numberToo') ? 'a string or a number' : 'a string'
    return { failed: [`The ${name} must be ${kind}.`] }
  }
  const text = number ? numberText(field, sent as number, body) : (sent as string)
  const failed: string[] = []
  let value: unknown = text
  for (const rule of field.rules ?? []) {
    const checked = STRING_RULES[rule](name, text)
    failed.push(...checked.failed)
    if (checked.value !== undefined) value = checked.value
  }
  return failed.length > 0 ? { failed } : { failed, value }
}

/**
 * A body checked against its fields: every field that fails, in the order the service checks
 * them, or the values of those sent. `own` adds a check of a field beyond its rules (FieldCheck).
 */
export function checkBody(
  fields: readonly Field[],
  body: RequestBody,
  own: Readonly<Record<string, FieldCheck>> = {},
): Checked<CheckedFields> {
  // No prototype: a field named `__proto__` is one more name.
  const errors: FieldErrors = Object.create(null)
  const value: CheckedFields = {}
  const emailMissing = isMissing(body, 'email')
  for (const field of checkOrder(fields)) {
    if (has(field, 'withEmail') && emailMissing) continue
    const checked = checkField(field, body)
    const beyond =
      checked.failed.length === 0 && checked.value !== undefined
        ? own[field.name]?.(checked.value)
        : undefined
    const failed = beyond === undefined ? checked.failed : [beyond]
    if (failed.length > 0) errors[field.name] = failed
    else if (checked.value !== undefined) value[field.name] = checked.value
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value }
}

/** Drops the keys whose value is undefined, so that only fields sent are stored and echoed. */
export function definedOnly<T extends object>(fields: T): T {
  const kept: Record<string, unknown> = {}
  for (const key of Object.keys(fields)) {
    const value = (fields as Record<string, unknown>)[key]
    if (value !== undefined) kept[key] = value
  }
  return kept as T
}

// The checks of the service's bodies, for what makes records of them outside a request (fixtures).

export const checkTokenization = (body: RequestBody) =>
  checkBody(ENDPOINTS.createToken.body, body) as Checked<TokenizationInput>

/** Create and Update Payment Link share these rules (docs/spec/payment-service-api.md 4.3). */
export const checkPaymentLink = (body: RequestBody) =>
  checkBody(ENDPOINTS.createLink.body, body) as Checked<PaymentLinkInput>

/** package_id: one of `knownPackageIds`, once it passed the table's rules. */
export const checkNewSubscription = (body: RequestBody, knownPackageIds: ReadonlySet<string>) =>
  checkBody(ENDPOINTS.createSubscription.body, body, {
    package_id: (id) => (knownPackageIds.has(id as string) ? undefined : notFoundIn('package_id')),
  }) as Checked<NewSubscriptionInput>

export const checkSubscriptionChanges = (body: RequestBody) =>
  checkBody(ENDPOINTS.updateSubscription.body, body) as Checked<SubscriptionChanges>
