import { PayError } from '../errors.js'
import { randomUuid } from '../shared/crypto.js'
import {
  type ENDPOINTS,
  type Endpoint,
  type EndpointName,
  endpointOf,
  fillPath,
  takesIdempotencyKey,
} from '../shared/endpoints.js'
import { isRecord, type Rec } from '../values.js'
import { mayHaveHappened } from './failures.js'
import { walkPages } from './paging.js'
import { readDeleted, readPage, readRecord } from './reader.js'
import { Transport, type TransportOptions } from './transport.js'
import type { ChangeLog, ChangeStart, ListPage } from './types.js'

/** One request to a declared endpoint. */
export interface Call {
  /** The record the path names (`{id}`). */
  id?: string
  /** The path's other parameters: `{business: '12', integration: '7'}` for `/integrations/businesses/{business}/…`. */
  params?: Record<string, string>
  body?: unknown
  query?: Record<string, string | number | boolean | undefined>
  /** A create's Idempotency-Key; one is made up when not given. */
  idempotencyKey?: string
}

export interface CallOptions<R = unknown> {
  /** Reads the answer's whole body, where the endpoint answers more than its declaration says. */
  read?: (body: unknown) => R
  /** What a failure is said as, before the journal hears of it. */
  failure?: (error: unknown) => unknown
  /**
   * False: not told to the journal, being the repeat of a change it holds already (`sandbox
   * listen` renewing its endpoint's lease every few seconds, which would otherwise fill it).
   */
  journal?: boolean
}

/** What an endpoint answers, as its declaration says (`answer`): a record, the items of a list, nothing. */
export type AnswerOf<E extends Endpoint> = E['answer'] extends 'items'
  ? Rec[]
  : E['answer'] extends 'none'
    ? undefined
    : Rec

type Named = EndpointName | Endpoint
type Declared<N extends Named> = N extends EndpointName ? (typeof ENDPOINTS)[N] : N

/**
 * The client of the service and of the sandbox's controls: every endpoint of the table
 * (src/shared/endpoints.ts) is sent the one way, by its name (`send`, and `pages` for a list
 * answered page by page). Answers go through the tolerant reader.
 */
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

  /**
   * One request to the endpoint named, its answer read as its declaration says: one record, the
   * items of a list, or nothing (a delete: any answer, or none, is success). One that changes
   * state is told to the change log (the journal) before it is sent and again with its outcome:
   * the status, or the kind of failure. A create is sent once with an Idempotency-Key: when it
   * fails after it may have reached the service (a timeout, a 5xx, a cut connection), the error
   * says so and names the key, so that the very same request can be sent again with
   * --idempotency-key.
   */
  async send<N extends Named, R = AnswerOf<Declared<N>>>(
    named: N,
    call: Call = {},
    options: CallOptions<R> = {},
  ): Promise<R> {
    const endpoint = endpointOf(named)
    const path = pathOf(endpoint, call.id, call.query, call.params)
    const key = takesIdempotencyKey(endpoint) ? (call.idempotencyKey ?? randomUuid()) : undefined
    const read = (body: unknown): unknown => {
      if (options.read) return options.read(body)
      if (endpoint.answer === 'none') return readDeleted(body)
      if (endpoint.answer === 'items') return readPage(body, endpoint.noun).items
      return readRecord(body, endpoint.noun)
    }
    const send = async () => {
      try {
        const response = await this.transport.send(endpoint.method, path, call.body, {
          idempotencyKey: key,
          anyBody: endpoint.answer === 'none',
        })
        const result = read(response.body) as R
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
   * Tells the change log what the service was found to hold for the change `named` would make to
   * the record (`found('updateSubscription', 'ID', 'cancelled')`): no request is sent. A change of
   * that kind and path an earlier run left with no outcome (a kill -9 mid-request) is settled by it.
   */
  found(named: Named, id: string, state: string): void {
    const endpoint = endpointOf(named)
    if (!endpoint.changesState || !this.changes?.found) return
    const redact = this.transport.redact
    this.changes.found(
      {
        method: endpoint.method,
        path: redact(pathOf(endpoint, id)),
        resource: endpoint.noun,
        id: redact(id),
      },
      state,
    )
  }

  /** A list the service answers page by page (`answer: 'list'`), as the pages arrive. */
  pages(named: Named): AsyncGenerator<ListPage> {
    const endpoint = endpointOf(named)
    return walkPages(this.transport, pathOf(endpoint), async (url) => {
      const page = readPage((await this.transport.send(endpoint.method, url)).body, endpoint.noun)
      const value = { items: page.items, more: page.next !== undefined, timestamp: page.timestamp }
      return { value, next: page.next }
    })
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
}

/**
 * The path of a request: `{id}` as one path segment, then the query's given values. "", "." and
 * ".." cannot be one: URL resolution would turn DELETE /payment-links/.. into DELETE / (and "" or
 * "." into the collection).
 */
export function pathOf(
  endpoint: Endpoint,
  id?: string,
  query: Record<string, string | number | boolean | undefined> = {},
  params: Record<string, string> = {},
): string {
  const path = fillPath(endpoint, id, params)
  if (path === undefined) throw new PayError(`${JSON.stringify(id)} is not a valid id.`, { kind: 'usage' })
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value))
  return search.size > 0 ? `${path}?${search}` : path
}
