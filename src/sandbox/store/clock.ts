/**
 * Sandbox time: real time plus an offset kept in the database (one clock per database, shared by
 * its businesses and every process on it). Every part reads it here: the records' timestamps, the
 * payment transition, fixtures, the pages; billing (handlers/billing/) moves it and bills what
 * came due (schedule.ts holds its statements).
 */
import { BILLING } from './schedule.js'
import type { SandboxStore } from './store.js'

/** What the clock and the schedules say, as read at a billing version of the store. */
export interface ClockState {
  version: number
  offset: number
  /** The first date (`YYYY-MM-DD`) a charge is due; null when nothing is scheduled. */
  nextDue: string | null
}

const states = new WeakMap<SandboxStore, ClockState>()

/**
 * The clock's offset and the first due date, read again only when the store's billing version
 * moved (another process committed, or this one wrote the clock or the schedules): a request
 * whose store has not changed reads nothing.
 */
export function clockState(store: SandboxStore): ClockState {
  const version = store.billingVersion()
  const known = states.get(store)
  if (known?.version === version) return known
  const row = store.statement(BILLING.state, 'get') as { offset_ms: number | null; next_due: string | null }
  const state = { version, offset: Number(row.offset_ms ?? 0), nextDue: row.next_due }
  states.set(store, state)
  return state
}

/** How far sandbox time is ahead of real time, in milliseconds. */
export const clockOffset = (store: SandboxStore): number => clockState(store).offset

/** Sandbox time, in milliseconds since the epoch. */
export function sandboxNow(store: SandboxStore): number {
  return Date.now() + clockOffset(store)
}

/** The clock as `GET /_sandbox/clock` answers it. */
export function readClock(store: SandboxStore): { now: string; offset_seconds: number } {
  const offset = clockOffset(store)
  return { now: new Date(Date.now() + offset).toISOString(), offset_seconds: Math.round(offset / 1000) }
}
