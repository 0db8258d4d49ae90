/** How the account's businesses and an integration's webhook events are shown. */
import { redactKey } from '../../config/profiles.js'
import type { View } from '../../render/views.js'
import { isRecord, plain, type Rec } from '../../values.js'

export const BUSINESS_VIEW: View = {
  noun: 'business',
  plural: 'businesses',
  idField: 'id',
  listColumns: ['id', 'name', 'integration.id', 'integration.api_key', 'chosen'],
  recordFields: [
    'id',
    'name',
    'integration.id',
    'integration.api_key',
    'integration.signature_key',
    'chosen',
  ],
  dropOrder: ['integration.api_key', 'integration.id'],
}

export const WEBHOOK_EVENT_VIEW: View = {
  noun: 'webhook event',
  plural: 'webhook events',
  listColumns: ['_id', 'name', 'enabled', 'url', 'updated_at'],
  recordFields: ['_id', 'name', 'enabled', 'url', 'created_at', 'updated_at'],
  // The name is payment.created for every event: a narrow terminal drops it first, then the time, before it cuts the URL.
  dropOrder: ['name', 'updated_at'],
}

/**
 * A business as pay shows it: its keys redacted, as every key pay shows (they are the service's
 * credentials: `pay login --email` stores them, no output carries them), and whether it is the
 * profile's (`chosen`).
 */
export function shownBusiness(business: Rec, chosenId: string | undefined): Rec {
  const integration = isRecord(business.integration) ? business.integration : {}
  const redacted = (value: unknown) => (typeof value === 'string' ? redactKey(value) : value)
  return {
    ...business,
    integration: {
      ...integration,
      api_key: redacted(integration.api_key),
      signature_key: redacted(integration.signature_key),
    },
    chosen: chosenId !== undefined && plain(business.id) === chosenId,
  }
}

/** One line for a plan: `payment.created → https://shop.example/hook [enabled]`. */
export function describeWebhookEvent(event: Rec): string {
  const state = event.enabled === true ? 'enabled' : event.enabled === false ? 'disabled' : ''
  return `${plain(event.name)} → ${plain(event.url)}${state ? `  [${state}]` : ''}`
}
