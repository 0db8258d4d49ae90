/**
 * What the service answers, as the spec states it: the envelope of a success (stamped with sandbox
 * time), Laravel's 422 of a body that failed its checks, and a request refused with a status and a
 * message. Every handler answers in these shapes; the server (http/reply.ts) sends them, and turns
 * a thrown Refusal, or a store that is busy or broken, into its answer.
 */
import { envelopeTimestamp } from './records.js'
import type { Checked } from './rules.js'

export interface Reply {
  status: number
  /** Sent as JSON. */
  body?: unknown
  /** Sent as it is instead (the customer pages' HTML), with its Content-Type among the headers. */
  text?: string
  headers?: Record<string, string>
  /**
   * The body holds records, each page kept as its path (page-address.ts): the server names its
   * own address in them as it sends the answer.
   */
  pages?: boolean
  /**
   * A leased endpoint added again before its lease ran out (`links wait`, `listen` keeping theirs):
   * `sandbox start` logs it only with --verbose, as the health requests.
   */
  renewal?: boolean
}

/** What a handler returns: the answer, or a promise of it (a request that waits). */
export type Answer = Reply | Promise<Reply>

/**
 * A request answered with something other than 200: thrown by handlers, sent by the server as
 * `{message, ...extra}` with its headers.
 */
export class Refusal extends Error {
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

/** The envelope of an answer, stamped with sandbox time (`now`, store/clock.ts). */
export const success = (data: unknown, now: number): Reply => {
  const meta = { timestamp: envelopeTimestamp(new Date(now)), timezone: 'UTC' }
  return { status: 200, body: { success: true, data, errors: null, meta } }
}

/** The envelope around data that holds records (links, tokenizations, subscriptions with their charges). */
export const successOfRecords = (data: unknown, now: number): Reply => ({
  ...success(data, now),
  pages: true,
})

/**
 * The same envelope around a record that is JSON already (as the store keeps it): the record is
 * serialised once, not again for the answer.
 */
export const successJson = (data: string, now: number): Reply => {
  const meta = JSON.stringify({ timestamp: envelopeTimestamp(new Date(now)), timezone: 'UTC' })
  return { status: 200, text: `{"success":true,"data":${data},"errors":null,"meta":${meta}}`, pages: true }
}

/** Laravel's 422 (no success, no meta): every field that failed, with its messages. */
export const invalid = (errors: Record<string, string[]>) => new Refusal(422, VALIDATION_MESSAGE, { errors })

/** The value of a body that passed its checks; else Laravel's 422, thrown. */
export function valid<T>(checked: Checked<T>): T {
  if (!checked.ok) throw invalid(checked.errors)
  return checked.value
}
