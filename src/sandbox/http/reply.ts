/**
 * What a handler answers, and the answers every route shares: the API's envelope, Laravel's 422,
 * and what went wrong as a status (a thrown HttpError, a store that is busy or broken).
 */
import { envelopeTimestamp } from '../domain/records.js'
import type { Checked } from '../domain/rules.js'
import { StoreBusyError, StoreCorruptError, StoreVersionError } from '../store/errors.js'

export interface Reply {
  status: number
  /** Sent as JSON. */
  body?: unknown
  /** Sent as it is instead (the customer pages' HTML), with its Content-Type among the headers. */
  text?: string
  headers?: Record<string, string>
}

/** What a handler returns: the answer, or a promise of it (a request that waits). */
export type Answer = Reply | Promise<Reply>

/** A request answered with something other than 200: thrown by handlers, sent by the server. */
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

/** The envelope of an answer, stamped with sandbox time (`now`, billing/billing.ts). */
export const success = (data: unknown, now: number): Reply => {
  const meta = { timestamp: envelopeTimestamp(new Date(now)), timezone: 'UTC' }
  return { status: 200, body: { success: true, data, errors: null, meta } }
}

/**
 * The same envelope around data that is JSON already (a record as the store keeps it): the record
 * is serialised once, not again for the answer.
 */
export const successJson = (data: string, now: number): Reply => {
  const meta = JSON.stringify({ timestamp: envelopeTimestamp(new Date(now)), timezone: 'UTC' })
  return { status: 200, text: `{"success":true,"data":${data},"errors":null,"meta":${meta}}` }
}

/** The value of a body that passed its checks; else Laravel's 422 body (no success, no meta), thrown. */
export function valid<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new HttpError(422, VALIDATION_MESSAGE, { errors: checked.errors })
  return checked.value
}

/** An answer's text without the sandbox directory's local path: `$PAY_SANDBOX_DIR` instead. */
const withoutPath = (text: string, dir: string) => text.split(dir).join('$PAY_SANDBOX_DIR')

/** What went wrong, as an answer: an HttpError as it says, the store's errors as 500 or 503. */
export function errorReply(error: unknown, dir: string): Reply {
  if (error instanceof HttpError) {
    return { status: error.status, body: { message: error.message, ...error.extra }, headers: error.headers }
  }
  if (error instanceof StoreCorruptError || error instanceof StoreVersionError) {
    return { status: 500, body: { message: withoutPath(error.message, dir) } }
  }
  if (error instanceof StoreBusyError) {
    return {
      status: 503,
      body: { message: 'The sandbox store is busy; try again.' },
      headers: { 'Retry-After': '1' },
    }
  }
  return {
    status: 500,
    body: {
      message: withoutPath(`Internal sandbox error: ${(error as Error)?.message ?? String(error)}`, dir),
    },
  }
}

/** The methods a path takes as an Allow header writes them: GET brings HEAD, which is answered as GET. */
export const allowHeader = (allowed: readonly string[]) =>
  allowed.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ')

export function methodNotAllowed(allowed: readonly string[]): HttpError {
  const list = allowHeader(allowed)
  return new HttpError(
    405,
    `The method is not supported for this route. Supported methods: ${list}.`,
    {},
    { Allow: list },
  )
}
