import { randomUUID } from 'node:crypto'
import { PayError } from '../errors.js'
import type { Rec } from '../values.js'
import { readDeleted, readPage, readRecord } from './reader.js'
import { type Method, Transport, type TransportOptions } from './transport.js'
import type {
  ChangeLog,
  ChangeStart,
  CreateOptions,
  LinkInput,
  ListPage,
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
  private readonly changes?: ChangeLog

  constructor(options: TransportOptions & { changes?: ChangeLog }) {
    this.transport = new Transport(options)
    this.changes = options.changes
  }

  get origin(): string {
    return this.transport.origin
  }

  createToken(input: TokenInput, options: CreateOptions = {}): Promise<Rec> {
    return this.create('/tokenizations/create-token', 'token', input, options)
  }

  createLink(input: LinkInput, options: CreateOptions = {}): Promise<Rec> {
    return this.create('/payment-links', 'payment link', input, options)
  }

  getLink(linkId: string): Promise<Rec> {
    return this.record('GET', `/payment-links/${id(linkId)}`, 'payment link')
  }

  /** The payment links, page by page. */
  linkPages(): AsyncGenerator<ListPage> {
    return this.pages('/payment-links', 'payment link')
  }

  updateLink(linkId: string, input: LinkInput): Promise<Rec> {
    return this.update(`/payment-links/${id(linkId)}`, 'payment link', linkId, input)
  }

  deleteLink(linkId: string): Promise<void> {
    return this.delete(`/payment-links/${id(linkId)}`, 'payment link', linkId)
  }

  createSubscription(input: SubscriptionInput, options: CreateOptions = {}): Promise<Rec> {
    return this.create('/subscriptions', 'subscription', input, options)
  }

  getSubscription(subscriptionId: string): Promise<Rec> {
    return this.record('GET', `/subscriptions/${id(subscriptionId)}`, 'subscription')
  }

  /** The subscriptions, page by page. */
  subscriptionPages(): AsyncGenerator<ListPage> {
    return this.pages('/subscriptions', 'subscription')
  }

  updateSubscription(subscriptionId: string, input: SubscriptionUpdate): Promise<Rec> {
    return this.update(`/subscriptions/${id(subscriptionId)}`, 'subscription', subscriptionId, input)
  }

  deleteSubscription(subscriptionId: string): Promise<void> {
    return this.delete(`/subscriptions/${id(subscriptionId)}`, 'subscription', subscriptionId)
  }

  private delete(path: string, noun: string, recordId: string): Promise<void> {
    return this.change({ method: 'DELETE', path, resource: noun, id: recordId }, async () => {
      const response = await this.transport.send('DELETE', path, undefined, { anyBody: true })
      readDeleted(response.body)
      return { status: response.status, result: undefined }
    })
  }

  private update(path: string, noun: string, recordId: string, body: unknown): Promise<Rec> {
    return this.change({ method: 'PUT', path, resource: noun, id: recordId }, async () => {
      const response = await this.transport.send('PUT', path, body)
      return { status: response.status, result: readRecord(response.body, noun) }
    })
  }

  /**
   * A request that changes something, told to the change log (the journal) before it is sent
   * and again with its outcome: the status, or the kind of failure.
   */
  private async change<T>(
    start: ChangeStart,
    send: () => Promise<{ status: number; result: T; id?: string }>,
  ): Promise<T> {
    const finish = this.changes?.intent(start)
    try {
      const { status, result, id: createdId } = await send()
      finish?.({ status, id: createdId })
      return result
    } catch (error) {
      const failure = error instanceof PayError ? error : undefined
      finish?.({ status: failure?.status, error: failure?.kind ?? 'general' })
      throw error
    }
  }

  /**
   * A POST, sent once with an Idempotency-Key. When it fails after it may have reached the
   * service (a timeout, a 5xx, a cut connection), the error says so and names the key, so that
   * the very same request can be sent again with --idempotency-key.
   */
  private async create(path: string, noun: string, body: unknown, options: CreateOptions): Promise<Rec> {
    const key = options.idempotencyKey ?? randomUUID()
    try {
      return await this.change({ method: 'POST', path, resource: noun, idempotencyKey: key }, async () => {
        const response = await this.transport.send('POST', path, body, { idempotencyKey: key })
        const created = readRecord(response.body, noun)
        return {
          status: response.status,
          result: created,
          id: typeof created._id === 'string' ? created._id : undefined,
        }
      })
    } catch (error) {
      if (!(error instanceof PayError) || error.kind !== 'unavailable' || error.unsent) throw error
      throw new PayError(error.message, {
        kind: error.kind,
        status: error.status,
        errors: error.errors,
        idempotencyKey: key,
        hint: [
          `The ${noun} may have been created all the same (Idempotency-Key ${key}).`,
          `To send this very request again, add --idempotency-key ${key}.`,
          error.hint,
        ]
          .filter(Boolean)
          .join('\n'),
      })
    }
  }

  private async record(method: Method, path: string, noun: string, body?: unknown): Promise<Rec> {
    const response = await this.transport.send(method, path, body)
    return readRecord(response.body, noun)
  }

  /**
   * Every page of a list, one request each, as they arrive: next_page_url is resolved against
   * the page it came from (only when the next page is asked for), and the transport refuses one
   * on another origin (the key never goes there). A page seen before ends the walk.
   */
  private async *pages(path: string, noun: string): AsyncGenerator<ListPage> {
    const seen = new Set<string>()
    let url: string | undefined = this.transport.url(path)
    while (url !== undefined) {
      seen.add(url)
      const page = readPage((await this.transport.send('GET', url)).body, noun)
      yield { items: page.items, more: page.next !== undefined }
      if (page.next === undefined) return
      const resolved: string = this.transport.url(resolveNext(page.next, url))
      url = seen.has(resolved) ? undefined : resolved
    }
  }
}
