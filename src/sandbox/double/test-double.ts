/**
 * The sandbox as a test double (issue 25 items 1, 2, 6), as the server uses it: which fault a
 * request gets and how it is carried out, the journal of what each business sent, and the control
 * routes `/_sandbox/faults`, `/_sandbox/requests` and `/_sandbox/payment-links/{id}/pay|cancel|fail`.
 * The rules themselves are faults.ts, the journal journal.ts, the outcomes outcomes.ts.
 */
import http from 'node:http'
import { methodOf, pathOf } from '../http/request.js'
import {
  type Caller,
  HttpError,
  type Reply,
  type RequestContext,
  type Route,
  success,
  VALIDATION_MESSAGE,
} from '../service/endpoints.js'
import type { RequestBody } from '../service/rules.js'
import type { SandboxStore } from '../store/store.js'
import {
  FAULT_HEADER,
  type Fault,
  type FaultList,
  type FaultRule,
  FaultRuleError,
  FaultSets,
  MAX_SEED,
  parseFaultHeader,
  parseFaultRule,
} from './faults.js'
import { type Outcome, settleLink } from './outcomes.js'
import { JOURNAL_CAPACITY, type JournalEntry, keptBody, RequestJournal, redactPath } from './request-log.js'

/** What the server learns of a request as it goes, for the request log and the journal. */
export interface Trail {
  /** Date.now() at arrival. */
  arrived: number
  /** process.hrtime.bigint() at arrival. */
  started: bigint
  /** The business of its key, when it names one of this sandbox's. */
  caller?: Caller
  /** Its JSON body once read (read once, by whoever needs it first). */
  body?: RequestBody
  reading?: Promise<RequestBody>
  /** The fault it got: its label. */
  fault?: string
}

/** Faults and the journal reach neither the sandbox's own routes (nor health) nor the customer pages. */
export const isDoublePath = (path: string) => !/^\/(?:_sandbox|checkout)(?:\/|$)/.test(path)

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

const MAX_WAIT_SECONDS = 30

export class TestDouble {
  readonly faults: FaultSets
  readonly journal = new RequestJournal()
  private stop!: () => void
  /** Resolves when the server closes: held requests (hang, latency, a long poll) end. */
  readonly stopped = new Promise<void>((resolve) => {
    this.stop = resolve
  })

  constructor(
    private readonly store: SandboxStore,
    private readonly keys: readonly string[],
    private readonly businessOf: (key: string) => number,
    rules: readonly FaultRule[] = [],
    seed?: number,
  ) {
    this.faults = new FaultSets(keys.map(businessOf), rules, seed)
  }

  close(): void {
    this.stop()
  }

  /**
   * Serves a request that passed the Host and Origin checks: journaled when it names a business,
   * faulted when its header or its business's rules say so, else dispatched as it is. With no
   * rule anywhere and no header, faults cost one test. Undefined when no answer is to be sent.
   */
  async serve(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    trail: Trail,
    how: {
      readBody: () => Promise<unknown>
      dispatch: () => Promise<Reply>
      failed: (error: unknown) => Reply
    },
  ): Promise<Reply | undefined> {
    const path = pathOf(request.url ?? '/')
    if (trail.caller && isDoublePath(path)) this.track(request, response, trail)
    const fault =
      this.faults.active || request.headers[FAULT_HEADER] !== undefined
        ? this.faultFor(request, methodOf(request), path, trail.caller)
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
    caller?: Caller,
  ): Fault | undefined {
    if (!isDoublePath(path)) return undefined
    const asked = request.headers[FAULT_HEADER]
    if (asked !== undefined) {
      try {
        return parseFaultHeader(Array.isArray(asked) ? asked.join(' ') : asked)
      } catch (error) {
        throw new HttpError(400, (error as Error).message)
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
    // The request arrives whole first (and is journaled with its body), as a server that then fails would see it.
    if (request.method === 'POST' || request.method === 'PUT') await readBody().catch(() => {})
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
        await Promise.race([closed, this.stopped])
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

  /** Journals the request of `trail.caller`'s business once its answer is sent, or its connection closed. */
  private track(request: http.IncomingMessage, response: http.ServerResponse, trail: Trail): void {
    const business = trail.caller?.businessId
    if (business === undefined) return
    response.once('close', () => {
      const key = request.headers['idempotency-key']
      const idempotencyKey = (Array.isArray(key) ? key[0] : key)?.trim() || null
      this.journal.record(business, {
        time: new Date(trail.arrived).toISOString(),
        method: request.method ?? '',
        path: redactPath(request.url ?? '/', this.keys),
        status: response.writableFinished ? response.statusCode : null,
        ms: Math.round(Number(process.hrtime.bigint() - trail.started) / 1e5) / 10,
        idempotency_key: idempotencyKey,
        body: keptBody(trail.body, this.keys),
        fault: trail.fault ?? null,
      })
    })
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
        return this.faults.list(this.businessOf(this.keys[0]))
      },
      clear: () => this.faults.set(undefined, []),
      list: (key = this.keys[0]) => this.faults.list(this.businessOf(key)),
    }
  }

  /** The requests of the business of `key` (default: the first key), newest last. */
  requests(options: { key?: string; after?: number; limit?: number } = {}): JournalEntry[] {
    return this.journal.read(this.businessOf(options.key ?? this.keys[0]), options)
  }

  /** The control routes: each acts on the caller's business only. */
  readonly routes: Route[] = [
    {
      pattern: /^\/_sandbox\/faults$/,
      methods: {
        GET: ({ caller, now }) => success(this.faults.list(caller.businessId), now),
        POST: (c) => this.setFaults(c),
        DELETE: ({ caller, now }) => {
          this.faults.set(caller.businessId, [])
          return success(this.faults.list(caller.businessId), now)
        },
      },
    },
    { pattern: /^\/_sandbox\/requests$/, methods: { GET: (c) => this.listRequests(c) } },
    ...(
      [
        ['pay', 'paid'],
        ['cancel', 'cancelled'],
        ['fail', 'failed'],
      ] as const
    ).map(([verb, outcome]) => ({
      pattern: new RegExp(`^/_sandbox/payment-links/([^/]+)/${verb}$`),
      methods: { POST: (c: RequestContext) => this.settle(c, outcome) },
    })),
  ]

  /** `{"rules": [RULE, …], "seed"?: N}`: the caller's rules replaced; 422 naming a rule that cannot be read. */
  private setFaults({ caller, body, now }: RequestContext): Reply {
    const errors: Record<string, string[]> = {}
    const { rules, seed } = body as { rules?: unknown; seed?: unknown }
    let parsed: FaultRule[] = []
    if (!Array.isArray(rules) || rules.some((rule) => typeof rule !== 'string')) {
      errors.rules = [
        'The rules field must be an array of rules, each a string: METHOD PATH EFFECT [xN|P%] [after].',
      ]
    } else {
      const messages: string[] = []
      parsed = rules.flatMap((rule: string, i) => {
        try {
          return [parseFaultRule(rule)]
        } catch (error) {
          messages.push(`Rule ${i + 1}: ${(error as Error).message}`)
          return []
        }
      })
      if (messages.length > 0) errors.rules = messages
    }
    if (
      seed !== undefined &&
      !(Number.isInteger(seed) && (seed as number) >= 0 && (seed as number) <= MAX_SEED)
    ) {
      errors.seed = [`The seed must be an integer from 0 to ${MAX_SEED}.`]
    }
    if (Object.keys(errors).length > 0) throw new HttpError(422, VALIDATION_MESSAGE, { errors })
    this.faults.set(caller.businessId, parsed, seed as number | undefined)
    return success(this.faults.list(caller.businessId), now)
  }

  /** `?after=SEQ&limit=N&wait=SECONDS`: the caller's requests, newest last; `wait` holds an empty answer until one comes. */
  private async listRequests({ caller, query, now }: RequestContext): Promise<Reply> {
    const errors: Record<string, string[]> = {}
    const number = (name: string, min: number, max: number, integer = true) => {
      const text = query.get(name)
      if (text === null) return undefined
      const value = Number(text)
      if (
        !/^\d+(\.\d+)?$/.test(text) ||
        (integer && !Number.isInteger(value)) ||
        value < min ||
        value > max
      ) {
        errors[name] = [`The ${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}.`]
      }
      return value
    }
    const after = number('after', 0, Number.MAX_SAFE_INTEGER)
    const limit = number('limit', 1, JOURNAL_CAPACITY)
    const wait = number('wait', 0, MAX_WAIT_SECONDS, false)
    if (Object.keys(errors).length > 0) throw new HttpError(422, VALIDATION_MESSAGE, { errors })
    const business = caller.businessId
    // Waiting without a cursor waits for what comes next.
    const from = after ?? (wait ? this.journal.last(business) : undefined)
    if (wait && from !== undefined) await this.journal.wait(business, from, wait * 1000, this.stopped)
    return success(this.journal.read(business, { after: from, limit }), now)
  }

  /** The customer's outcome on the caller's link: the link, and where the customer would be sent. */
  private settle({ caller, id, now }: RequestContext, outcome: Outcome): Reply {
    const settled = settleLink(this.store, id, outcome, caller)
    if (!settled) throw new HttpError(404, 'Payment link not found.')
    const reply = success(settled.link, now)
    return {
      ...reply,
      body: { ...(reply.body as object), outcome: settled.outcome, redirect_to: settled.redirect_to },
    }
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
