import { asPayError, EXIT_MEANINGS } from '../errors.js'
import { type Rec, sanitizeText } from '../values.js'

/**
 * What a tool answers: the data the plain functions return (a record, a list's page, a bulk
 * run's results) as its structured content and a short text, or a tool error with its kind, the
 * exit code a command would end with and what that code means.
 */

/** A tool's answer, before it is put in MCP's terms (server.ts). */
export interface Answer {
  structured: Record<string, unknown>
  text: string
  isError?: boolean
}

/** A record in one line: its id and what `describe` says of it. */
export const recordLine = (record: Rec, describe?: (record: Rec) => string) =>
  sanitizeText([String(record._id ?? ''), describe?.(record) ?? ''].filter(Boolean).join('  '))

/** A record as the answer: the record itself, and a line of what it is. */
export const recordAnswer = (record: Rec, said: string, describe?: (record: Rec) => string): Answer => ({
  structured: record,
  text: `${said}: ${recordLine(record, describe)}`,
})

/**
 * Any failure as a tool error: the PayError a command would print (another error is made one),
 * with its kind, the exit code and its meaning, the status, and each field's messages.
 */
export function errorAnswer(thrown: unknown): Answer {
  const error = asPayError(thrown)
  const fields = Object.entries(error.errors ?? {}).map(
    ([field, messages]) =>
      `  ${field}: ${(Array.isArray(messages) ? messages : [String(messages)]).join(' ')}`,
  )
  const lines = [
    `Error (${error.kind}, exit ${error.exitCode}): ${error.message}`,
    ...fields,
    ...(error.hint ? [error.hint] : []),
  ]
  return {
    isError: true,
    text: sanitizeText(lines.join('\n')),
    structured: {
      error: {
        kind: error.kind,
        exit_code: error.exitCode,
        meaning: EXIT_MEANINGS[error.kind],
        message: error.message,
        status: error.status ?? null,
        ...(error.errors ? { errors: error.errors } : {}),
        ...(error.hint ? { hint: error.hint } : {}),
        ...(error.idempotencyKey ? { idempotency_key: error.idempotencyKey } : {}),
      },
    },
  }
}
