/**
 * The endpoints of the service (docs/spec/payment-service-api.md section 4), each a handler of the
 * route table (http/routes.ts), which reads the request, checks the key, bills what came due and
 * checks the body's fields against the endpoint table before one runs: here is only what the
 * endpoint does with the caller's records, and what the router asks of them first (a record the
 * path names, found before the body is checked; a package that must be the caller's).
 */

import { Refusal, type Reply, success, successJson } from '../../domain/answers.js'
import {
  buildLink,
  buildSubscription,
  newLink,
  newSubscription,
  newTokenization,
} from '../../domain/build.js'
import { laterIso } from '../../domain/records.js'
import { notFoundIn, type PaymentLinkInput } from '../../domain/rules.js'
import { withCharges } from '../billing/billing.js'
import type { CheckedContext, ScopedContext } from '../context.js'

const DEFAULT_PER_PAGE = 50
const MAX_PER_PAGE = 500

const linkNotFound = () => new Refusal(404, 'Payment link not found.')
const subscriptionNotFound = () => new Refusal(404, 'Subscription not found.')

const EDITABLE_LINK_FIELDS = [
  'email',
  'phone_no',
  'currency',
  'amount',
  'title',
  'description',
  'redirect_url',
  'reference',
  'reference_2',
] as const satisfies readonly (keyof PaymentLinkInput)[]

function positiveInteger(text: string | null): number | undefined {
  if (text === null || !/^[0-9]{1,9}$/.test(text)) return undefined
  const value = Number(text)
  return value >= 1 ? value : undefined
}

/**
 * Laravel's length-aware paginator (without `links`), newest first: `read` fetches one slice of
 * the list (offset, limit) and how many there are in all.
 */
function paginate<T>(
  context: ScopedContext,
  read: (offset: number, limit: number) => { total: number; records: T[] },
) {
  const perPage = Math.min(positiveInteger(context.query.get('per_page')) ?? DEFAULT_PER_PAGE, MAX_PER_PAGE)
  const page = positiveInteger(context.query.get('page')) ?? 1
  const { total, records: data } = read((page - 1) * perPage, perPage)
  const lastPage = Math.max(1, Math.ceil(total / perPage))
  const path = `${context.origin}${context.base}${context.path}`
  const pageUrl = (target: number) => {
    const query = new URLSearchParams({ page: String(target) })
    if (context.query.has('per_page')) query.set('per_page', String(perPage))
    return `${path}?${query}`
  }
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null
  return {
    current_page: page,
    data,
    first_page_url: pageUrl(1),
    from,
    last_page: lastPage,
    last_page_url: pageUrl(lastPage),
    next_page_url: page < lastPage ? pageUrl(page + 1) : null,
    path,
    per_page: perPage,
    prev_page_url: page > 1 ? pageUrl(page - 1) : null,
    to: from === null ? null : from + data.length - 1,
    total,
  }
}

/** `POST /tokenizations/create-token` (spec 4.1). */
export function createTokenization({
  store,
  caller,
  input,
  checkoutOrigin,
  now,
}: CheckedContext<'createToken'>): Reply {
  const tokenization = newTokenization(input, checkoutOrigin, now)
  store.insertTokenization(caller, tokenization)
  return success(tokenization, now)
}

/** `POST /payment-links` (spec 4.2). */
export function createLink({
  store,
  caller,
  input,
  checkoutOrigin,
  now,
}: CheckedContext<'createLink'>): Reply {
  const link = newLink(caller.businessId, input, checkoutOrigin, now)
  return successJson(store.insert('payment_links', caller, link), now)
}

/** `GET /payment-links/{id}` (spec 4.4). */
export function getLink({ store, caller, id, now }: ScopedContext): Reply {
  const link = store.recordText('payment_links', caller, id)
  if (link === undefined) throw linkNotFound()
  return successJson(link, now)
}

/** `GET /payment-links` (spec 4.5). */
export function listLinks(context: ScopedContext): Reply {
  const { store, caller, now } = context
  return success(
    paginate(context, (offset, limit) => store.list('payment_links', caller, offset, limit)),
    now,
  )
}

/**
 * The link the path names, before its body is checked: Laravel resolves the route's record before
 * it validates the body, so 404 wins over 422.
 */
export function linkFound({ store, caller, id }: ScopedContext): void {
  if (!store.get('payment_links', caller, id)) throw linkNotFound()
}

/** `PUT /payment-links/{id}` (spec 4.3): a full replacement of the editable fields; optional ones not sent are dropped. */
export function updateLink({ store, caller, id, input, now }: CheckedContext<'updateLink'>): Reply {
  const updated = store.write(() => {
    const current = store.get('payment_links', caller, id)
    if (!current) return undefined
    const unchanged = EDITABLE_LINK_FIELDS.every((field) => current[field] === input[field])
    if (unchanged) return current
    const next = buildLink({ ...current, updated_at: laterIso(current.updated_at, now) }, input)
    store.replace('payment_links', caller, next)
    return next
  })
  if (!updated) throw linkNotFound()
  return success(updated, now)
}

/** `DELETE /payment-links/{id}` (spec 4.6). */
export function deleteLink({ store, caller, id, now }: ScopedContext): Reply {
  if (!store.remove('payment_links', caller, id)) throw linkNotFound()
  return success(null, now)
}

/**
 * Create Subscription's package_id, once it passed the table's rules: the _id of one of the
 * caller's packages (Laravel's `exists`), which only the caller's business knows.
 */
export const packageOfCaller = (id: unknown, { caller }: ScopedContext): string | undefined =>
  caller.packages.some((pkg) => pkg._id === id) ? undefined : notFoundIn('package_id')

/** `POST /subscriptions` (spec 4.7): to one of the caller's packages (packageOfCaller). */
export function createSubscription({
  store,
  caller,
  input,
  now,
}: CheckedContext<'createSubscription'>): Reply {
  const pkg = caller.packages.find((p) => p._id === input.package_id)!
  const subscription = newSubscription(input, pkg, now)
  store.insert('subscriptions', caller, subscription)
  return success(subscription, now)
}

/** `GET /subscriptions/{id}` (spec 4.8), with its charges. */
export function getSubscription({ store, caller, id, now }: ScopedContext): Reply {
  const subscription = store.read(() => {
    const found = store.get('subscriptions', caller, id)
    return found && withCharges(store, caller, [found])[0]
  })
  if (!subscription) throw subscriptionNotFound()
  return success(subscription, now)
}

/** `GET /subscriptions` (spec 4.11), each with its charges. */
export function listSubscriptions(context: ScopedContext): Reply {
  const { store, caller, now } = context
  return success(
    paginate(context, (offset, limit) =>
      store.read(() => {
        const listed = store.list('subscriptions', caller, offset, limit)
        return { ...listed, records: withCharges(store, caller, listed.records) }
      }),
    ),
    now,
  )
}

/** The subscription the path names, before its body is checked (as linkFound). */
export function subscriptionFound({ store, caller, id }: ScopedContext): void {
  if (!store.get('subscriptions', caller, id)) throw subscriptionNotFound()
}

/** `PUT /subscriptions/{id}` (spec 4.9): sets the fields sent; `updated_at` moves only when something changed (as Eloquent does). */
export function updateSubscription({
  store,
  caller,
  id,
  input: changes,
  now,
}: CheckedContext<'updateSubscription'>): Reply {
  const updated = store.write(() => {
    const current = store.get('subscriptions', caller, id)
    if (!current) return undefined
    const next = buildSubscription({ ...current, ...changes })
    const unchanged = (['email', 'phone_no', 'status'] as const).every(
      (field) => next[field] === current[field],
    )
    if (unchanged) return withCharges(store, caller, [current])[0]
    const changed = { ...next, updated_at: laterIso(current.updated_at, now) }
    store.replace('subscriptions', caller, changed)
    return withCharges(store, caller, [changed])[0]
  })
  if (!updated) throw subscriptionNotFound()
  return success(updated, now)
}

/** `DELETE /subscriptions/{id}` (spec 4.10). */
export function deleteSubscription({ store, caller, id, now }: ScopedContext): Reply {
  if (!store.remove('subscriptions', caller, id)) throw subscriptionNotFound()
  return success(null, now)
}
