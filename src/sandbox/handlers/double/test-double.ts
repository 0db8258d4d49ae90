/**
 * The sandbox as a test double, as the server uses it: which fault a request gets and how it is
 * carried out, and the recorded requests of each business. The rules themselves are faults.ts,
 * the recorded requests recorded-requests.ts, the control routes that set and read them
 * controls.ts.
 */
import http from 'node:http'
import type { Socket } from 'node:net'
import { redactSecrets } from '../../../shared/key-forms.js'
import { Refusal, type Reply } from '../../domain/answers.js'
import type { Business } from '../../domain/business.js'
import type { RequestBody } from '../../domain/rules.js'
import { PAYMENT_CREATED } from '../notify/notification.js'
import type { DeliveryFault } from '../notify/outbox.js'
import { type FaultList, FaultSets, MAX_SEED } from './fault-sets.js'
import {
  FAULT_HEADER,
  type Fault,
  type FaultRule,
  FaultRuleError,
  MAX_LATENCY_MS,
  parseFaultHeader,
  parseFaultRule,
} from './faults.js'
import {
  keptBody,
  LAZY_BODY_BYTES,
  type RecordedRequest,
  RecordedRequests,
  redactPath,
} from './recorded-requests.js'
import { isWebhookEffect, WEBHOOK_METHOD, webhookPath } from './webhook-faults.js'

/** What the server learns of a request as it goes, for the request log and the recorded requests. */
export interface Trail {
  /** Date.now() at arrival. */
  arrived: number
  /** process.hrtime.bigint() at arrival. */
  started: bigint
  /** The business of its key, when it names one of this sandbox's. */
  caller?: Business
  /** Its JSON body once read (read once, by whoever needs it first). */
  body?: RequestBody
  reading?: Promise<RequestBody>
  /** The fault it got: its label. */
  fault?: string
  /** Its answer renewed a leased endpoint (Reply.renewal). */
  renewal?: boolean
}

/** Faults on a running sandbox, for `startSandbox`'s caller (and the `pay-cli/sandbox` library). */
export interface FaultControl {
  /**
   * Replaces the rules of every business with `rules` (one line each, faults.ts), their counters
   * started again; `seed` for their `P%` draws (default: the one in use). A rule that cannot be
   * read throws FaultRuleError, naming what is wrong, and nothing changes.
   */
  set(rules: readonly string[], options?: { seed?: number }): FaultList
  /** No rule for any business. */
  clear(): void
  /** The rules of the business of `key` (default: the first key), with what each did so far. */
  list(key?: string): FaultList
}

/** The longest a `hang` holds a request: then its connection is cut, as a client's timeout would. */
export const MAX_HANG_MS = MAX_LATENCY_MS

export class TestDouble {
  readonly faults: FaultSets
  readonly recorded = new RecordedRequests()
  /** The connections of the requests a fault holds now (hang, latency). */
  private readonly held = new Set<Socket>()
  private stop!: () => void
  /** Resolves when the server closes: held requests (hang, latency, a long poll) end. */
  readonly stopped = new Promise<void>((resolve) => {
    this.stop = resolve
  })

  constructor(
    private readonly keys: readonly string[],
    private readonly businessIdOf: (key: string) => number,
    rules: readonly FaultRule[] = [],
    seed?: number,
    /** How many requests faults may hold at once (ServerLimits.maxHeldRequests). */
    private readonly maxHeld = 128,
  ) {
    this.faults = new FaultSets(keys.map(businessIdOf), rules, seed)
  }

  /** Whether a fault holds the request of this connection now: the first to close when connections run out. */
  isHeld(socket: Socket): boolean {
    return this.held.has(socket)
  }

  close(): void {
    this.stop()
  }

  /**
   * Serves a request that passed the Host and Origin checks: recorded when it names a business
   * and its route says `recorded`, faulted when its route says `faults` and its header or its
   * business's rules ask for one, else dispatched as it is. With no rule anywhere and no header,
   * faults cost one test. Undefined when no answer is to be sent.
   */
  async serve(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    trail: Trail,
    how: {
      /** What the route's rules say (http/routes.ts), and the request as routed. */
      route: { method: string; path: string; faults: boolean; recorded: boolean }
      readBody: () => Promise<unknown>
      dispatch: () => Promise<Reply>
      failed: (error: unknown) => Reply
    },
  ): Promise<Reply | undefined> {
    const { method, path, faults, recorded } = how.route
    if (trail.caller && recorded) this.record(request, response, trail)
    // A fault by header needs a key: without one, anyone reaching the port could hold its connections.
    if (faults && !trail.caller && request.headers[FAULT_HEADER] !== undefined) {
      throw new Refusal(
        401,
        "Unauthenticated: the Pay-Sandbox-Fault header is honoured only with one of the sandbox's API keys.",
        {},
        { 'WWW-Authenticate': 'Bearer' },
      )
    }
    const fault =
      faults && (this.faults.active || request.headers[FAULT_HEADER] !== undefined)
        ? this.faultFor(request, method, path, trail.caller)
        : undefined
    if (!fault) return how.dispatch()
    trail.fault = fault.label
    return this.apply(fault, request, how.readBody, () => how.dispatch().catch(how.failed))
  }

  /** The fault a request gets, if any: the one its header asks for, else its business's rules'. */
  private faultFor(
    request: http.IncomingMessage,
    method: string,
    path: string,
    caller?: Business,
  ): Fault | undefined {
    const asked = request.headers[FAULT_HEADER]
    if (asked !== undefined) {
      try {
        return parseFaultHeader(Array.isArray(asked) ? asked.join(' ') : asked)
      } catch (error) {
        throw new Refusal(400, (error as Error).message)
      }
    }
    return caller && this.faults.active ? this.faults.pick(caller.businessId, method, path) : undefined
  }

  /**
   * Carries `fault` out around `act` (the request's dispatch): before it (nothing is done), or
   * after it (`after`: done, then the answer lost). Undefined when no answer is to be sent: the
   * connection was cut or held until it closed.
   */
  private async apply(
    fault: Fault,
    request: http.IncomingMessage,
    readBody: () => Promise<unknown>,
    act: () => Promise<Reply>,
  ): Promise<Reply | undefined> {
    // The request arrives whole first (and is recorded with its body), as a server that then fails would see it.
    if (request.method === 'POST' || request.method === 'PUT') await readBody().catch(() => {})
    const holds = fault.effect.kind === 'hang' || fault.effect.kind === 'latency'
    if (holds && this.held.size >= this.maxHeld) return heldTooMany(this.maxHeld, fault)
    if (!holds) return this.carryOut(fault, request, act)
    const socket = request.socket
    this.held.add(socket)
    try {
      return await this.carryOut(fault, request, act)
    } finally {
      this.held.delete(socket)
    }
  }

  private async carryOut(
    fault: Fault,
    request: http.IncomingMessage,
    act: () => Promise<Reply>,
  ): Promise<Reply | undefined> {
    let reply: Reply | undefined
    if (fault.after || fault.effect.kind === 'latency') {
      if (fault.effect.kind === 'latency' && !fault.after && !(await this.sleep(fault.effect.ms))) {
        return this.cut(request, false)
      }
      reply = await act()
      if (fault.effect.kind === 'latency') {
        if (fault.after && !(await this.sleep(fault.effect.ms))) return this.cut(request, false)
        return reply
      }
    }
    switch (fault.effect.kind) {
      case 'status':
        return faultReply(fault.effect.status, fault)
      case 'reset':
        return this.cut(request, true)
      case 'hang': {
        const closed = new Promise<void>((resolve) => request.socket.once('close', resolve))
        await Promise.race([closed, this.sleep(MAX_HANG_MS)])
        return this.cut(request, false)
      }
    }
    return reply
  }

  /** Waits `ms`; false when the server closed meanwhile. */
  private async sleep(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined
    const slept = await Promise.race([
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), ms))),
      this.stopped.then(() => false),
    ])
    clearTimeout(timer)
    return slept
  }

  /** Ends the connection without an answer: a TCP reset (`reset`), or a plain close. */
  private cut(request: http.IncomingMessage, reset: boolean): undefined {
    const socket = request.socket
    if (reset && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy()
    else socket.destroy()
    return undefined
  }

  /** Records the request of `trail.caller`'s business once its answer is sent, or its connection closed. */
  private record(request: http.IncomingMessage, response: http.ServerResponse, trail: Trail): void {
    const business = trail.caller?.businessId
    if (business === undefined) return
    response.once('close', () => {
      const key = request.headers['idempotency-key']
      const { keys } = this
      const { body, fault = null } = trail
      const method = request.method ?? ''
      const url = request.url ?? '/'
      const status = response.writableFinished ? response.statusCode : null
      const ms = Math.round(Number(process.hrtime.bigint() - trail.started) / 1e5) / 10
      const idempotencyKey = () => {
        const given = (Array.isArray(key) ? key[0] : key)?.trim()
        // The sandbox's keys in it, in any form; a UUID's digits are no card number.
        return given ? redactSecrets(given, keys) : null
      }
      const recording = () => ({
        time: new Date(trail.arrived).toISOString(),
        method,
        path: redactPath(url, keys),
        status,
        ms,
        idempotency_key: idempotencyKey(),
        body: keptBody(body, keys),
        fault,
      })
      // A body that may be large is redacted now, so that only its redacted form is kept.
      const length = Number(request.headers['content-length'] ?? (body === undefined ? 0 : Number.NaN))
      this.recorded.record(business, length <= LAZY_BODY_BYTES ? recording : recording())
    })
  }

  /** The fault a notification of `business` gets from its WEBHOOK rules, if any (notify carries it out). */
  notificationFault(business: number): DeliveryFault | undefined {
    const fault = this.faults.pick(business, WEBHOOK_METHOD, webhookPath(PAYMENT_CREATED))
    return fault && isWebhookEffect(fault.effect) ? { effect: fault.effect, label: fault.label } : undefined
  }

  /** Faults of every business, for the code that started the sandbox. */
  control(): FaultControl {
    return {
      set: (rules, options = {}) => {
        const parsed = rules.map(parseFaultRule)
        const seed = options.seed
        if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed <= MAX_SEED)) {
          throw new FaultRuleError(`A fault seed is an integer from 0 to ${MAX_SEED}.`)
        }
        this.faults.set(undefined, parsed, seed)
        return this.faults.list(this.businessIdOf(this.keys[0]))
      },
      clear: () => this.faults.set(undefined, []),
      list: (key = this.keys[0]) => this.faults.list(this.businessIdOf(key)),
    }
  }

  /** The requests of the business of `key` (default: the first key), newest last. */
  requests(options: { key?: string; after?: number; limit?: number } = {}): RecordedRequest[] {
    return this.recorded.read(this.businessIdOf(options.key ?? this.keys[0]), options)
  }
}

/** A hang or latency fault past the number of requests faults may hold: answered at once. */
function heldTooMany(max: number, fault: Fault): Reply {
  return {
    status: 503,
    body: {
      message: `Service Unavailable: the pay sandbox holds ${max} requests for faults already, so this one's fault [${fault.label}] was not held; nothing was done.`,
    },
    headers: { 'Retry-After': '1' },
  }
}

/** The answer of a status fault: says it is one, and whether the request was carried out. */
function faultReply(status: number, fault: Fault): Reply {
  const done = fault.after ? 'the request was carried out, then its answer replaced' : 'nothing was done'
  return {
    status,
    body: {
      message: `${http.STATUS_CODES[status] ?? 'Error'}: a fault of the pay sandbox [${fault.label}]; ${done}.`,
    },
    headers: status === 429 ? { 'Retry-After': '1' } : {},
  }
}
