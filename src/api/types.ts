import type { Rec } from '../values.js'

/** One page of a list, as it arrived. */
export interface ListPage {
  items: Rec[]
  /** Another page follows. */
  more: boolean
  /** The service's time when it answered (the envelope's `meta.timestamp`), when it said. */
  timestamp?: string
}

/** A request that changes something, as the change log hears of it before it is sent. */
export interface ChangeStart {
  method: string
  path: string
  /** "payment link", "subscription", "token". */
  resource: string
  /** The record's _id, when the path names one. */
  id?: string
  idempotencyKey?: string
}

/**
 * Told of every change the client sends (the journal): the intent before the request, then
 * through the function it returns, the outcome (the HTTP status, or the kind of failure).
 */
export interface ChangeLog {
  intent(start: ChangeStart): (end: { status?: number; error?: string; id?: string }) => void
  /**
   * What a later run found of a change it did not send (a resume that read a subscription
   * cancelled already): `state`, in pay's word (`cancelled`, `gone`). It settles a change of the
   * same kind to the same path that a killed run left with no outcome.
   */
  found?(start: ChangeStart, state: string): void
}
