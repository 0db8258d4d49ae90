/**
 * The sandbox's own controls as a test double, sent to a running sandbox: its fault rules, the
 * requests each business sent, the customer's outcomes of a link, and the notifications of
 * payments (its webhook endpoints and their deliveries). Each acts on the key's business.
 */
import type { PayApi } from '../../api/client.js'
import { readRecord } from '../../api/reader.js'
import {
  type FaultsAnswer,
  readFaults,
  readSettled,
  readWebhooks,
  type SettledAnswer,
  type WebhooksAnswer,
} from '../../api/sandbox.js'
import { PayError } from '../../errors.js'
import type { Rec } from '../../values.js'

export type { FaultsAnswer, SettledAnswer, WebhooksAnswer }

/** The rules of the key's business, with what each did so far. */
export async function sandboxFaults(api: PayApi): Promise<FaultsAnswer> {
  return readFaults(await api.send('sandboxFaults'))
}

/** Replaces the rules of the key's business (none: `clear`); `seed` for their P% draws. */
export async function setSandboxFaults(api: PayApi, rules: string[], seed?: number): Promise<FaultsAnswer> {
  if (rules.length === 0 && seed === undefined) return readFaults(await api.send('clearSandboxFaults'))
  const body = seed === undefined ? { rules } : { rules, seed }
  return readFaults(await api.send('setSandboxFaults', { body }))
}

/** The requests the key's business sent, newest last: after `after` (a seq), the newest `limit`; `wait` seconds for one. */
export function sandboxRequests(
  api: PayApi,
  options: { after?: number; limit?: number; wait?: number } = {},
): Promise<Rec[]> {
  return api.send('sandboxRequests', { query: options })
}

const SETTLE = {
  paid: 'sandboxPay',
  pending: 'sandboxPending',
  cancelled: 'sandboxCancel',
  failed: 'sandboxFail',
} as const

/**
 * The customer pays, cancels or fails link `linkId` (`pay sandbox pay --outcome`). A sandbox of
 * an older pay knows only paying: for another outcome it answers 404 for the route (`Not
 * found.`), said as such, and nothing is done.
 */
export async function sandboxSettle(
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
  const read = (body: unknown) => readSettled(readRecord(body, 'payment link'), outcome, body)
  return api.send(SETTLE[outcome], { id: linkId }, { read, failure: olderSandbox })
}

/** The signature key of the key's business and its webhook endpoints. */
export async function sandboxWebhooks(api: PayApi): Promise<WebhooksAnswer> {
  return readWebhooks(await api.send('sandboxWebhooks'))
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
  return api.send('addSandboxWebhook', { body }, { journal: !options.renewal })
}

/** Removes webhook endpoint `id` of the key's business; answers it. */
export function removeSandboxWebhook(api: PayApi, id: string): Promise<Rec> {
  return api.send('removeSandboxWebhook', { id })
}

/** The newest `limit` deliveries of the key's business's notifications, newest last. */
export function sandboxDeliveries(api: PayApi, options: { limit?: number } = {}): Promise<Rec[]> {
  return api.send('sandboxDeliveries', { query: options })
}

/** Delivery `id` sent again (three more attempts, the first at once); answers it. */
export function resendSandboxDelivery(api: PayApi, id: string): Promise<Rec> {
  return api.send('resendSandboxDelivery', { id })
}
