/**
 * The fields of the service's request bodies and queries, with the rules the service checks them
 * by: declared once, for the client's local checks (src/work), the sandbox's router (its 422s),
 * the MCP tools' schemas and the tests. Names are the service's (docs/spec/payment-service-api.md
 * section 4); where the spec states no rule, docs/choices.md gives the source of each one here.
 */

/** The methods of the service's endpoints and of the sandbox's own. */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

export type Method = (typeof METHODS)[number]

/**
 * A rule of the service beyond a field's type, in the order it checks them:
 * `email` an e-mail address, `currency` a three-letter code, `amount` a positive decimal written as
 * text, `max50` at most 50 characters (code points), `cancel` the one status a client may set.
 *
 * Two more say when the service checks a field, which its 422 shows (which fields it names, and
 * the order of the keys of its `errors`). It checks a body's fields in three rounds, each in the
 * order of the body's list: those marked `first`; then the other required ones; then the rest.
 * `first`: checked before the others, so that a Create Payment Link with no field is refused
 * naming currency, email, amount and title, in the order docs/spec/payment-service-api.md section
 * 7 rule 2 lists them.
 * `withEmail`: checked at all only once an email is given (Laravel's required_with:email), in the
 * last round: a Create Subscription with no field is refused naming its email alone (rule 2), and
 * then its package_id, which a client must still send.
 *
 * One more says what the service takes besides the field's type. `numberToo`: a JSON number is
 * taken as well as text, as the service's official shop plugins send it (an order id as an
 * integer, a total as a float: docs/choices.md), and read as the text it is written as (101 ->
 * "101"); an `amount` as the number it is, its float noise rounded to the currency's decimals
 * (51.64473684210527 MYR -> 51.64). pay's own client sends text.
 */
export type FieldRule =
  | 'email'
  | 'currency'
  | 'amount'
  | 'max50'
  | 'cancel'
  | 'first'
  | 'withEmail'
  | 'numberToo'

/** A field of a request body or query, named as the service spells it. */
export interface Field {
  readonly name: string
  readonly type: 'string' | 'boolean' | 'integer' | 'string[]' | 'object[]'
  /** The service refuses the request without it (spec section 7). */
  readonly required: boolean
  /** The service's rules of it (FieldRule), in the order it checks them. */
  readonly rules?: readonly FieldRule[]
}

/** A field, its name and type kept literal so that BodyOf can make a type of it. */
export const field = <N extends string, T extends Field['type'], R extends boolean>(
  name: N,
  type: T,
  required: R,
  ...rules: FieldRule[]
) => ({ name, type, required, ...(rules.length > 0 ? { rules } : {}) }) as const

/** Create Tokenization (spec 4.1). */
export const TOKEN_FIELDS = [
  field('email', 'string', true, 'email'),
  field('phone_no', 'string', false),
  field('redirect_url', 'string', false),
  field('title', 'string', true, 'max50'),
  field('description', 'string', true),
] as const

/**
 * Create and Update Payment Link (spec 4.2, 4.3): pay sends `amount` as decimal text, never a
 * float; the service takes a JSON number too (`numberToo`), and so do the order references and
 * the phone number, which its shop plugins send as numbers.
 */
export const LINK_FIELDS = [
  field('email', 'string', true, 'email'),
  field('currency', 'string', true, 'first', 'currency'),
  field('amount', 'string', true, 'numberToo', 'amount'),
  field('title', 'string', true, 'max50'),
  field('phone_no', 'string', false, 'numberToo'),
  field('description', 'string', false),
  field('redirect_url', 'string', false),
  field('reference', 'string', false, 'numberToo', 'max50'),
  field('reference_2', 'string', false, 'numberToo', 'max50'),
  field('send_email', 'boolean', false),
] as const

/** Create Subscription (spec 4.7). */
export const SUBSCRIPTION_FIELDS = [
  field('package_id', 'string', true, 'withEmail'),
  field('email', 'string', true, 'email'),
  field('phone_no', 'string', false),
] as const

/** Update Subscription (spec 4.9): all optional; `status` takes `cancel`. */
export const SUBSCRIPTION_UPDATE_FIELDS = [
  field('email', 'string', false, 'email'),
  field('phone_no', 'string', false),
  field('status', 'string', false, 'cancel'),
] as const

/** Sign In (`POST /auth/sign-in`, the shop plugins' account): an e-mail and a password. */
export const SIGN_IN_FIELDS = [
  field('email', 'string', true, 'email'),
  field('password', 'string', true),
] as const

/** A webhook event of a business's integration (`POST …/webhook-events`): `payment.created` to a URL. */
export const WEBHOOK_EVENT_FIELDS = [
  field('name', 'string', true),
  field('url', 'string', true),
  field('enabled', 'boolean', false),
] as const

/** A webhook event changed (`PATCH …/webhook-events/{id}`): its URL, or whether it is enabled. */
export const WEBHOOK_EVENT_CHANGE_FIELDS = [
  field('url', 'string', false),
  field('enabled', 'boolean', false),
] as const

interface FieldTypes {
  string: string
  boolean: boolean
  integer: number
  'string[]': string[]
  'object[]': Record<string, unknown>[]
}

/** The TypeScript type of a body made of `F`: its required fields required, the rest optional. */
export type BodyOf<F extends readonly Field[]> = Flat<
  {
    [K in F[number] as K['required'] extends true ? K['name'] : never]: FieldTypes[K['type']]
  } & { [K in F[number] as K['required'] extends true ? never : K['name']]?: FieldTypes[K['type']] }
>

/** One object type of an intersection, as editors show it. */
type Flat<T> = { [K in keyof T]: T[K] }

/** The request bodies as TypeScript types, made from their fields. */
export type TokenInput = BodyOf<typeof TOKEN_FIELDS>

export type LinkInput = BodyOf<typeof LINK_FIELDS>

export type SubscriptionInput = BodyOf<typeof SUBSCRIPTION_FIELDS>

export type SubscriptionUpdate = BodyOf<typeof SUBSCRIPTION_UPDATE_FIELDS>
