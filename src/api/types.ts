import type { Rec } from '../values.js'

/** The methods pay sends. */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

export type Method = (typeof METHODS)[number]

/** A field of a request body or query, named as the service spells it. */
export interface Field {
  readonly name: string
  readonly type: 'string' | 'boolean' | 'integer' | 'string[]' | 'object[]'
  /** The service refuses the request without it (spec section 7). */
  readonly required: boolean
}

/** A field, its name and type kept literal so that BodyOf can make a type of it. */
export const field = <N extends string, T extends Field['type'], R extends boolean>(
  name: N,
  type: T,
  required: R,
) => ({ name, type, required }) as const

/** Create Tokenization (spec 4.1). */
export const TOKEN_FIELDS = [
  field('email', 'string', true),
  field('phone_no', 'string', false),
  field('redirect_url', 'string', false),
  field('title', 'string', true),
  field('description', 'string', true),
] as const

/** Create and Update Payment Link (spec 4.2, 4.3); `amount` is decimal text, never a float. */
export const LINK_FIELDS = [
  field('email', 'string', true),
  field('currency', 'string', true),
  field('amount', 'string', true),
  field('title', 'string', true),
  field('phone_no', 'string', false),
  field('description', 'string', false),
  field('redirect_url', 'string', false),
  field('reference', 'string', false),
  field('reference_2', 'string', false),
  field('send_email', 'boolean', false),
] as const

/** Create Subscription (spec 4.7). */
export const SUBSCRIPTION_FIELDS = [
  field('package_id', 'string', true),
  field('email', 'string', true),
  field('phone_no', 'string', false),
] as const

/** Update Subscription (spec 4.9): all optional; `status` takes `cancel`. */
export const SUBSCRIPTION_UPDATE_FIELDS = [
  field('email', 'string', false),
  field('phone_no', 'string', false),
  field('status', 'string', false),
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

/** One page of a list, as it arrived. */
export interface ListPage {
  items: Rec[]
  /** Another page follows. */
  more: boolean
  /** The service's time when it answered (the envelope's `meta.timestamp`), when it said. */
  timestamp?: string
}

export interface CreateOptions {
  /** Sent as the Idempotency-Key header; one is made up when not given. */
  idempotencyKey?: string
}

/** A request that changes something, as the change log hears of it before it is sent. */
export interface ChangeStart {
  method: string
  path: string
  /** "payment link", "subscription", "token". */
  resource: string
  /** The record's _id, when the path names one. */
  id?: string
  idempotencyKey?: string
}

/**
 * Told of every change the client sends (the journal): the intent before the request, then
 * through the function it returns, the outcome (the HTTP status, or the kind of failure).
 */
export interface ChangeLog {
  intent(start: ChangeStart): (end: { status?: number; error?: string; id?: string }) => void
}
