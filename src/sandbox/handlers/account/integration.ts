/**
 * What the account's access token opens (sign-in.ts gives it), as the service's shop plugins call
 * it (docs/choices.md): the approved businesses, each with its one integration (its API key and
 * signature key, which the business already uses, and its webhook events), and the webhook events
 * of an integration: listed, added, changed, removed.
 *
 * The webhook events are the business's webhook endpoints (handlers/notify/endpoints.ts): one set,
 * which `/_sandbox/webhooks` and `pay sandbox webhooks` show too and notifications go to (a
 * disabled one gets none). An event is an endpoint as the service shows it: `{_id, name, url,
 * enabled, created_at, updated_at}`, its `name` the one event it takes (`payment.created`).
 */

import type { AccountBusiness } from '../../domain/account.js'
import { invalid, Refusal, type Reply, success } from '../../domain/answers.js'
import { notFoundIn } from '../../domain/rules.js'
import type { SandboxStore } from '../../store/store.js'
import type { AccountContext, CheckedAccountContext } from '../context.js'
import { addEndpointRow, moveEndpoint, removeEndpoint } from '../notify/endpoints.js'
import { PAYMENT_CREATED, WEBHOOK_EVENTS } from '../notify/notification.js'
import { type EndpointRow, endpointById, endpointRows, signatureKeyOf } from '../notify/outbox.js'
import { isWebhookUrl } from '../notify/url.js'

/** The longest webhook URL taken (as `/_sandbox/webhooks` takes it). */
const MAX_URL_LENGTH = 2048

/** A webhook event as the service answers it. */
export type WebhookEventRecord = {
  _id: string
  name: string
  url: string
  enabled: boolean
  created_at: string
  updated_at: string
}

const eventOf = (row: EndpointRow): WebhookEventRecord => ({
  _id: row.id,
  name: (JSON.parse(row.events) as string[])[0] ?? PAYMENT_CREATED,
  url: row.url,
  enabled: row.enabled === 1,
  created_at: row.created_at,
  updated_at: row.updated_at,
})

const eventsOf = (store: SandboxStore, business: AccountBusiness) =>
  endpointRows(store, business.keyHash).map(eventOf)

/** `GET /approved-businesses`: every business of the account, with its integration. */
export function approvedBusinesses({ store, businesses, now }: AccountContext): Reply {
  return success(
    businesses.map((business) => ({
      id: business.businessId,
      name: business.name,
      integration: {
        id: business.integrationId,
        api_key: business.key,
        signature_key: signatureKeyOf(store, business.keyHash),
        webhook_events: eventsOf(store, business),
      },
    })),
    now,
  )
}

/**
 * The business and integration the path names, before anything else is checked: 404 for a
 * business that is not the account's, or an integration that is not that business's own.
 */
function businessOfPath({ businesses, params }: AccountContext): AccountBusiness {
  const business = businesses.find((one) => String(one.businessId) === params.business)
  if (!business) throw new Refusal(404, 'Business not found.')
  if (business.integrationId !== params.integration) throw new Refusal(404, 'Integration not found.')
  return business
}

const eventNotFound = () => new Refusal(404, 'Webhook event not found.')

/** The path's business and integration, checked first on every webhook-event route. */
export const integrationFound = (context: AccountContext): void => void businessOfPath(context)

/** The same, and the webhook event the path names (PATCH, DELETE): a 404 before a 422. */
export function eventFound(context: AccountContext): void {
  if (!endpointById(context.store, businessOfPath(context).keyHash, context.id)) throw eventNotFound()
}

/** A webhook event's `name`: an event the service sends (Laravel's `in`). */
export const knownEvent = (name: unknown): string | undefined =>
  (WEBHOOK_EVENTS as readonly string[]).includes(name as string) ? undefined : notFoundIn('name')

/** A webhook event's `url`: an http(s) URL with a host (Laravel's `url`), of at most 2,048 characters. */
export const webhookUrl = (url: unknown): string | undefined =>
  typeof url === 'string' && url.length <= MAX_URL_LENGTH && isWebhookUrl(url)
    ? undefined
    : 'The url format is invalid.'

/** `GET …/webhook-events`: `data.data`, the integration's events. */
export function listWebhookEvents(context: AccountContext): Reply {
  return success({ data: eventsOf(context.store, businessOfPath(context)) }, context.now)
}

/**
 * `POST …/webhook-events {name, url, enabled?}`: the event, added (enabled unless it says not), or
 * the one of that URL there already, changed so.
 */
export function addWebhookEvent(context: CheckedAccountContext<'addWebhookEvent'>): Reply {
  const { store, input, now } = context
  const enabled = input.enabled === undefined ? true : Boolean(Number(input.enabled))
  const row = addEndpointRow(store, businessOfPath(context).keyHash, {
    url: input.url,
    events: [input.name],
    enabled,
  })
  return success(eventOf(row), now)
}

/** `PATCH …/webhook-events/{id} {url?, enabled?}`: the event after. */
export function updateWebhookEvent(context: CheckedAccountContext<'updateWebhookEvent'>): Reply {
  const { store, input, id, now } = context
  const enabled = input.enabled === undefined ? undefined : Boolean(Number(input.enabled))
  const moved = moveEndpoint(store, businessOfPath(context).keyHash, id, { url: input.url, enabled })
  if (moved === undefined) throw eventNotFound()
  if (moved === 'taken') throw invalid({ url: ['The url has already been taken.'] })
  return success(eventOf(moved), now)
}

/** `DELETE …/webhook-events/{id}` (the plugins send `{"enabled": true}` with it, which changes nothing). */
export function removeWebhookEvent(context: AccountContext): Reply {
  const { store, id, now } = context
  if (!removeEndpoint(store, businessOfPath(context).keyHash, id)) throw eventNotFound()
  return success(null, now)
}
