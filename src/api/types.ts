import type { Rec } from '../values.js'

/** The methods pay sends. */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

export type Method = (typeof METHODS)[number]

/** Request bodies, field names as the service spells them (docs/spec/payment-service-api.md section 4). */
export interface TokenInput {
  email: string
  title: string
  description: string
  phone_no?: string
  redirect_url?: string
}

/** The optional text fields of a payment link (docs/spec/payment-service-api.md 4.2). */
type LinkText = 'phone_no' | 'description' | 'redirect_url' | 'reference' | 'reference_2'

export type LinkInput = {
  email: string
  currency: string
  /** Decimal amount as text, exactly as typed: never passed through a float. */
  amount: string
  title: string
  send_email?: boolean
} & { [K in LinkText]?: string }

export interface SubscriptionInput {
  package_id: string
  email: string
  phone_no?: string
}

export interface SubscriptionUpdate {
  email?: string
  phone_no?: string
  status?: string
}

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
