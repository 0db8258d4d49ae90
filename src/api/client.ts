import { randomUUID } from 'node:crypto'
import { PayError } from '../errors.js'
import type { Rec } from '../values.js'
import { errorFromResponse, parseBody, readDeleted, readJson, readPage, readRecord } from './reader.js'
import {
  carriesIdempotencyKey,
  MAX_RESPONSE_BYTES,
  type Method,
  type RawRequestOptions,
  type RawResponse,
  Transport,
  type TransportOptions,
} from './transport.js'
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

/** What the service's collections are called in the journal, by their path. */
const RESOURCES: Record<string, string> = {
  'payment-links': 'payment link',
  subscriptions: 'subscription',
  tokenizations: 'token',
}

/** An answer to `pay api`: the response, its body when it is JSON, and the error its status means. */
export interface Answer {
  response: RawResponse
  /** The body, when it is JSON (`{value: null}` for a JSON null). */
  json?: { value: unknown }
  /** What the answer means as a failure: a status that is not 2xx, or a 2xx that is not JSON. */
  error?: PayError
}

/**
 * The most `pay api --paginate` holds, all its pages' answers together (it prints them as one
 * array at the end): twice what one answer may be. Past it the walk stops (exit 6): a hostile
 * server cannot make it hold unbounded memory with endless pages. (`--jsonl` list commands
 * print each page as it comes instead.)
 */
export const MAX_PAGINATED_BYTES = 2 * MAX_RESPONSE_BYTES

/** One page of `pay api --paginate`: its answer, and its items when it was a 2xx list. */
export interface RawPage extends Answer {
  items?: Rec[]
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

  /**
   * Any request (`pay api`): PATH is relative to the base URL, or an absolute URL on its origin
   * (the key goes nowhere else). Same key, deadline, retries, redirect refusal and trace as every
   * other request; the answer comes back whatever its status, with the error that status means.
   * A change (any method but GET) is journaled; a POST or PATCH that may have been acted on
   * before it failed says so, with the Idempotency-Key to send it again under.
   */
  async request(method: Method, path: string, options: RawRequestOptions = {}): Promise<Answer> {
    const target = this.target(path)
    // An Idempotency-Key given among the headers is the one sent, journaled and named.
    const headers = { ...options.headers }
    let given = options.idempotencyKey
    for (const name of Object.keys(headers)) {
      if (name.toLowerCase() !== 'idempotency-key') continue
      given = headers[name]
      delete headers[name]
    }
    const key = carriesIdempotencyKey(method) ? (given ?? randomUUID()) : undefined
    const send = async (): Promise<Answer> => {
      const response = await this.transport.request(method, target, {
        ...options,
        headers:
          key === undefined && given !== undefined ? { ...headers, 'idempotency-key': given } : headers,
        idempotencyKey: key,
      })
      return this.answer(response, key)
    }
    if (method === 'GET') return send()
    const pathname = new URL(this.transport.url(target)).pathname
    const { resource, id: recordId } = describePath(pathname, this.base)
    try {
      return await this.change(
        { method, path: pathname, resource, id: recordId, idempotencyKey: key },
        async () => {
          const answer = await send()
          return { status: answer.response.status, result: answer, failure: answer.error?.kind }
        },
      )
    } catch (error) {
      throw this.mayHaveHappened(error, key)
    }
  }

  /** Every page of a list `pay api --paginate` asks for: each answer as it came, until one is not a 2xx list. */
  async *rawPages(path: string, headers: Record<string, string> = {}): AsyncGenerator<RawPage> {
    let total = 0
    let pages = 0
    yield* this.walk<RawPage>(this.target(path), async (url) => {
      const response = await this.transport.request('GET', url, { headers })
      total += Buffer.byteLength(response.text)
      pages += 1
      if (total > MAX_PAGINATED_BYTES) {
        throw new PayError(
          `The pages from ${this.origin} add up to more than ${MAX_PAGINATED_BYTES / 1024 / 1024} MB ` +
            `after ${pages} pages: pay stopped following them.`,
          {
            kind: 'unavailable',
            hint: '`pay api --paginate` holds every page until the end; `pay links list --all --jsonl` prints each as it comes.',
          },
        )
      }
      const answer = this.answer(response, undefined)
      if (answer.error) return { value: answer }
      const page = readPage(answer.json?.value, 'item')
      return { value: { ...answer, items: page.items }, next: page.next }
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
   * own controls, src/api/sandbox.ts.)
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
      throw this.mayHaveHappened(error, key, noun)
    }
  }

  /**
   * A failure of a request that may have reached the service all the same (a timeout, a 5xx, a
   * cut connection, a redirect): said, with its Idempotency-Key and how to send it again. For a
   * create, `noun` names what may have been created; `pay api` is told to send the key again.
   */
  private mayHaveHappened(error: unknown, key: string | undefined, noun?: string): unknown {
    if (key === undefined || !(error instanceof PayError) || error.kind !== 'unavailable' || error.unsent)
      return error
    return new PayError(error.message, {
      kind: error.kind,
      status: error.status,
      errors: error.errors,
      idempotencyKey: key,
      hint: [
        noun
          ? `The ${noun} may have been created all the same (Idempotency-Key ${key}).`
          : `The request may have been acted on all the same (Idempotency-Key ${key}).`,
        noun
          ? `To send this very request again, add --idempotency-key ${key}.`
          : `To send this very request again, add -H 'Idempotency-Key: ${key}'.`,
        error.hint,
      ]
        .filter(Boolean)
        .join('\n'),
    })
  }

  /** A response as `pay api` shows it: its JSON, and the error its status means (none for a 2xx JSON or empty body). */
  private answer(response: RawResponse, key: string | undefined): Answer {
    const { status, text, contentType } = response
    const parsed = readJson(text)
    const json = parsed && { value: this.transport.redactValue(parsed.value, text) }
    if (status >= 200 && status < 300) {
      if (json !== undefined || text.trim() === '') return { response, json }
      try {
        parseBody(status, text, contentType)
      } catch (error) {
        return { response, error: this.mayHaveHappened(error, key) as PayError }
      }
    }
    return {
      response,
      json,
      error: this.mayHaveHappened(
        errorFromResponse(status, text, contentType, this.transport.redact),
        key,
      ) as PayError,
    }
  }

  /** PATH of `pay api` as the transport takes it: a path under the base URL, or a URL on its origin. */
  private target(path: string): string {
    if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
      let url: URL
      try {
        url = new URL(path)
      } catch {
        throw new PayError(`"${path}" is not a valid URL.`, { kind: 'usage' })
      }
      if (url.origin !== this.origin) {
        throw new PayError(
          `Refusing to send the API key to ${url.origin}: pay sends it only to ${this.origin}, the profile's base URL.`,
          { kind: 'usage', hint: 'Give a path relative to the base URL, e.g. /payment-links.' },
        )
      }
      return url.href
    }
    return path.startsWith('/') ? path : `/${path}`
  }

  /** The base URL's path, which the journal leaves out of a request's resource. */
  private get base(): string {
    return new URL(this.transport.url('/')).pathname.replace(/\/$/, '')
  }

  private async record(method: Method, path: string, noun: string, body?: unknown): Promise<Rec> {
    const response = await this.transport.send(method, path, body)
    return readRecord(response.body, noun)
  }

  /** A list of the service, page by page, read by the tolerant reader. */
  private listPages(path: string, noun: string): AsyncGenerator<ListPage> {
    return this.walk(path, async (url) => {
      const page = readPage((await this.transport.send('GET', url)).body, noun)
      const value = { items: page.items, more: page.next !== undefined, timestamp: page.timestamp }
      return { value, next: page.next }
    })
  }

  /**
   * Every page of a list, one request each, as they arrive: next_page_url is resolved against
   * the page it came from (only when the next page is asked for), and the transport refuses one
   * on another origin (the key never goes there). A page seen before ends the walk.
   */
  private async *walk<T>(
    path: string,
    read: (url: string) => Promise<{ value: T; next?: string }>,
  ): AsyncGenerator<T> {
    const seen = new Set<string>()
    let url: string | undefined = this.transport.url(path)
    while (url !== undefined) {
      seen.add(url)
      const { value, next } = await read(url)
      yield value
      if (next === undefined) return
      const resolved: string = this.transport.url(resolveNext(next, url))
      url = seen.has(resolved) ? undefined : resolved
    }
  }
}

/** The resource and record id a request path names, for the journal: `/payment-links/ID`. */
function describePath(pathname: string, base: string): { resource: string; id?: string } {
  const rest = pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : pathname
  const [collection = '', recordId] = rest.split('/').filter(Boolean).map(decodeSegment)
  return { resource: RESOURCES[collection] ?? (rest || '/'), id: recordId }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
