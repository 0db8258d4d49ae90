/**
 * A business's webhook endpoints: checked as the API checks a body (Laravel's 422, every failing
 * field at once), added once per URL, removed, listed with the business's signature key. The same
 * for `/_sandbox/webhooks` (controls.ts), `sandbox start --webhook`, the library, and the commands
 * acting on a sandbox directory with no server (local.ts).
 */

import { newObjectId, nowIso } from '../../domain/records.js'
import type { Checked, RequestBody } from '../../domain/rules.js'
import type { SandboxStore } from '../../store/store.js'
import { WEBHOOK_EVENTS } from './notification.js'
import {
  abandonDeliveries,
  type EndpointRecord,
  type EndpointRow,
  endpointById,
  endpointRecord,
  endpointRowOf,
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
  return endpointRecord(addEndpointRow(store, keyHash, input))
}

/** addEndpoint, answering the endpoint's row (its times too: an integration's webhook event shows them). */
export function addEndpointRow(store: SandboxStore, keyHash: string, input: EndpointInput): EndpointRow {
  return store.write(() => {
    const now = Date.now()
    const at = nowIso(now)
    endpointRows(store, keyHash, now)
    const expires = input.leaseSeconds === undefined ? null : now + input.leaseSeconds * 1000
    const events = JSON.stringify(input.events)
    const enabled = input.enabled ? 1 : 0
    const found = store.statement(OUTBOX.endpointByUrl, 'get', keyHash, input.url) as
      | Record<string, unknown>
      | undefined
    if (found) {
      const stays = found.expires_at === null ? null : expires
      store.statement(OUTBOX.changeEndpoint, 'run', events, enabled, stays, at, found.seq)
      return { ...endpointRowOf(found), events, enabled, expires_at: stays, updated_at: at }
    }
    const id = newObjectId()
    store.statement(OUTBOX.addEndpoint, 'run', keyHash, id, input.url, events, enabled, expires, at, at)
    return endpointRowOf(store.statement(OUTBOX.endpointById, 'get', id, keyHash) as Record<string, unknown>)
  })
}

/**
 * Endpoint `id` of the business moved to another URL and/or turned on or off: its row after;
 * undefined when there is none; `taken` when another of its endpoints has that URL.
 */
export function moveEndpoint(
  store: SandboxStore,
  keyHash: string,
  id: string,
  change: { url?: string; enabled?: boolean },
): EndpointRow | 'taken' | undefined {
  return store.write(() => {
    const row = endpointById(store, keyHash, id)
    if (!row) return undefined
    const url = change.url ?? row.url
    const other = store.statement(OUTBOX.endpointByUrl, 'get', keyHash, url) as { id: string } | undefined
    if (other && other.id !== row.id) return 'taken' as const
    const enabled = change.enabled === undefined ? row.enabled : change.enabled ? 1 : 0
    if (url === row.url && enabled === row.enabled) return row
    const at = nowIso()
    store.statement(OUTBOX.moveEndpoint, 'run', url, enabled, at, row.seq)
    return { ...row, url, enabled, updated_at: at }
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
