import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { LockTimeoutError } from '../lib/file-lock.js'
import { businessIdOf, keyHash, seededPackages } from './business.js'
import { SANDBOX_KEY } from './constants.js'
import {
  envelopeTimestamp,
  laterIso,
  newObjectId,
  newToken,
  nowIso,
  type PackageRecord,
  type PaymentLinkRecord,
  type SubscriptionRecord,
  type TokenizationRecord,
} from './records.js'
import {
  type Checked,
  checkNewSubscription,
  checkPaymentLink,
  checkSubscriptionChanges,
  checkTokenization,
  definedOnly,
  type PaymentLinkInput,
  type RequestBody,
} from './rules.js'
import { type BusinessData, SandboxStore, StoreCorruptError, type StoreData } from './store.js'

export const MAX_BODY_BYTES = 1024 * 1024
export const DEFAULT_PER_PAGE = 50
export const MAX_PER_PAGE = 500

export interface SandboxOptions {
  /** Directory of the store (created 0700 when missing). */
  dir: string
  /** API keys, each its own business. Default: `[SANDBOX_KEY]`. */
  keys?: string[]
  host?: string
  /** 0 picks a free port. */
  port?: number
}

export interface RunningSandbox {
  /** `http://host:port`, without a trailing slash. */
  baseUrl: string
  keys: string[]
  /** The seeded packages of each key's business. */
  packages: Record<string, PackageRecord[]>
  /** Stops accepting, closes idle keep-alive sockets, resolves once every connection is closed. */
  close(): Promise<void>
}

/** The business behind an API key. */
interface Caller {
  keyHash: string
  businessId: number
  packages: PackageRecord[]
}

interface Reply {
  status: number
  body: unknown
  headers?: Record<string, string>
}

/** A request answered with something other than 200: thrown by handlers, sent by the dispatcher. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

const VALIDATION_MESSAGE = 'The given data was invalid.'

const success = (data: unknown): Reply => ({
  status: 200,
  body: { success: true, data, errors: null, meta: { timestamp: envelopeTimestamp(), timezone: 'UTC' } },
})

/** Laravel's 422 body: no success, no meta. */
function valid<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new HttpError(422, VALIDATION_MESSAGE, { errors: checked.errors })
  return checked.value
}

const linkNotFound = () => new HttpError(404, 'Payment link not found.')
const subscriptionNotFound = () => new HttpError(404, 'Subscription not found.')

interface RequestContext {
  caller: Caller
  /** The decoded `{id}` of the route, if it has one. */
  id: string
  query: URLSearchParams
  /** POST and PUT only: the JSON object sent. */
  body: RequestBody
  /** `http://host:port` as the client addressed us, for the URLs we hand out. */
  origin: string
  path: string
}

type Handler = (context: RequestContext) => Promise<Reply> | Reply

interface Route {
  pattern: RegExp
  methods: Partial<Record<string, Handler>>
}

const EDITABLE_LINK_FIELDS = [
  'email',
  'phone_no',
  'currency',
  'amount',
  'title',
  'description',
  'redirect_url',
  'reference',
  'reference_2',
] as const satisfies readonly (keyof PaymentLinkInput)[]

function buildLink(
  base: Pick<
    PaymentLinkRecord,
    '_id' | 'status' | 'payment_url' | 'business_id' | 'paid' | 'created_at' | 'updated_at'
  >,
  input: PaymentLinkInput,
): PaymentLinkRecord {
  return definedOnly({
    _id: base._id,
    email: input.email,
    phone_no: input.phone_no,
    currency: input.currency,
    amount: input.amount,
    title: input.title,
    description: input.description,
    redirect_url: input.redirect_url,
    reference: input.reference,
    reference_2: input.reference_2,
    status: base.status,
    payment_url: base.payment_url,
    business_id: base.business_id,
    paid: base.paid,
    created_at: base.created_at,
    updated_at: base.updated_at,
  })
}

function buildSubscription(fields: SubscriptionRecord): SubscriptionRecord {
  return definedOnly({
    _id: fields._id,
    package_id: fields.package_id,
    email: fields.email,
    phone_no: fields.phone_no,
    status: fields.status,
    package: fields.package,
    payment_links: fields.payment_links,
    created_at: fields.created_at,
    updated_at: fields.updated_at,
  })
}

function businessOf(data: StoreData, caller: Caller): BusinessData {
  data.businesses[caller.keyHash] ??= {
    business_id: caller.businessId,
    tokenizations: {},
    payment_links: {},
    subscriptions: {},
  }
  return data.businesses[caller.keyHash]
}

/** A record by id, never something inherited (`constructor`, `__proto__`). */
function ownRecord<T>(records: Record<string, T> | undefined, id: string): T | undefined {
  return records && Object.hasOwn(records, id) ? records[id] : undefined
}

function removeFrom(records: Record<string, unknown>, id: string): boolean {
  if (!Object.hasOwn(records, id)) return false
  delete records[id]
  return true
}

function positiveInteger(text: string | null): number | undefined {
  if (text === null || !/^[0-9]{1,9}$/.test(text)) return undefined
  const value = Number(text)
  return value >= 1 ? value : undefined
}

/** Laravel's length-aware paginator (without `links`), newest first. */
function paginate<T>(newestFirst: T[], context: RequestContext) {
  const perPage = Math.min(positiveInteger(context.query.get('per_page')) ?? DEFAULT_PER_PAGE, MAX_PER_PAGE)
  const page = positiveInteger(context.query.get('page')) ?? 1
  const total = newestFirst.length
  const lastPage = Math.max(1, Math.ceil(total / perPage))
  const data = newestFirst.slice((page - 1) * perPage, page * perPage)
  const path = `${context.origin}${context.path}`
  const pageUrl = (target: number) => {
    const query = new URLSearchParams({ page: String(target) })
    if (context.query.has('per_page')) query.set('per_page', String(perPage))
    return `${path}?${query}`
  }
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null
  return {
    current_page: page,
    data,
    first_page_url: pageUrl(1),
    from,
    last_page: lastPage,
    last_page_url: pageUrl(lastPage),
    next_page_url: page < lastPage ? pageUrl(page + 1) : null,
    path,
    per_page: perPage,
    prev_page_url: page > 1 ? pageUrl(page - 1) : null,
    to: from === null ? null : from + data.length - 1,
    total,
  }
}

/** The endpoints of the spec, over one store. */
class SandboxApi {
  constructor(private readonly store: SandboxStore) {}

  readonly routes: Route[] = [
    { pattern: /^\/tokenizations\/create-token$/, methods: { POST: (c) => this.createTokenization(c) } },
    {
      pattern: /^\/payment-links$/,
      methods: { GET: (c) => this.listLinks(c), POST: (c) => this.createLink(c) },
    },
    {
      pattern: /^\/payment-links\/([^/]+)$/,
      methods: {
        GET: (c) => this.getLink(c),
        PUT: (c) => this.updateLink(c),
        DELETE: (c) => this.deleteLink(c),
      },
    },
    {
      pattern: /^\/subscriptions$/,
      methods: { GET: (c) => this.listSubscriptions(c), POST: (c) => this.createSubscription(c) },
    },
    {
      pattern: /^\/subscriptions\/([^/]+)$/,
      methods: {
        GET: (c) => this.getSubscription(c),
        PUT: (c) => this.updateSubscription(c),
        DELETE: (c) => this.deleteSubscription(c),
      },
    },
  ]

  private readBusiness(caller: Caller): BusinessData | undefined {
    return this.store.read().businesses[caller.keyHash]
  }

  private async createTokenization({ caller, body, origin }: RequestContext): Promise<Reply> {
    const input = valid(checkTokenization(body))
    const record = await this.store.mutate((data) => {
      const now = nowIso()
      const token = newToken()
      const tokenization: TokenizationRecord = definedOnly({
        _id: newObjectId(),
        email: input.email,
        phone_no: input.phone_no,
        redirect_url: input.redirect_url,
        title: input.title,
        description: input.description,
        token,
        activation_url: `${origin}/checkout/tokens/${token}/activate?test=true`,
        created_at: now,
        updated_at: now,
      })
      businessOf(data, caller).tokenizations[tokenization._id] = tokenization
      return tokenization
    })
    return success(record)
  }

  private async createLink({ caller, body, origin }: RequestContext): Promise<Reply> {
    const input = valid(checkPaymentLink(body))
    const record = await this.store.mutate((data) => {
      const id = newObjectId()
      const now = nowIso()
      const link = buildLink(
        {
          _id: id,
          status: 'Active',
          payment_url: `${origin}/checkout/pay?id=${id}`,
          business_id: caller.businessId,
          paid: false,
          created_at: now,
          updated_at: now,
        },
        input,
      )
      businessOf(data, caller).payment_links[id] = link
      return link
    })
    return success(record)
  }

  private getLink({ caller, id }: RequestContext): Reply {
    const link = ownRecord(this.readBusiness(caller)?.payment_links, id)
    if (!link) throw linkNotFound()
    return success(link)
  }

  private listLinks(context: RequestContext): Reply {
    const links = Object.values(this.readBusiness(context.caller)?.payment_links ?? {})
    return success(paginate(links.reverse(), context))
  }

  /** A full replacement of the editable fields; optional fields not sent are dropped. */
  private async updateLink({ caller, id, body }: RequestContext): Promise<Reply> {
    // Laravel resolves the route's record before it validates the body: 404 wins over 422.
    if (!ownRecord(this.readBusiness(caller)?.payment_links, id)) throw linkNotFound()
    const input = valid(checkPaymentLink(body))
    const updated = await this.store.mutate((data) => {
      const links = businessOf(data, caller).payment_links
      const current = ownRecord(links, id)
      if (!current) return undefined
      const unchanged = EDITABLE_LINK_FIELDS.every((field) => current[field] === input[field])
      if (unchanged) return current
      links[id] = buildLink({ ...current, updated_at: laterIso(current.updated_at) }, input)
      return links[id]
    })
    if (!updated) throw linkNotFound()
    return success(updated)
  }

  private async deleteLink({ caller, id }: RequestContext): Promise<Reply> {
    if (!ownRecord(this.readBusiness(caller)?.payment_links, id)) throw linkNotFound()
    const deleted = await this.store.mutate((data) => removeFrom(businessOf(data, caller).payment_links, id))
    if (!deleted) throw linkNotFound()
    return success(null)
  }

  private async createSubscription({ caller, body }: RequestContext): Promise<Reply> {
    const packageIds = new Set(caller.packages.map((pkg) => pkg._id))
    const input = valid(checkNewSubscription(body, packageIds))
    const record = await this.store.mutate((data) => {
      const now = nowIso()
      const subscription = buildSubscription({
        _id: newObjectId(),
        package_id: input.package_id,
        email: input.email,
        phone_no: input.phone_no,
        status: 'created',
        package: caller.packages.find((pkg) => pkg._id === input.package_id)!,
        payment_links: [],
        created_at: now,
        updated_at: now,
      })
      businessOf(data, caller).subscriptions[subscription._id] = subscription
      return subscription
    })
    return success(record)
  }

  private getSubscription({ caller, id }: RequestContext): Reply {
    const subscription = ownRecord(this.readBusiness(caller)?.subscriptions, id)
    if (!subscription) throw subscriptionNotFound()
    return success(subscription)
  }

  private listSubscriptions(context: RequestContext): Reply {
    const subscriptions = Object.values(this.readBusiness(context.caller)?.subscriptions ?? {})
    return success(paginate(subscriptions.reverse(), context))
  }

  /** Sets the fields sent; `updated_at` moves only when something changed (as Eloquent does). */
  private async updateSubscription({ caller, id, body }: RequestContext): Promise<Reply> {
    if (!ownRecord(this.readBusiness(caller)?.subscriptions, id)) throw subscriptionNotFound()
    const changes = valid(checkSubscriptionChanges(body))
    const updated = await this.store.mutate((data) => {
      const subscriptions = businessOf(data, caller).subscriptions
      const current = ownRecord(subscriptions, id)
      if (!current) return undefined
      const next = buildSubscription({ ...current, ...changes })
      const unchanged = (['email', 'phone_no', 'status'] as const).every(
        (field) => next[field] === current[field],
      )
      if (unchanged) return current
      subscriptions[id] = { ...next, updated_at: laterIso(current.updated_at) }
      return subscriptions[id]
    })
    if (!updated) throw subscriptionNotFound()
    return success(updated)
  }

  private async deleteSubscription({ caller, id }: RequestContext): Promise<Reply> {
    if (!ownRecord(this.readBusiness(caller)?.subscriptions, id)) throw subscriptionNotFound()
    const deleted = await this.store.mutate((data) => removeFrom(businessOf(data, caller).subscriptions, id))
    if (!deleted) throw subscriptionNotFound()
    return success(null)
  }
}

const HOST_HEADER = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/

function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0].trim().toLowerCase()
  return mediaType === 'application/json' || mediaType.endsWith('+json')
}

/** Reads the body as a JSON object; no body at all counts as `{}`. */
async function readJsonBody(request: http.IncomingMessage): Promise<RequestBody> {
  const contentType = request.headers['content-type']
  if (contentType !== undefined && !isJsonMediaType(contentType)) {
    throw new HttpError(415, 'The request body must be JSON, sent with Content-Type: application/json.')
  }
  const tooLarge = () =>
    new HttpError(
      413,
      `The request body is larger than ${MAX_BODY_BYTES} bytes.`,
      {},
      { Connection: 'close' },
    )
  if (Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES) throw tooLarge()
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) throw tooLarge()
    chunks.push(chunk)
  }
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
  if (text.trim() === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new HttpError(400, 'Malformed JSON body.')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new HttpError(400, 'The JSON body must be an object.')
  }
  return parsed as RequestBody
}

function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/** `http://` + host as written in a URL: brackets for IPv6, loopback for "any address". */
function urlHostOf(host: string): string {
  if (host === '' || host === '0.0.0.0') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') ? `[${host}]` : host
}

function errorReply(error: unknown): Reply {
  if (error instanceof HttpError) {
    return { status: error.status, body: { message: error.message, ...error.extra }, headers: error.headers }
  }
  if (error instanceof StoreCorruptError) return { status: 500, body: { message: error.message } }
  if (error instanceof LockTimeoutError) {
    return {
      status: 503,
      body: { message: 'The sandbox store is busy; try again.' },
      headers: { 'Retry-After': '1' },
    }
  }
  return {
    status: 500,
    body: { message: `Internal sandbox error: ${(error as Error)?.message ?? String(error)}` },
  }
}

class SandboxServer {
  readonly server: http.Server
  private readonly api: SandboxApi
  private readonly callers = new Map<string, Caller>()
  private closing: Promise<void> | undefined
  baseUrl = ''

  constructor(store: SandboxStore, keys: string[]) {
    this.api = new SandboxApi(store)
    for (const key of keys) {
      const businessId = businessIdOf(key)
      this.callers.set(keyHash(key), {
        keyHash: keyHash(key),
        businessId,
        packages: seededPackages(businessId),
      })
    }
    this.server = http.createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy())
    })
  }

  async listen(host: string, port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, host, () => {
        this.server.off('error', reject)
        resolve()
      })
    })
    this.baseUrl = `http://${urlHostOf(host)}:${(this.server.address() as AddressInfo).port}`
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve())
      this.server.closeIdleConnections()
      // A client that keeps a request open (a stalled upload) must not hold the close forever.
      setTimeout(() => this.server.closeAllConnections(), 2000).unref()
    })
    return this.closing
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    let reply: Reply
    try {
      reply = await this.dispatch(request)
    } catch (error) {
      reply = errorReply(error)
    }
    this.send(response, reply)
  }

  private send(response: http.ServerResponse, { status, body, headers = {} }: Reply): void {
    if (response.headersSent || response.destroyed) return
    const text = JSON.stringify(body)
    response.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
      'X-Pay-Sandbox': '1',
      ...(this.closing ? { Connection: 'close' } : {}),
      ...headers,
    })
    response.end(text)
  }

  private async dispatch(request: http.IncomingMessage): Promise<Reply> {
    const rawUrl = request.url ?? '/'
    const queryStart = rawUrl.indexOf('?')
    const rawPath = queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart)
    const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath
    const query = new URLSearchParams(queryStart === -1 ? '' : rawUrl.slice(queryStart + 1))
    const method = request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET')

    if (path === '/_sandbox/health') {
      if (method !== 'GET') throw methodNotAllowed(['GET'])
      return { status: 200, body: { service: 'pay-sandbox' } }
    }
    for (const route of this.api.routes) {
      const match = route.pattern.exec(path)
      if (!match) continue
      const handler = route.methods[method]
      if (!handler) throw methodNotAllowed(Object.keys(route.methods))
      const caller = this.authenticate(request)
      const body = method === 'POST' || method === 'PUT' ? await readJsonBody(request) : {}
      const id = match[1] === undefined ? '' : decodePathSegment(match[1])
      if (id === undefined) throw new HttpError(404, 'Not found.')
      const host = request.headers.host
      const origin = host && HOST_HEADER.test(host) ? `http://${host}` : this.baseUrl
      return handler({ caller, id, query, body, origin, path })
    }
    throw new HttpError(404, 'Not found.')
  }

  private authenticate(request: http.IncomingMessage): Caller {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? '')
    const caller = match ? this.callers.get(keyHash(match[1])) : undefined
    if (!caller) throw new HttpError(401, 'Unauthenticated.', {}, { 'WWW-Authenticate': 'Bearer' })
    return caller
  }
}

function methodNotAllowed(allowed: string[]): HttpError {
  const list = allowed.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ')
  return new HttpError(
    405,
    `The method is not supported for this route. Supported methods: ${list}.`,
    {},
    { Allow: list },
  )
}

/** The seeded packages of the business behind `key`. */
export function listPackages(key: string): PackageRecord[] {
  return seededPackages(businessIdOf(key))
}

/** Serves the payment service API from the store in `dir` until `close()`. */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const { dir, host = '127.0.0.1', port = 0 } = options
  const keys = [...new Set(options.keys ?? [SANDBOX_KEY])]
  if (keys.length === 0) throw new TypeError('The sandbox needs at least one API key.')
  for (const key of keys) {
    if (!/^\S+$/.test(key))
      throw new TypeError('A sandbox API key must be non-empty and contain no whitespace.')
  }
  const sandbox = new SandboxServer(new SandboxStore(dir), keys)
  await sandbox.listen(host, port)
  return {
    baseUrl: sandbox.baseUrl,
    keys,
    packages: Object.fromEntries(keys.map((key) => [key, listPackages(key)])),
    close: () => sandbox.close(),
  }
}

/** Empties the store in `dir`, also when its file is corrupt. */
export function resetSandbox(dir: string): void {
  new SandboxStore(dir).reset()
}

/**
 * Simulates the customer paying link `linkId`, whichever business owns it. Returns the updated
 * record, or undefined when no business has that link. Paying a paid link changes nothing.
 */
export function markLinkPaid(dir: string, linkId: string): PaymentLinkRecord | undefined {
  return new SandboxStore(dir).mutateSync((data) => {
    for (const business of Object.values(data.businesses)) {
      const link = ownRecord(business.payment_links, linkId)
      if (!link) continue
      if (link.paid) return link
      business.payment_links[linkId] = { ...link, paid: true, updated_at: laterIso(link.updated_at) }
      return business.payment_links[linkId]
    }
    return undefined
  })
}
