import { randomUUID } from 'node:crypto'
import { PayError } from '../errors.js'
import type { Rec } from '../values.js'
import { mayHaveHappened } from './failures.js'
import { walkPages } from './paging.js'
import { readDeleted, readPage, readRecord } from './reader.js'
import { Transport, type TransportOptions } from './transport.js'
import type {
  ChangeLog,
  ChangeStart,
  CreateOptions,
  LinkInput,
  ListPage,
  Method,
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
    return this.listPages('/payment-links', 'payment link')
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
    return this.listPages('/subscriptions', 'subscription')
  }

  /** The sandbox only: empties the business of the key (`pay sandbox reset` through a running sandbox); answers `{reset, business_id}`. */
  sandboxReset(): Promise<Rec> {
    const path = '/_sandbox/reset'
    return this.change({ method: 'POST', path, resource: 'sandbox store' }, async () => {
      const response = await this.transport.send('POST', path, undefined)
      return { status: response.status, result: readRecord(response.body, 'sandbox store') }
    })
  }

  /** The sandbox only: its clock, `{now, offset_seconds}` (`pay sandbox clock` through a running sandbox). */
  async sandboxClock(): Promise<Rec> {
    return this.record('GET', '/_sandbox/clock', 'sandbox clock')
  }

  /**
   * The sandbox only: moves its clock (`{advance: "30d"}` or `{to: "2027-01-01"}`) and bills what
   * came due; answers `{now, charges_created}`.
   */
  sandboxMoveClock(move: { advance: string } | { to: string }): Promise<Rec> {
    const path = '/_sandbox/clock'
    return this.change({ method: 'POST', path, resource: 'sandbox clock' }, async () => {
      const response = await this.transport.send('POST', path, move)
      return { status: response.status, result: readRecord(response.body, 'sandbox clock') }
    })
  }

  /**
   * The sandbox only: seeds the key's business with a fixture file (`pay sandbox seed` through a
   * running sandbox), all of it or nothing; `once` skips the names seeded before. Answers
   * `{ids: {NAME: ID}, records: [{name, kind, id, skipped}]}`.
   */
  sandboxSeed(fixtures: unknown, once: boolean): Promise<Rec> {
    const path = `/_sandbox/seed${once ? '?once=true' : ''}`
    return this.change({ method: 'POST', path, resource: 'sandbox fixtures' }, async () => {
      const response = await this.transport.send('POST', path, fixtures)
      return { status: response.status, result: readRecord(response.body, 'sandbox fixtures') }
    })
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
   * and again with its outcome: the status, or the kind of failure. (Public for the sandbox's
   * own controls, src/api/sandbox.ts, and `pay api`'s requests, src/api/raw.ts.)
   */
  async change<T>(
    start: ChangeStart,
    send: () => Promise<{ status: number; result: T; id?: string; failure?: string }>,
  ): Promise<T> {
    const finish = this.changes?.intent(start)
    try {
      const { status, result, id: createdId, failure } = await send()
      finish?.({ status, id: createdId, ...(failure ? { error: failure } : {}) })
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
      throw mayHaveHappened(error, key, noun)
    }
  }

  private async record(method: Method, path: string, noun: string, body?: unknown): Promise<Rec> {
    const response = await this.transport.send(method, path, body)
    return readRecord(response.body, noun)
  }

  /** A list of the service, page by page, read by the tolerant reader. */
  private listPages(path: string, noun: string): AsyncGenerator<ListPage> {
    return walkPages(this.transport, path, async (url) => {
      const page = readPage((await this.transport.send('GET', url)).body, noun)
      const value = { items: page.items, more: page.next !== undefined, timestamp: page.timestamp }
      return { value, next: page.next }
    })
  }
}
