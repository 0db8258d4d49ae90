/**
 * The answers of the sandbox's own controls (not in docs/spec/) that are more than one record:
 * its fault rules, the customer's outcome of a link, its webhook endpoints. Each control is sent
 * like any endpoint (PayApi.send); these read what it answered.
 */
import { isRecord, type Rec } from '../values.js'
import { readPage } from './reader.js'

/** `{seed, rules}` as `/_sandbox/faults` answers it. */
export interface FaultsAnswer {
  seed: number | undefined
  rules: Rec[]
}

export function readFaults(data: Rec): FaultsAnswer {
  const rules = readPage({ data: data.rules }, 'fault rule').items
  return { seed: typeof data.seed === 'number' ? data.seed : undefined, rules }
}

/** What the customer's action on a link came to: the link, and where the customer would be sent. */
export interface SettledAnswer {
  outcome: string
  link: Rec
  redirect_to: string | null
}

/**
 * The outcome of `/_sandbox/payment-links/{id}/pay|cancel|fail`: the link as its data, and beside
 * it the outcome and the customer's way back.
 */
export function readSettled(link: Rec, asked: string, body: unknown): SettledAnswer {
  const said = isRecord(body) ? body : {}
  return {
    outcome: typeof said.outcome === 'string' ? said.outcome : link.paid === true ? 'paid' : asked,
    link,
    redirect_to: typeof said.redirect_to === 'string' ? said.redirect_to : null,
  }
}

/** `{signature_key, endpoints}` as `GET /_sandbox/webhooks` answers it. */
export interface WebhooksAnswer {
  signature_key: string
  endpoints: Rec[]
}

export function readWebhooks(data: Rec): WebhooksAnswer {
  return {
    signature_key: typeof data.signature_key === 'string' ? data.signature_key : '',
    endpoints: readPage({ data: data.endpoints }, 'webhook endpoint').items,
  }
}
