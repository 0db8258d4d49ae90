/**
 * What the sandbox clock bills, and its moves. Sandbox time is real time plus an offset kept in
 * the database (store/clock.ts reads it). When
 * sandbox time reaches a subscription's charge date (store/schedule.ts), a payment link is made for the
 * charge: by `advance`/`set` (moveClock), or, as real time passes, by the next request that uses
 * the store (catchUp). Billing is set-based SQL in one transaction, and a (subscription, date) is
 * charged once whatever runs at the same time: the charges table's UNIQUE constraint refuses a
 * second one, and writers take turns (BEGIN IMMEDIATE).
 */
import {
  DURATION_FORMS,
  type Duration,
  POINT_FORMS,
  type Point,
  parseDuration,
  parsePoint,
  shift,
  truncate,
} from '../../../shared/duration.js'
import type { BusinessKey } from '../../domain/business.js'
import type { PaymentLinkRecord, SubscriptionRecord } from '../../domain/records.js'
import type { Checked, RequestBody } from '../../domain/rules.js'
import { clockOffset, clockState, sandboxNow } from '../../store/clock.js'
import { BILLING } from '../../store/schedule.js'
import type { SandboxStore } from '../../store/store.js'

const DAY_MS = 86_400_000

/**
 * The most charges one move of the clock makes: `advance 100y` over thousands of daily
 * subscriptions would otherwise hold the database for hours. Refused past it, nothing kept; the
 * clock can move in smaller steps. (Real time passing is never refused: it must be billed.)
 */
export const MAX_CHARGES_PER_MOVE = 1_000_000

/** `YYYY-MM-DD` of an instant, in UTC. */
// Stryker disable next-line MethodExpression: the statements only compare it with dates, which its time after them does not change
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10)

/**
 * Makes every charge due on or before the day of `now`, inside a write transaction; how many.
 * More than `most` is refused (ClockRefused), to be rolled back with the transaction.
 */
function bill(store: SandboxStore, now: number, most?: { count: number; field: 'advance' | 'to' }) {
  const today = dayOf(now)
  if (!store.statement(BILLING.due, 'get', today)) return 0
  const { seq: before } = store.statement(BILLING.lastCharge, 'get') as { seq: number }
  const limit = most === undefined ? -1 : most.count + 1
  const made = Number(
    (store.statement(BILLING.charges, 'run', { today, limit }) as { changes: number }).changes,
  )
  if (most !== undefined && made > most.count) {
    throw new ClockRefused(
      most.field,
      `That would make more than ${most.count.toLocaleString('en')} charges at once: move the clock in smaller steps.`,
    )
  }
  if (made > 0) store.statement(BILLING.links, 'run', { before })
  store.statement(BILLING.advance, 'run', { today })
  return made
}

/**
 * Bills what came due while real time passed, before a request uses the store (the routes with
 * the rule `bills`, http/routes.ts: every answer of the API shows the charges of its time).
 * Costs no read when nothing is due
 * and the store has not changed since the last look (store/clock.ts). Returns sandbox time.
 */
export function catchUp(store: SandboxStore): number {
  const { offset, nextDue } = clockState(store)
  const now = Date.now() + offset
  if (nextDue === null || nextDue > dayOf(now)) return now
  return store.write(() => {
    const at = sandboxNow(store) // another process may have moved the clock meanwhile
    bill(store, at)
    return at
  })
}

/**
 * `POST /_sandbox/clock` and its local twin: the body checked, the clock moved, what came due
 * billed; or the errors of the body's field (one that means nothing, a time gone by), with
 * nothing changed.
 */
export function applyClockMove(
  store: SandboxStore,
  body: RequestBody,
): Checked<{ now: string; charges_created: number }> {
  const checked = checkClockMove(body)
  if (!checked.ok) return checked
  try {
    return { ok: true, value: moveClock(store, checked.value) }
  } catch (error) {
    if (!(error instanceof ClockRefused)) throw error
    return { ok: false, errors: { [error.field]: [error.message] } }
  }
}

/** A move of the clock: forward by a duration, or to a point in time. */
export type ClockMove = { advance: Duration } | { to: Point }

/** The body of `POST /_sandbox/clock`: `{"advance": DURATION}` or `{"to": DATE|DATETIME}`, one of them. */
export function checkClockMove(body: RequestBody): Checked<ClockMove> {
  const { advance, to } = body
  if ((advance === undefined) === (to === undefined)) {
    const message = 'Send one of advance (a duration, e.g. "30d") and to (a date, e.g. "2027-01-01").'
    return { ok: false, errors: { [advance === undefined ? 'advance' : 'to']: [message] } }
  }
  if (advance !== undefined) {
    const duration = typeof advance === 'string' ? parseDuration(advance) : undefined
    if (duration) return { ok: true, value: { advance: duration } }
    return { ok: false, errors: { advance: [`The advance must be a duration: ${DURATION_FORMS}.`] } }
  }
  const point = typeof to === 'string' ? parsePoint(to) : undefined
  if (point) return { ok: true, value: { to: point } }
  return { ok: false, errors: { to: [`The to field must be ${POINT_FORMS}.`] } }
}

/** A move the clock refuses (a time before its own); nothing changed. */
export class ClockRefused extends Error {
  constructor(
    readonly field: 'advance' | 'to',
    message: string,
  ) {
    super(message)
    this.name = 'ClockRefused'
  }
}

/**
 * Moves the clock forward and bills what comes due, in one transaction: killed half-way, nothing
 * of it is kept. `to` a time before the sandbox's (at the precision it was written in: a date is a
 * day) is refused; the same time changes nothing. Returns the new time and the charges made.
 */
export function moveClock(
  store: SandboxStore,
  move: ClockMove,
  most = MAX_CHARGES_PER_MOVE,
): { now: string; charges_created: number } {
  return store.write(() => {
    const offset = clockOffset(store)
    const now = Date.now() + offset
    let target: number
    if ('advance' in move) {
      target = shift(now, move.advance)
    } else {
      const shown = truncate(now, move.to.precision)
      if (move.to.at < shown) {
        throw new ClockRefused(
          'to',
          `${new Date(move.to.at).toISOString()} is before the sandbox's time, ${new Date(now).toISOString()}: the clock only goes forward.`,
        )
      }
      target = move.to.at === shown ? now : move.to.at
    }
    if (!Number.isFinite(target) || Math.abs(target) > 8.64e15 - DAY_MS) {
      throw new ClockRefused(
        'advance' in move ? 'advance' : 'to',
        'That moves the clock past the year 275760.',
      )
    }
    if (target !== now) store.statement(BILLING.setClock, 'run', offset + (target - now))
    const field = 'advance' in move ? 'advance' : 'to'
    return {
      now: new Date(target).toISOString(),
      charges_created: bill(store, target, { count: most, field }),
    }
  })
}

/**
 * The subscriptions with `payment_links` as they are now: the payment link of each charge, oldest
 * first, with its current `paid` (a deleted link is left out).
 */
export function withCharges<T extends SubscriptionRecord>(
  store: SandboxStore,
  business: BusinessKey,
  subscriptions: T[],
): T[] {
  if (subscriptions.length === 0) return subscriptions
  const ids = JSON.stringify(subscriptions.map((subscription) => subscription._id))
  const rows = store.statement(BILLING.chargeLinks, 'all', business.keyHash, ids) as {
    subscription: string
    record: string
  }[]
  const links = new Map<string, PaymentLinkRecord[]>()
  for (const row of rows) {
    const list = links.get(row.subscription) ?? []
    if (list.length === 0) links.set(row.subscription, list)
    list.push(JSON.parse(row.record))
  }
  return subscriptions.map((subscription) => ({
    ...subscription,
    payment_links: links.get(subscription._id) ?? [],
  }))
}

/** What the payment page says of a charge. */
export interface ChargeOfLink {
  subscription: string
  /** The period it pays for: its date and the day before the next one. */
  from: string
  to: string
  package: string | null
}

/** The charge a payment link is for; undefined for a link made otherwise. */
export function chargeOfLink(store: SandboxStore, linkId: string): ChargeOfLink | undefined {
  const row = store.statement(BILLING.chargeOfLink, 'get', linkId) as
    | { subscription: string; due: string; period_end: string; package: string | null }
    | undefined
  return row && { subscription: row.subscription, from: row.due, to: row.period_end, package: row.package }
}
