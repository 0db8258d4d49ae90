/**
 * The routes of the service: each endpoint of docs/spec/payment-service-api.md as a handler of a parsed
 * request (the HTTP plumbing is in server.ts).
 */
import { applyClockMove, readClock, sandboxNow, withCharges } from '../billing/billing.js'
import { seedFixtures } from '../double/fixtures.js'
import { CustomerPages } from '../pages/customer-pages.js'
import type { SandboxStore } from '../store/store.js'
import { buildLink, buildSubscription, newLink, newSubscription, newTokenization } from './build.js'
import { envelopeTimestamp, laterIso, type PackageRecord } from './records.js'
import {
  type Checked,
  checkNewSubscription,
  checkPaymentLink,
  checkSubscriptionChanges,
  checkTokenization,
  type PaymentLinkInput,
  type RequestBody,
} from './rules.js'

const DEFAULT_PER_PAGE = 50
const MAX_PER_PAGE = 500

/** The business behind an API key. */
export interface Caller {
  keyHash: string
  businessId: number
  packages: PackageRecord[]
}

export interface Reply {
  status: number
  /** Sent as JSON. */
  body?: unknown
  /** Sent as it is instead (the customer pages' HTML), with its Content-Type among the headers. */
  text?: string
  headers?: Record<string, string>
}

/** A request answered with something other than 200: thrown by handlers, sent by the dispatcher. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

export const VALIDATION_MESSAGE = 'The given data was invalid.'

/** The envelope of an answer, stamped with sandbox time (`now`, billing.ts). */
export const success = (data: unknown, now: number): Reply => {
  const meta = { timestamp: envelopeTimestamp(new Date(now)), timezone: 'UTC' }
  return { status: 200, body: { success: true, data, errors: null, meta } }
}

/** Laravel's 422 body: no success, no meta. */
function valid<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new HttpError(422, VALIDATION_MESSAGE, { errors: checked.errors })
  return checked.value
}

const linkNotFound = () => new HttpError(404, 'Payment link not found.')
const subscriptionNotFound = () => new HttpError(404, 'Subscription not found.')

export interface RequestContext {
  caller: Caller
  /** The decoded `{id}` of the route, if it has one. */
  id: string
  query: URLSearchParams
  /** POST and PUT only: the JSON object sent. */
  body: RequestBody
  /** `http://host:port` as the client addressed us, for the URLs we hand out. */
  origin: string
  /** Where payment and activation pages are said to live (the in-process sandbox uses its well-known address). */
  checkoutOrigin: string
  path: string
  /** Sandbox time of the request (billing.ts), once what came due was billed: every timestamp it writes. */
  now: number
}

type Handler = (context: RequestContext) => Promise<Reply> | Reply

export interface Route {
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

function positiveInteger(text: string | null): number | undefined {
  if (text === null || !/^[0-9]{1,9}$/.test(text)) return undefined
  const value = Number(text)
  return value >= 1 ? value : undefined
}

/**
 * Laravel's length-aware paginator (without `links`), newest first: `read` fetches one page
 * (offset, limit) and the total.
 */
function paginate<T>(
  context: RequestContext,
  read: (offset: number, limit: number) => { total: number; records: T[] },
) {
  const perPage = Math.min(positiveInteger(context.query.get('per_page')) ?? DEFAULT_PER_PAGE, MAX_PER_PAGE)
  const page = positiveInteger(context.query.get('page')) ?? 1
  const { total, records: data } = read((page - 1) * perPage, perPage)
  const lastPage = Math.max(1, Math.ceil(total / perPage))
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

/** The endpoints of the spec (docs/spec/payment-service-api.md), over one store. */
export class SandboxRoutes {
  /** The customer's pages (payment, activation): public, HTML, served before any key is asked for. */
  readonly pages: CustomerPages

  constructor(private readonly store: SandboxStore) {
    this.pages = new CustomerPages(store)
  }

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
    // The sandbox's own controls (not in docs/spec/), for `pay sandbox reset` and `clock` through a
    // running server: each acts on the caller's own business only (paying, faults and the
    // requests sent: double.ts).
    { pattern: /^\/_sandbox\/reset$/, methods: { POST: (c) => this.reset(c) } },
    {
      pattern: /^\/_sandbox\/clock$/, // the clock of the whole store (billing.ts)
      methods: { GET: (c) => success(readClock(this.store), c.now), POST: (c) => this.moveClock(c) },
    },
    // Fixtures (fixtures.ts): the body is a fixture file; `?once=true` skips names seeded before.
    { pattern: /^\/_sandbox\/seed$/, methods: { POST: (c) => this.seed(c) } },
  ]

  /** `{"advance": "30d"}` or `{"to": "2027-01-01"}`: the clock moved, what came due billed. */
  private moveClock({ body, checkoutOrigin }: RequestContext): Reply {
    const moved = valid(applyClockMove(this.store, body, checkoutOrigin))
    return success(moved, Date.parse(moved.now))
  }

  /** The caller's records deleted (every other business's stay); no local path in the answer. */
  private reset({ caller }: RequestContext): Reply {
    this.store.empty(caller)
    return success({ reset: true, business_id: caller.businessId }, sandboxNow(this.store))
  }

  private createTokenization({ caller, body, checkoutOrigin, now: at }: RequestContext): Reply {
    const tokenization = newTokenization(valid(checkTokenization(body)), checkoutOrigin, at)
    this.store.insertTokenization(caller, tokenization)
    return success(tokenization, at)
  }

  private createLink({ caller, body, checkoutOrigin, now: at }: RequestContext): Reply {
    const link = newLink(caller.businessId, valid(checkPaymentLink(body)), checkoutOrigin, at)
    this.store.insert('payment_links', caller, link)
    return success(link, at)
  }

  private getLink({ caller, id, now }: RequestContext): Reply {
    const link = this.store.get('payment_links', caller, id)
    if (!link) throw linkNotFound()
    return success(link, now)
  }

  private listLinks(context: RequestContext): Reply {
    return success(
      paginate(context, (offset, limit) => this.store.page('payment_links', context.caller, offset, limit)),
      context.now,
    )
  }

  /** A full replacement of the editable fields; optional fields not sent are dropped. */
  private updateLink({ caller, id, body, now }: RequestContext): Reply {
    // Laravel resolves the route's record before it validates the body: 404 wins over 422.
    if (!this.store.get('payment_links', caller, id)) throw linkNotFound()
    const input = valid(checkPaymentLink(body))
    const updated = this.store.write(() => {
      const current = this.store.get('payment_links', caller, id)
      if (!current) return undefined
      const unchanged = EDITABLE_LINK_FIELDS.every((field) => current[field] === input[field])
      if (unchanged) return current
      const next = buildLink({ ...current, updated_at: laterIso(current.updated_at, now) }, input)
      this.store.replace('payment_links', caller, next)
      return next
    })
    if (!updated) throw linkNotFound()
    return success(updated, now)
  }

  private deleteLink({ caller, id, now }: RequestContext): Reply {
    if (!this.store.remove('payment_links', caller, id)) throw linkNotFound()
    return success(null, now)
  }

  private createSubscription({ caller, body, now: at }: RequestContext): Reply {
    const packageIds = new Set(caller.packages.map((pkg) => pkg._id))
    const input = valid(checkNewSubscription(body, packageIds))
    const pkg = caller.packages.find((p) => p._id === input.package_id)!
    const subscription = newSubscription(input, pkg, at)
    this.store.insert('subscriptions', caller, subscription)
    return success(subscription, at)
  }

  private getSubscription({ caller, id, now }: RequestContext): Reply {
    const subscription = this.store.read(() => {
      const found = this.store.get('subscriptions', caller, id)
      return found && withCharges(this.store, caller, [found])[0]
    })
    if (!subscription) throw subscriptionNotFound()
    return success(subscription, now)
  }

  private listSubscriptions(context: RequestContext): Reply {
    return success(
      paginate(context, (offset, limit) =>
        this.store.read(() => {
          const page = this.store.page('subscriptions', context.caller, offset, limit)
          return { ...page, records: withCharges(this.store, context.caller, page.records) }
        }),
      ),
      context.now,
    )
  }

  /** Sets the fields sent; `updated_at` moves only when something changed (as Eloquent does). */
  private updateSubscription({ caller, id, body, now }: RequestContext): Reply {
    if (!this.store.get('subscriptions', caller, id)) throw subscriptionNotFound()
    const changes = valid(checkSubscriptionChanges(body))
    const updated = this.store.write(() => {
      const current = this.store.get('subscriptions', caller, id)
      if (!current) return undefined
      const next = buildSubscription({ ...current, ...changes })
      const unchanged = (['email', 'phone_no', 'status'] as const).every(
        (field) => next[field] === current[field],
      )
      if (unchanged) return withCharges(this.store, caller, [current])[0]
      const changed = { ...next, updated_at: laterIso(current.updated_at, now) }
      this.store.replace('subscriptions', caller, changed)
      return withCharges(this.store, caller, [changed])[0]
    })
    if (!updated) throw subscriptionNotFound()
    return success(updated, now)
  }

  private deleteSubscription({ caller, id, now }: RequestContext): Reply {
    if (!this.store.remove('subscriptions', caller, id)) throw subscriptionNotFound()
    return success(null, now)
  }

  /** The caller's business seeded with the fixtures sent, all or nothing: `{ids, created, skipped}`. */
  private seed({ caller, body, query, checkoutOrigin, now }: RequestContext): Reply {
    const once = query.get('once')
    if (once !== null && !['true', 'false', '1', '0'].includes(once)) {
      throw new HttpError(422, VALIDATION_MESSAGE, {
        errors: { once: ['The once field must be true or false.'] },
      })
    }
    const seeded = valid(
      seedFixtures(this.store, caller, body, {
        once: once === 'true' || once === '1',
        origin: checkoutOrigin,
      }),
    )
    return success(seeded, now)
  }
}
