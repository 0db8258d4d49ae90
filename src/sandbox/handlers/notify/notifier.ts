/**
 * The process that attempts the outbox's deliveries (outbox.ts). A sandbox that serves
 * (`mode: 'outbox'`: `pay sandbox start`, the library) attempts the notifications it makes at once,
 * and looks at the outbox every `pollMs` for what is due: retries after their backoff, deliveries
 * delayed by a fault, what another sandbox on the directory left, what a sandbox killed before
 * left. A sandbox that runs for one command (`mode: 'own'`: the in-process sandbox, `sandbox pay`
 * with no server) attempts only what it made, once each, and waits for those attempts before it
 * closes: what is left stays in the outbox for the next sandbox on the directory.
 */
import os from 'node:os'
import type { SandboxStore } from '../../store/store.js'
import {
  type AttemptRecord,
  type Claimed,
  claimDue,
  type DeliveryState,
  type Dispatch,
  recordAttempt,
  release,
  releaseDeadLeases,
} from './outbox.js'
import { Agents, postNotification } from './post.js'

export interface DeliveryLimits {
  /** The whole of one attempt: connection, answer, its body (10 s, as the service). */
  timeoutMs: number
  /** The pauses after the first and the second attempt that got no 2xx. */
  backoffMs: readonly number[]
  /** How long a claimed delivery is its process's: past it, another sandbox may attempt it. */
  leaseMs: number
  /** How often a serving sandbox looks at the outbox for what is due. */
  pollMs: number
  /** Attempts under way at once. */
  concurrency: number
  /** Of an answer, what is read before the connection is cut. */
  maxAnswerBytes: number
}

/**
 * A sandbox that answered this many requests in the last 200 ms (125 a second) is busy: its
 * notifications give way to the requests, waiting in the outbox, due, one attempted at each look
 * (every `pollMs`) until the burst is over, when they are attempted `concurrency` at a time. An
 * app's test that polls the sandbox while it waits for a notification (vitest's waitFor: 20 a
 * second) is far below it; a load test, or a bulk run, is above.
 */
const BUSY_REQUESTS = 25

/** Due deliveries claimed from the outbox in one write, at least (while attempts are under way). */
const CLAIMED_AT_ONCE = 4

export const DEFAULT_DELIVERY: DeliveryLimits = {
  timeoutMs: 10_000,
  backoffMs: [1_000, 2_000],
  leaseMs: 15_000,
  pollMs: 500,
  concurrency: 8,
  maxAnswerBytes: 64 * 1024,
}

/** An attempt this process made: for the request log, and what a one-command sandbox says it did. */
export interface Attempted {
  id: string
  url: string
  status: number | null
  error: string | null
  ms: number
  /** The delivery's state after it, and when it is due again (real time) if it is still pending. */
  state: DeliveryState
  due: number | null
}

export interface NotifierOptions {
  mode: 'outbox' | 'own'
  limits?: Partial<DeliveryLimits>
  fault?: Dispatch['fault']
  onAttempt?: (attempt: Attempted) => void
  /** An attempt that got no answer says only "unreachable" or "timed out" (post.ts). */
  coarseErrors?: boolean
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export class Notifier implements Dispatch {
  readonly owner: string
  readonly leaseMs: number
  readonly fault: Dispatch['fault']
  private readonly limits: DeliveryLimits
  private readonly inFlight = new Set<Promise<void>>()
  private readonly waiting: Claimed[] = []
  private readonly agents = new Agents()
  private readonly stopping = new AbortController()
  private poll: NodeJS.Timeout | undefined
  private closed = false
  private pumpSoon: NodeJS.Immediate | undefined
  /** Attempts that ended, to be recorded together on the next turn (record()). */
  private readonly finished: {
    delivery: Claimed
    attempt: AttemptRecord
    ms: number
    resolve: () => void
  }[] = []
  private recordSoon: NodeJS.Immediate | undefined
  /** Requests answered in this 100 ms (since `at`) and the one before (BUSY_REQUESTS). */
  private readonly pace = { at: 0, count: 0, previous: 0 }

  constructor(
    private readonly store: SandboxStore,
    private readonly options: NotifierOptions,
  ) {
    this.limits = { ...DEFAULT_DELIVERY, ...options.limits }
    this.leaseMs = this.limits.leaseMs
    this.fault = options.fault
    this.owner = `${process.pid}@${os.hostname()}:${Math.random().toString(36).slice(2, 10)}`
  }

  /** Starts looking at the outbox (mode `outbox`), first ending the leases of this machine's dead processes. */
  start(): void {
    if (this.options.mode !== 'outbox') return
    this.guarded(() => releaseDeadLeases(this.store, os.hostname(), alive))
    // Each look makes at least one attempt: requests that never stop cannot hold them all back.
    this.poll = setInterval(() => this.pump(1), this.limits.pollMs)
    this.poll.unref()
    this.pump()
  }

  /**
   * Whether what a payment makes now is leased to this process: in mode `own` all of it (each is
   * attempted before it closes); in mode `outbox` what it has room for, the rest left due in the
   * outbox for its next look, so that no delivery waits in memory while its lease runs out.
   */
  leasing(): boolean {
    if (this.options.mode === 'own') return true
    return !this.closed && this.inFlight.size + this.waiting.length < this.most()
  }

  /** Told of each request the sandbox answers: how busy it is (BUSY_REQUESTS). */
  noteRequest(): void {
    const now = Date.now()
    const pace = this.pace
    if (now - pace.at >= 100) {
      pace.previous = now - pace.at < 200 ? pace.count : 0
      pace.at = now
      pace.count = 0
    }
    pace.count++
  }

  /** Attempts under way at most now: none started while the sandbox is busy (BUSY_REQUESTS) but at a look. */
  private most(): number {
    const { at, count, previous } = this.pace
    const busy = this.options.mode === 'outbox' && Date.now() - at < 200 && count + previous >= BUSY_REQUESTS
    return busy ? 0 : this.limits.concurrency
  }

  /**
   * Attempts what was leased to it, once the request that made them has been answered: the
   * attempts start on the next turn of the event loop, after the answer is written.
   */
  take(claimed: Claimed[]): void {
    if (this.closed) {
      for (const delivery of claimed) this.guarded(() => release(this.store, delivery, this.owner))
      return
    }
    this.waiting.push(...claimed)
    this.pumpSoon ??= setImmediate(() => {
      this.pumpSoon = undefined
      this.pump()
    })
  }

  /**
   * Stops: mode `own` waits for the attempts under way (each at most `timeoutMs`); mode `outbox`
   * cuts them short and gives their leases back, so that the next sandbox attempts them again.
   */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearInterval(this.poll)
    clearImmediate(this.pumpSoon)
    this.pumpSoon = undefined
    if (this.options.mode === 'outbox') {
      this.stopping.abort()
      for (const delivery of this.waiting.splice(0))
        this.guarded(() => release(this.store, delivery, this.owner))
    }
    // Mode `own`: what waits is attempted now, and what waits for room as the attempts end (pump).
    this.pump()
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight])
    this.agents.destroy()
  }

  /**
   * Starts attempts while there is room (at least `floor` under way): what this process made
   * first, then what the outbox holds due.
   */
  private pump(floor = 0): void {
    const most = Math.max(this.most(), floor)
    while (this.waiting.length > 0 && this.inFlight.size < Math.max(most, 1)) {
      this.attempt(this.waiting.shift() as Claimed)
    }
    const room = most - this.inFlight.size
    if (this.closed || this.options.mode !== 'outbox' || room <= 0) return
    // A claim is a write: made for a few at once, not one as each attempt ends.
    if (room < Math.min(CLAIMED_AT_ONCE, most) && this.inFlight.size > 0) return
    const due = this.guarded(() => claimDue(this.store, this.owner, this.leaseMs, room)) ?? []
    for (const delivery of due) this.attempt(delivery)
  }

  private attempt(delivery: Claimed): void {
    const running = this.send(delivery)
      .catch(() => {})
      .finally(() => {
        this.inFlight.delete(running)
        this.pump()
      })
    this.inFlight.add(running)
  }

  private async send(delivery: Claimed): Promise<void> {
    const time = new Date().toISOString()
    const posted = await postNotification(
      delivery.url,
      delivery.body,
      { ...this.limits, coarseErrors: this.options.coarseErrors === true },
      this.agents,
      this.stopping.signal,
    )
    if (posted.aborted) {
      this.guarded(() => release(this.store, delivery, this.owner))
      return
    }
    const attempt: AttemptRecord = { time, status: posted.status, error: posted.error }
    await new Promise<void>((resolve) => {
      this.finished.push({ delivery, attempt, ms: posted.ms, resolve })
      this.recordSoon ??= setImmediate(() => this.record())
    })
  }

  /**
   * Writes what the attempts that ended since the last turn came to, in one transaction (each
   * write is a commit: under load many attempts end in one turn). One the store refuses (busy)
   * is not recorded: its lease runs out and it is attempted again.
   */
  private record(): void {
    this.recordSoon = undefined
    const ended = this.finished.splice(0)
    const { backoffMs } = this.limits
    const results =
      this.guarded(() =>
        this.store.write(() =>
          ended.map(({ delivery, attempt }) =>
            recordAttempt(this.store, delivery, this.owner, attempt, backoffMs),
          ),
        ),
      ) ?? []
    ended.forEach(({ delivery, attempt, ms, resolve }, i) => {
      const after = results[i]
      if (after) this.options.onAttempt?.({ id: delivery.id, url: delivery.url, ...attempt, ms, ...after })
      resolve()
    })
  }

  /** The store failing (busy, closed under it) costs a look, never the sandbox: the next look tries again. */
  private guarded<T>(body: () => T): T | undefined {
    try {
      return body()
    } catch {
      return undefined
    }
  }
}
