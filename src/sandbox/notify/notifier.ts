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
import type { SandboxStore } from '../store/store.js'
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
    this.poll = setInterval(() => this.pump(), this.limits.pollMs)
    this.poll.unref()
    this.pump()
  }

  take(claimed: Claimed[]): void {
    if (this.closed) {
      for (const delivery of claimed) this.guarded(() => release(this.store, delivery, this.owner))
      return
    }
    this.waiting.push(...claimed)
    this.pump()
  }

  /**
   * Stops: mode `own` waits for the attempts under way (each at most `timeoutMs`); mode `outbox`
   * cuts them short and gives their leases back, so that the next sandbox attempts them again.
   */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearInterval(this.poll)
    if (this.options.mode === 'outbox') {
      this.stopping.abort()
      for (const delivery of this.waiting.splice(0))
        this.guarded(() => release(this.store, delivery, this.owner))
    }
    // Mode `own`: what waits for room is attempted as the attempts under way end (pump).
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight])
    this.agents.destroy()
  }

  /** Starts attempts while there is room: what this process made first, then what the outbox holds due. */
  private pump(): void {
    while (this.waiting.length > 0 && this.inFlight.size < this.limits.concurrency) {
      this.attempt(this.waiting.shift() as Claimed)
    }
    const room = this.limits.concurrency - this.inFlight.size
    if (this.closed || this.options.mode !== 'outbox' || room <= 0) return
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
      this.limits,
      this.agents,
      this.stopping.signal,
    )
    if (posted.aborted) {
      this.guarded(() => release(this.store, delivery, this.owner))
      return
    }
    const attempt: AttemptRecord = { time, status: posted.status, error: posted.error }
    const after = this.guarded(() =>
      recordAttempt(this.store, delivery, this.owner, attempt, this.limits.backoffMs),
    )
    if (!after) return
    this.options.onAttempt?.({ id: delivery.id, url: delivery.url, ...attempt, ms: posted.ms, ...after })
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
