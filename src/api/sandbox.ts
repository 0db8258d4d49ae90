/**
 * The sandbox's own controls as a test double (not in docs/spec/): its fault rules, the requests
 * each business sent, the customer's outcomes of a link, and the notifications of payments (its
 * webhook endpoints and their deliveries). Each acts on the key's business, through a running
 * sandbox (`pay sandbox faults`, `requests`, `pay --outcome`, `webhooks`, `listen`).
 */
import { PayError } from '../errors.js'
import { isRecord, type Rec } from '../values.js'
import type { PayApi } from './client.js'
import { ENDPOINTS } from './endpoints.js'
import { readPage, readRecord } from './reader.js'

/** `{seed, rules}` as `/_sandbox/faults` answers it. */
export interface FaultsAnswer {
  seed: number | undefined
  rules: Rec[]
}

function readFaults(body: unknown): FaultsAnswer {
  const data = readRecord(body, 'fault list')
  const rules = readPage({ data: data.rules }, 'fault rule').items
  return { seed: typeof data.seed === 'number' ? data.seed : undefined, rules }
}

/** The rules of the key's business, with what each did so far. */
export function sandboxFaults(api: PayApi): Promise<FaultsAnswer> {
  return api.call(ENDPOINTS.sandboxFaults, {}, readFaults)
}

/** Replaces the rules of the key's business (none: `clear`); `seed` for their P% draws. */
export function setSandboxFaults(api: PayApi, rules: string[], seed?: number): Promise<FaultsAnswer> {
  if (rules.length === 0 && seed === undefined) return api.call(ENDPOINTS.clearSandboxFaults, {}, readFaults)
  const body = seed === undefined ? { rules } : { rules, seed }
  return api.call(ENDPOINTS.setSandboxFaults, { body }, readFaults)
}

/** The requests the key's business sent, newest last: after `after` (a seq), the newest `limit`; `wait` seconds for one. */
export function sandboxRequests(
  api: PayApi,
  options: { after?: number; limit?: number; wait?: number } = {},
): Promise<Rec[]> {
  return api.call(ENDPOINTS.sandboxRequests, { query: options }, (body) => readPage(body, 'request').items)
}

/** What the customer's action on a link came to: the link, and where the customer would be sent. */
export interface SettledAnswer {
  outcome: string
  link: Rec
  redirect_to: string | null
}

const SETTLE = {
  paid: ENDPOINTS.sandboxPay,
  cancelled: ENDPOINTS.sandboxCancel,
  failed: ENDPOINTS.sandboxFail,
} as const

/**
 * The customer pays, cancels or fails link `linkId` (`pay sandbox pay --outcome`). A sandbox of
 * an older pay knows only paying: for another outcome it answers 404 for the route (`Not
 * found.`), said as such, and nothing is done.
 */
export function sandboxSettle(
  api: PayApi,
  linkId: string,
  outcome: keyof typeof SETTLE,
): Promise<SettledAnswer> {
  const olderSandbox = (error: unknown) => {
    if (!(error instanceof PayError && error.status === 404 && error.message === 'Not found.')) return error
    return new PayError(
      `The sandbox at ${api.origin} cannot play the outcome "${outcome}": it runs an older pay.`,
      { kind: 'general', status: 404, hint: 'Restart it (`pay sandbox start`) with this pay.' },
    )
  }
  return api.call(
    SETTLE[outcome],
    { id: linkId },
    (body) => {
      const link = readRecord(body, 'payment link')
      const said = isRecord(body) ? body : {}
      return {
        outcome: typeof said.outcome === 'string' ? said.outcome : link.paid === true ? 'paid' : outcome,
        link,
        redirect_to: typeof said.redirect_to === 'string' ? said.redirect_to : null,
      }
    },
    { failure: olderSandbox },
  )
}

/** `{signature_key, endpoints}` as `GET /_sandbox/webhooks` answers it. */
export interface WebhooksAnswer {
  signature_key: string
  endpoints: Rec[]
}

/** The signature key of the key's business and its webhook endpoints. */
export function sandboxWebhooks(api: PayApi): Promise<WebhooksAnswer> {
  return api.call(ENDPOINTS.sandboxWebhooks, {}, (body) => {
    const data = readRecord(body, 'webhook list')
    return {
      signature_key: typeof data.signature_key === 'string' ? data.signature_key : '',
      endpoints: readPage({ data: data.endpoints }, 'webhook endpoint').items,
    }
  })
}

/**
 * Adds a webhook endpoint to the key's business (the one of that URL when there is one already);
 * `lease_seconds`: it lives only while it is added again within that time (`pay sandbox listen`),
 * each `renewal` a repeat the journal is not told of.
 */
export function addSandboxWebhook(
  api: PayApi,
  body: { url: string; lease_seconds?: number },
  options: { renewal?: boolean } = {},
): Promise<Rec> {
  const read = (answer: unknown) => readRecord(answer, 'webhook endpoint')
  return api.call(ENDPOINTS.addSandboxWebhook, { body }, read, { journal: !options.renewal })
}

/** Removes webhook endpoint `id` of the key's business; answers it. */
export function removeSandboxWebhook(api: PayApi, id: string): Promise<Rec> {
  return api.call(ENDPOINTS.removeSandboxWebhook, { id }, (answer) => readRecord(answer, 'webhook endpoint'))
}

/** The newest `limit` deliveries of the key's business's notifications, newest last. */
export function sandboxDeliveries(api: PayApi, options: { limit?: number } = {}): Promise<Rec[]> {
  return api.call(
    ENDPOINTS.sandboxDeliveries,
    { query: options },
    (body) => readPage(body, 'notification').items,
  )
}

/** Delivery `id` sent again (three more attempts, the first at once); answers it. */
export function resendSandboxDelivery(api: PayApi, id: string): Promise<Rec> {
  return api.call(ENDPOINTS.resendSandboxDelivery, { id }, (answer) => readRecord(answer, 'delivery'))
}
