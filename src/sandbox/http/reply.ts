/**
 * The server's side of the answers (the shapes are domain/answers.ts): what went wrong as a status
 * (a thrown Refusal, a store that is busy or broken), and the answer to a method a path does not
 * take.
 */
import { Refusal, type Reply } from '../domain/answers.js'
import { StoreBusyError, StoreCorruptError, StoreVersionError } from '../store/errors.js'

/** An answer's text without the sandbox directory's local path: `$PAY_SANDBOX_DIR` instead. */
const withoutPath = (text: string, dir: string) => text.split(dir).join('$PAY_SANDBOX_DIR')

/** What went wrong, as an answer: a Refusal as it says, the store's errors as 500 or 503. */
export function errorReply(error: unknown, dir: string): Reply {
  if (error instanceof Refusal) {
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

export function methodNotAllowed(allowed: readonly string[]): Refusal {
  const list = allowHeader(allowed)
  return new Refusal(
    405,
    `The method is not supported for this route. Supported methods: ${list}.`,
    {},
    { Allow: list },
  )
}
