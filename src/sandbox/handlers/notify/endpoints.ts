/**
 * A business's webhook endpoints: checked as the API checks a body (Laravel's 422, every failing
 * field at once), added once per URL, removed, listed with the business's signature key. The same
 * for `/_sandbox/webhooks` (controls.ts), `sandbox start --webhook`, the library, and the commands
 * acting on a sandbox directory with no server (local.ts).
 */

import { newObjectId } from '../../domain/records.js'
import type { Checked, RequestBody } from '../../domain/rules.js'
import type { SandboxStore } from '../../store/store.js'
import { WEBHOOK_EVENTS } from './notification.js'
import {
  abandonDeliveries,
  type EndpointRecord,
  endpointById,
  endpointRecord,
  endpointRows,
  OUTBOX,
  signatureKeyOf,
} from './outbox.js'
import { NO_CREDENTIALS, webhookUrlProblem } from './url.js'

/** The longest endpoint URL taken. */
const MAX_URL_LENGTH = 2048
/** The longest lease an endpoint that lives while it is renewed may ask for (`pay sandbox listen`'s). */
const MAX_LEASE_SECONDS = 3600

export interface EndpointInput {
  url: string
  events: string[]
  enabled: boolean
  /** For an endpoint that lives only while it is renewed: gone this many seconds after the last renewal. */
  leaseSeconds?: number
}

/** What `GET /_sandbox/webhooks` answers. */
export type Webhooks = {
  signature_key: string
  endpoints: EndpointRecord[]
}

/** `{url, events?, enabled?, lease_seconds?}`, checked: every failing field named at once. */
export function checkEndpoint(body: RequestBody): Checked<EndpointInput> {
  const errors: Record<string, string[]> = {}
  const { url, events = [...WEBHOOK_EVENTS], enabled = true, lease_seconds: lease } = body
  if (url === undefined || url === null || (typeof url === 'string' && url.trim() === '')) {
    errors.url = ['The url field is required.']
  } else if (
    typeof url !== 'string' ||
    url.length > MAX_URL_LENGTH ||
    webhookUrlProblem(url) === 'not-http'
  ) {
    errors.url = [`The url must be an http:// or https:// URL of at most ${MAX_URL_LENGTH} characters.`]
  } else if (webhookUrlProblem(url) === 'credentials') {
    errors.url = [`The url ${NO_CREDENTIALS}.`]
  }
  const known = WEBHOOK_EVENTS as readonly string[]
  if (
    !Array.isArray(events) ||
    events.length === 0 ||
    events.some((event) => typeof event !== 'string' || !known.includes(event))
  ) {
    errors.events = [`The events must be a list of: ${known.join(', ')}.`]
  }
  if (typeof enabled !== 'boolean') errors.enabled = ['The enabled field must be true or false.']
  if (
    lease !== undefined &&
    !(Number.isInteger(lease) && (lease as number) >= 1 && (lease as number) <= MAX_LEASE_SECONDS)
  ) {
    errors.lease_seconds = [`The lease seconds must be an integer from 1 to ${MAX_LEASE_SECONDS}.`]
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  return {
    ok: true,
    value: {
      url: url as string,
      events: [...new Set(events as string[])],
      enabled: enabled as boolean,
      leaseSeconds: lease as number | undefined,
    },
  }
}

/**
 * The endpoint of the business for `input.url`: added, or the one there already, its events and
 * `enabled` as given. A lease renews it; one without a lease makes it stay (an endpoint someone
 * registered for good is never taken away by a `listen` that ends).
 */
export function addEndpoint(store: SandboxStore, keyHash: string, input: EndpointInput): EndpointRecord {
  return store.write(() => {
    const now = Date.now()
    endpointRows(store, keyHash, now)
    const expires = input.leaseSeconds === undefined ? null : now + input.leaseSeconds * 1000
    const events = JSON.stringify(input.events)
    const enabled = input.enabled ? 1 : 0
    const found = store.statement(OUTBOX.endpointByUrl, 'get', keyHash, input.url) as
      | { seq: number; id: string; expires_at: number | null }
      | undefined
    if (found) {
      const stays = found.expires_at === null ? null : expires
      store.statement(OUTBOX.changeEndpoint, 'run', events, enabled, stays, found.seq)
      return { _id: found.id, url: input.url, events: input.events, enabled: input.enabled }
    }
    const id = newObjectId()
    store.statement(OUTBOX.addEndpoint, 'run', keyHash, id, input.url, events, enabled, expires)
    return { _id: id, url: input.url, events: input.events, enabled: input.enabled }
  })
}

/** Removes endpoint `id` of the business (its pending deliveries fail, saying so); undefined when there is none. */
export function removeEndpoint(store: SandboxStore, keyHash: string, id: string): EndpointRecord | undefined {
  return store.write(() => {
    const row = endpointById(store, keyHash, id)
    if (!row) return undefined
    store.statement(OUTBOX.removeEndpoint, 'run', row.seq)
    abandonDeliveries(store, row.id)
    return endpointRecord(row)
  })
}

/** The business's signature key and its endpoints. */
export function webhooksOf(store: SandboxStore, keyHash: string): Webhooks {
  return {
    signature_key: signatureKeyOf(store, keyHash),
    endpoints: endpointRows(store, keyHash).map(endpointRecord),
  }
}
