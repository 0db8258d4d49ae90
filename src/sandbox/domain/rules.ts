/**
 * Validation of request bodies, Laravel style: every failed field gets its own entry, in the
 * order of the rules, with Laravel's messages (field names as sent). A field sent as null, as
 * an empty or blank string, or as an empty array counts as missing. Where the spec is silent, the
 * service's own documentation bounds fields (docs/choices.md): a title, reference and reference_2
 * of at most 50 characters (code points), a currency of three letters; e-mails follow its
 * framework's RFC rule (email.ts).
 */
import { amountNearMiss } from '../../shared/money.js'
import { isEmail } from './email.js'

type FieldErrors = Record<string, string[]>
export type RequestBody = Record<string, unknown>
export type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors }

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

interface SubscriptionChanges {
  email?: string
  phone_no?: string
  status?: string
}

/** The subscription statuses a client may set; docs/spec/payment-service-api.md 4.9 states only `cancel`. */
const SETTABLE_SUBSCRIPTION_STATUSES: readonly string[] = ['cancel']

/** The most characters (code points) of a title, reference and reference_2. */
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

class Checker {
  /** No prototype: a field named `__proto__` is one more name. */
  readonly errors: FieldErrors = Object.create(null)

  constructor(private readonly body: RequestBody) {}

  fail(field: string, message: string): void {
    this.errors[field] ??= []
    this.errors[field].push(message)
  }

  isMissing(field: string): boolean {
    const value = this.valueOf(field)
    return (
      value === undefined ||
      value === null ||
      (typeof value === 'string' && value.trim() === '') ||
      (Array.isArray(value) && value.length === 0)
    )
  }

  requiredString(field: string): string | undefined {
    if (this.isMissing(field)) {
      this.fail(field, `The ${field} field is required.`)
      return undefined
    }
    return this.string(field)
  }

  optionalString(field: string): string | undefined {
    return this.isMissing(field) ? undefined : this.string(field)
  }

  email(field: string, value: string | undefined): void {
    if (value !== undefined && !isEmail(value))
      this.fail(field, `The ${field} must be a valid email address.`)
  }

  /** Laravel's `max:N` on a string: counted in characters (code points, as mb_strlen counts). */
  maxCharacters(field: string, value: string | undefined, max = MAX_TEXT_FIELD): void {
    if (value !== undefined && [...value].length > max) {
      this.fail(field, `The ${field} may not be greater than ${max} characters.`)
    }
  }

  /** A three-letter code: Laravel's `size:3` (in characters), then letters only (A to Z). */
  currencyCode(field: string, value: string | undefined): void {
    if (value === undefined) return
    if ([...value].length !== 3) this.fail(field, `The ${field} must be 3 characters.`)
    if (!/^[A-Za-z]+$/.test(value)) this.fail(field, `The ${field} may only contain letters.`)
  }

  /** Laravel's `boolean` rule: true, false, 1, 0, "1", "0". */
  optionalBoolean(field: string): void {
    if (this.isMissing(field)) return
    if (![true, false, 1, 0, '1', '0'].includes(this.valueOf(field) as never)) {
      this.fail(field, `The ${field} field must be true or false.`)
    }
  }

  /** A positive decimal written as text ("25.50"), returned as the number it spells (25.5). */
  amount(field: string, text: string | undefined): number | undefined {
    if (text === undefined) return undefined
    if (!DECIMAL.test(text)) {
      // A near miss (`-1`, `1e3`, ` 5`, `5.`) is said for what it is; anything else is no number.
      this.fail(field, `The ${field} ${amountNearMiss(text) ?? 'must be a number.'}`)
      return undefined
    }
    if (significantDigits(text) > MAX_SIGNIFICANT_DIGITS) {
      this.fail(field, `The ${field} must not have more than ${MAX_SIGNIFICANT_DIGITS} significant digits.`)
      return undefined
    }
    const amount = Number(text)
    if (amount <= 0) {
      this.fail(field, `The ${field} must be greater than 0.`)
      return undefined
    }
    return amount
  }

  oneOf(field: string, value: string | undefined, allowed: readonly string[]): void {
    if (value !== undefined && !allowed.includes(value)) this.fail(field, `The selected ${field} is invalid.`)
  }

  result<T>(value: T): Checked<T> {
    return Object.keys(this.errors).length > 0 ? { ok: false, errors: this.errors } : { ok: true, value }
  }

  private valueOf(field: string): unknown {
    return Object.hasOwn(this.body, field) ? this.body[field] : undefined
  }

  private string(field: string): string | undefined {
    const value = this.valueOf(field)
    if (typeof value === 'string') return value
    this.fail(field, `The ${field} must be a string.`)
    return undefined
  }
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

export function checkTokenization(body: RequestBody): Checked<TokenizationInput> {
  const check = new Checker(body)
  const email = check.requiredString('email')
  check.email('email', email)
  const title = check.requiredString('title')
  check.maxCharacters('title', title)
  const description = check.requiredString('description')
  const phone_no = check.optionalString('phone_no')
  const redirect_url = check.optionalString('redirect_url')
  return check.result(definedOnly({ email, title, description, phone_no, redirect_url }) as TokenizationInput)
}

/**
 * Create and Update Payment Link share these rules (docs/spec/payment-service-api.md 4.3). `send_email` is
 * checked, then dropped.
 */
export function checkPaymentLink(body: RequestBody): Checked<PaymentLinkInput> {
  const check = new Checker(body)
  const currency = check.requiredString('currency')
  check.currencyCode('currency', currency)
  const email = check.requiredString('email')
  check.email('email', email)
  const amount = check.amount('amount', check.requiredString('amount'))
  const title = check.requiredString('title')
  check.maxCharacters('title', title)
  const phone_no = check.optionalString('phone_no')
  const description = check.optionalString('description')
  const redirect_url = check.optionalString('redirect_url')
  const reference = check.optionalString('reference')
  check.maxCharacters('reference', reference)
  const reference_2 = check.optionalString('reference_2')
  check.maxCharacters('reference_2', reference_2)
  check.optionalBoolean('send_email')
  return check.result(
    definedOnly({
      email,
      phone_no,
      currency,
      amount,
      title,
      description,
      redirect_url,
      reference,
      reference_2,
    }) as PaymentLinkInput,
  )
}

/**
 * docs/spec/payment-service-api.md 7, rule 2, names only `email` as the missing field of an empty Create
 * Subscription body, so `package_id` is checked (required, then known) only once an email is present.
 */
export function checkNewSubscription(
  body: RequestBody,
  knownPackageIds: ReadonlySet<string>,
): Checked<NewSubscriptionInput> {
  const check = new Checker(body)
  const emailMissing = check.isMissing('email')
  const email = check.requiredString('email')
  check.email('email', email)
  let package_id: string | undefined
  if (!emailMissing) {
    package_id = check.requiredString('package_id')
    if (package_id !== undefined && !knownPackageIds.has(package_id)) {
      check.fail('package_id', 'The selected package_id is invalid.')
    }
  }
  const phone_no = check.optionalString('phone_no')
  return check.result(definedOnly({ package_id, email, phone_no }) as NewSubscriptionInput)
}

export function checkSubscriptionChanges(body: RequestBody): Checked<SubscriptionChanges> {
  const check = new Checker(body)
  const email = check.optionalString('email')
  check.email('email', email)
  const phone_no = check.optionalString('phone_no')
  const status = check.optionalString('status')
  check.oneOf('status', status, SETTABLE_SUBSCRIPTION_STATUSES)
  return check.result(definedOnly({ email, phone_no, status }))
}
