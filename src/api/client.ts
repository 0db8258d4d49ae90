import { PayError } from '../errors.js'
import type { Rec } from '../values.js'
import { readDeleted, readPage, readRecord } from './reader.js'
import { type Method, Transport, type TransportOptions } from './transport.js'
import type {
  LinkInput,
  ListOptions,
  ListResult,
  SubscriptionInput,
  SubscriptionUpdate,
  TokenInput,
} from './types.js'

/**
 * An id as one path segment. "", "." and ".." cannot be one: URL resolution would turn
 * DELETE /payment-links/.. into DELETE / (and "" or "." into the collection).
 */
function id(value: string): string {
  if (value === '' || value === '.' || value === '..') {
    throw new PayError(`${JSON.stringify(value)} is not a valid id.`, { kind: 'usage' })
  }
  return encodeURIComponent(value)
}

/** A next_page_url against the page it came from; one that is no URL at all is an unexpected answer. */
function resolveNext(next: string, page: string): string {
  try {
    return new URL(next, page).href
  } catch {
    throw new PayError('Unexpected answer from the service: a next_page_url that is not a URL.', {
      kind: 'unavailable',
      hint: 'Run again with --debug to see the exchange.',
    })
  }
}

/** The service's endpoints, one method each. Answers go through the tolerant reader. */
export class PayApi {
  readonly transport: Transport

  constructor(options: TransportOptions) {
    this.transport = new Transport(options)
  }

  get origin(): string {
    return this.transport.origin
  }

  createToken(input: TokenInput): Promise<Rec> {
    return this.record('POST', '/tokenizations/create-token', 'token', input)
  }

  createLink(input: LinkInput): Promise<Rec> {
    return this.record('POST', '/payment-links', 'payment link', input)
  }

  getLink(linkId: string): Promise<Rec> {
    return this.record('GET', `/payment-links/${id(linkId)}`, 'payment link')
  }

  listLinks(options: ListOptions = {}): Promise<ListResult> {
    return this.list('/payment-links', 'payment link', options)
  }

  updateLink(linkId: string, input: LinkInput): Promise<Rec> {
    return this.record('PUT', `/payment-links/${id(linkId)}`, 'payment link', input)
  }

  deleteLink(linkId: string): Promise<void> {
    return this.delete(`/payment-links/${id(linkId)}`)
  }

  createSubscription(input: SubscriptionInput): Promise<Rec> {
    return this.record('POST', '/subscriptions', 'subscription', input)
  }

  getSubscription(subscriptionId: string): Promise<Rec> {
    return this.record('GET', `/subscriptions/${id(subscriptionId)}`, 'subscription')
  }

  listSubscriptions(options: ListOptions = {}): Promise<ListResult> {
    return this.list('/subscriptions', 'subscription', options)
  }

  updateSubscription(subscriptionId: string, input: SubscriptionUpdate): Promise<Rec> {
    return this.record('PUT', `/subscriptions/${id(subscriptionId)}`, 'subscription', input)
  }

  deleteSubscription(subscriptionId: string): Promise<void> {
    return this.delete(`/subscriptions/${id(subscriptionId)}`)
  }

  private async delete(path: string): Promise<void> {
    readDeleted((await this.transport.send('DELETE', path, undefined, { anyBody: true })).body)
  }

  private async record(method: Method, path: string, noun: string, body?: unknown): Promise<Rec> {
    const response = await this.transport.send(method, path, body)
    return readRecord(response.body, noun)
  }

  /**
   * The first page, or with `all` every page: next_page_url is resolved against the page it
   * came from, and the transport refuses one on another origin (the key never goes there).
   */
  private async list(path: string, noun: string, options: ListOptions): Promise<ListResult> {
    const items: Rec[] = []
    const seen = new Set<string>()
    let next: string | undefined = this.transport.url(path)
    while (next !== undefined) {
      seen.add(next)
      const page = readPage((await this.transport.send('GET', next)).body, noun)
      for (const item of page.items) items.push(item)
      if (!options.all || page.next === undefined) return { items, more: page.next !== undefined }
      const resolved = this.transport.url(resolveNext(page.next, next))
      next = seen.has(resolved) ? undefined : resolved
    }
    return { items, more: false }
  }
}
