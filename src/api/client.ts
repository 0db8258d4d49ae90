import { PayError } from '../errors.js'
import { randomUuid } from '../shared/crypto.js'
import { isRecord, type Rec } from '../values.js'
import { ENDPOINTS, type Endpoint, pathOf, takesIdempotencyKey } from './endpoints.js'
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
  SubscriptionInput,
  SubscriptionUpdate,
  TokenInput,
} from './types.js'

/** One request to a declared endpoint. */
export interface Call {
  /** The record the path names (`{id}`). */
  id?: string
  body?: unknown
  query?: Record<string, string | number | boolean | undefined>
  /** A create's Idempotency-Key; one is made up when not given. */
  idempotencyKey?: string
}

export interface CallOptions {
  /** Takes a 2xx body that is not JSON (a delete's answer carries nothing pay needs). */
  anyBody?: boolean
  /** What a failure is said as, before the journal hears of it. */
  failure?: (error: unknown) => unknown
  /**
   * False: not told to the journal, being the repeat of a change it holds already (`sandbox
   * listen` renewing its endpoint's lease every few seconds, which would otherwise fill it).
   */
  journal?: boolean
}

/** The endpoints (endpoints.ts), one method each. Answers go through the tolerant reader. */
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
    return this.record(ENDPOINTS.createToken, { body: input, ...options })
  }

  createLink(input: LinkInput, options: CreateOptions = {}): Promise<Rec> {
    return this.record(ENDPOINTS.createLink, { body: input, ...options })
  }

  getLink(linkId: string): Promise<Rec> {
    return this.record(ENDPOINTS.getLink, { id: linkId })
  }

  /** The payment links, page by page. */
  linkPages(): AsyncGenerator<ListPage> {
    return this.listPages(ENDPOINTS.listLinks)
  }

  updateLink(linkId: string, input: LinkInput): Promise<Rec> {
    return this.record(ENDPOINTS.updateLink, { id: linkId, body: input })
  }

  deleteLink(linkId: string): Promise<void> {
    return this.delete(ENDPOINTS.deleteLink, linkId)
  }

  createSubscription(input: SubscriptionInput, options: CreateOptions = {}): Promise<Rec> {
    return this.record(ENDPOINTS.createSubscription, { body: input, ...options })
  }

  getSubscription(subscriptionId: string): Promise<Rec> {
    return this.record(ENDPOINTS.getSubscription, { id: subscriptionId })
  }

  /** The subscriptions, page by page. */
  subscriptionPages(): AsyncGenerator<ListPage> {
    return this.listPages(ENDPOINTS.listSubscriptions)
  }

  updateSubscription(subscriptionId: string, input: SubscriptionUpdate): Promise<Rec> {
    return this.record(ENDPOINTS.updateSubscription, { id: subscriptionId, body: input })
  }

  deleteSubscription(subscriptionId: string): Promise<void> {
    return this.delete(ENDPOINTS.deleteSubscription, subscriptionId)
  }

  /** The sandbox only: empties the business of the key (`pay sandbox reset` through a running sandbox); answers `{reset, business_id}`. */
  sandboxReset(): Promise<Rec> {
    return this.record(ENDPOINTS.sandboxReset, {})
  }

  /** The sandbox only: its clock, `{now, offset_seconds}` (`pay sandbox clock` through a running sandbox). */
  sandboxClock(): Promise<Rec> {
    return this.record(ENDPOINTS.sandboxClock, {})
  }

  /**
   * The sandbox only: moves its clock (`{advance: "30d"}` or `{to: "2027-01-01"}`) and bills what
   * came due; answers `{now, charges_created}`.
   */
  sandboxMoveClock(move: { advance: string } | { to: string }): Promise<Rec> {
    return this.record(ENDPOINTS.sandboxMoveClock, { body: move })
  }

  /**
   * The sandbox only: seeds the key's business with a fixture file (`pay sandbox seed` through a
   * running sandbox), all of it or nothing; `once` skips the names seeded before. Answers
   * `{ids: {NAME: ID}, records: [{name, kind, id, skipped}]}`.
   */
  sandboxSeed(fixtures: unknown, once: boolean): Promise<Rec> {
    return this.record(ENDPOINTS.sandboxSeed, { body: fixtures, query: { once: once || undefined } })
  }

  /**
   * One request to `endpoint`, its answer made a result by `read`. One that changes state is told
   * to the change log (the journal) before it is sent and again with its outcome: the status, or
   * the kind of failure. A create is sent once with an Idempotency-Key: when it fails after it may
   * have reached the service (a timeout, a 5xx, a cut connection), the error says so and names the
   * key, so that the very same request can be sent again with --idempotency-key.
   */
  async call<T>(
    endpoint: Endpoint,
    call: Call,
    read: (body: unknown) => T,
    options: CallOptions = {},
  ): Promise<T> {
    const path = pathOf(endpoint, call.id, call.query)
    const key = takesIdempotencyKey(endpoint) ? (call.idempotencyKey ?? randomUuid()) : undefined
    const send = async () => {
      try {
        const response = await this.transport.send(endpoint.method, path, call.body, {
          idempotencyKey: key,
          anyBody: options.anyBody,
        })
        const result = read(response.body)
        // What a request with no id in its path answers with an id of its own, it created.
        const createdId = call.id === undefined && isRecord(result) ? result._id : undefined
        return { status: response.status, result, id: typeof createdId === 'string' ? createdId : undefined }
      } catch (error) {
        if (options.failure) throw options.failure(error)
        // The hint names the Idempotency-Key, which the user may have given as anything at all.
        throw this.transport.redactError(mayHaveHappened(error, key, endpoint.noun))
      }
    }
    if (!endpoint.changesState || options.journal === false) return (await send()).result
    const start: ChangeStart = { method: endpoint.method, path, resource: endpoint.noun }
    if (call.id !== undefined) start.id = call.id
    if (key !== undefined) start.idempotencyKey = key
    return this.change(start, send)
  }

  /**
   * A request that changes something, told to the change log (the journal) before it is sent
   * and again with its outcome: the status, or the kind of failure. (Public for `pay api`'s
   * requests, src/api/raw.ts, which go to any path.)
   */
  async change<T>(
    start: ChangeStart,
    send: () => Promise<{ status: number; result: T; id?: string; failure?: string }>,
  ): Promise<T> {
    // The journal never holds the key, in whatever form a path, an id or an Idempotency-Key carries it.
    const redact = this.transport.redact
    const finish = this.changes?.intent({
      ...start,
      path: redact(start.path),
      ...(start.id === undefined ? {} : { id: redact(start.id) }),
      ...(start.idempotencyKey === undefined ? {} : { idempotencyKey: redact(start.idempotencyKey) }),
    })
    try {
      const { status, result, id: createdId, failure } = await send()
      finish?.({
        status,
        id: createdId === undefined ? undefined : redact(createdId),
        ...(failure ? { error: failure } : {}),
      })
      return result
    } catch (error) {
      const failure = error instanceof PayError ? error : undefined
      finish?.({ status: failure?.status, error: failure?.kind ?? 'general' })
      throw error
    }
  }

  /**
   * A request to any declared endpoint answered with one record: what a command that sends one
   * request needs, with no method of its own here (src/work/common/send.ts), and `pay
   * mcp`'s tool of an endpoint no run function serves.
   */
  record(endpoint: Endpoint, call: Call): Promise<Rec> {
    return this.call(endpoint, call, (body) => readRecord(body, endpoint.noun))
  }

  /** A delete: any answer, or none, is success. */
  delete(endpoint: Endpoint, recordId: string): Promise<void> {
    return this.call(endpoint, { id: recordId }, readDeleted, { anyBody: true })
  }

  /** A list of the service, page by page, read by the tolerant reader (`pay mcp`'s tool of a list no run function serves). */
  listPages(endpoint: Endpoint): AsyncGenerator<ListPage> {
    return walkPages(this.transport, pathOf(endpoint), async (url) => {
      const page = readPage((await this.transport.send(endpoint.method, url)).body, endpoint.noun)
      const value = { items: page.items, more: page.next !== undefined, timestamp: page.timestamp }
      return { value, next: page.next }
    })
  }
}
