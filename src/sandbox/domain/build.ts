/**
 * The records the service makes (spec 2.2-2.4), built from a checked request: for the API's create
 * endpoints (handlers/service/endpoints.ts) and for fixtures (handlers/double/fixtures.ts), so
 * that a seeded record is the one the API would have made from the same fields.
 */

import { activationPagePath, paymentPagePath } from './page-address.js'
import {
  newObjectId,
  newToken,
  nowIso,
  type PackageRecord,
  type PaymentLinkRecord,
  type SubscriptionRecord,
  type TokenizationRecord,
} from './records.js'
import {
  definedOnly,
  type NewSubscriptionInput,
  type PaymentLinkInput,
  type TokenizationInput,
} from './rules.js'

/** A payment link's record from its base fields and the request's; optional fields not sent are left out. */
export function buildLink(
  base: Pick<
    PaymentLinkRecord,
    '_id' | 'status' | 'payment_url' | 'business_id' | 'paid' | 'created_at' | 'updated_at'
  >,
  input: PaymentLinkInput,
): PaymentLinkRecord {
  return definedOnly({
    _id: base._id,
    email: input.email,
    phone_no: input.phone_no,
    currency: input.currency,
    amount: input.amount,
    title: input.title,
    description: input.description,
    redirect_url: input.redirect_url,
    reference: input.reference,
    reference_2: input.reference_2,
    status: base.status,
    payment_url: base.payment_url,
    business_id: base.business_id,
    paid: base.paid,
    created_at: base.created_at,
    updated_at: base.updated_at,
  })
}

/** A subscription's record in the order of spec 2.4; optional fields not set are left out. */
export function buildSubscription(fields: SubscriptionRecord): SubscriptionRecord {
  return definedOnly({
    _id: fields._id,
    package_id: fields.package_id,
    email: fields.email,
    phone_no: fields.phone_no,
    status: fields.status,
    package: fields.package,
    payment_links: fields.payment_links,
    created_at: fields.created_at,
    updated_at: fields.updated_at,
  })
}

/** A new tokenization at sandbox time `at`, its activation page kept as a path (page-address.ts). */
export function newTokenization(input: TokenizationInput, at: number): TokenizationRecord {
  const now = nowIso(at)
  const token = newToken()
  return definedOnly({
    _id: newObjectId(),
    email: input.email,
    phone_no: input.phone_no,
    redirect_url: input.redirect_url,
    title: input.title,
    description: input.description,
    token,
    activation_url: activationPagePath(token),
    created_at: now,
    updated_at: now,
  })
}

/** A new payment link of business `businessId`: Active, unpaid, its payment page kept as a path (page-address.ts). */
export function newLink(businessId: number, input: PaymentLinkInput, at: number): PaymentLinkRecord {
  const id = newObjectId()
  const now = nowIso(at)
  return buildLink(
    {
      _id: id,
      status: 'Active',
      payment_url: paymentPagePath(id),
      business_id: businessId,
      paid: false,
      created_at: now,
      updated_at: now,
    },
    input,
  )
}

/** A new subscription (`created`, no charge yet) to `pkg`, one of the business's packages. */
export function newSubscription(
  input: NewSubscriptionInput,
  pkg: PackageRecord,
  at: number,
): SubscriptionRecord {
  const now = nowIso(at)
  return buildSubscription({
    _id: newObjectId(),
    package_id: input.package_id,
    email: input.email,
    phone_no: input.phone_no,
    status: 'created',
    package: pkg,
    payment_links: [],
    created_at: now,
    updated_at: now,
  })
}
