import { toPayError } from '../cli/command-errors.js'
import { EXIT_MEANINGS, PayError } from '../errors.js'
import type { BulkRow } from '../render/bulk-rows.js'
import type { Result, Shown } from '../render/result.js'
import { type Rec, sanitizeText } from '../values.js'

/**
 * What a tool answers: the plain functions return what a command would print (render/result.ts);
 * here that becomes a tool's answer, its structured content (the record, the list page, the
 * results) and a short text, or a tool error with its kind, the exit code a command would end
 * with and what that code means.
 */

/** A tool's answer, before it is put in MCP's terms (server.ts). */
export interface Answer {
  structured: Record<string, unknown>
  text: string
  isError?: boolean
}

/** Every part a result holds, in order: the JSON side of `either`, what `later` produces. */
async function* partsOf(result: Result): AsyncGenerator<Shown> {
  if (result === undefined || result === null) return
  if (Array.isArray(result)) {
    for (const part of result) yield* partsOf(part)
    return
  }
  const item = result as Shown
  if (item.kind === 'either') yield* partsOf(item.json)
  else if (item.kind === 'later') yield* partsOf(await item.produce())
  else yield item
}

/** The record a run function produced (`shown.record`); its failure (`shown.fail`) thrown. */
export async function recordOf(result: Result): Promise<Rec> {
  for await (const part of partsOf(result)) {
    if (part.kind === 'record') return part.record
    if (part.kind === 'fail') throw part.error
  }
  throw new PayError('The service answered no record.', { kind: 'unavailable' })
}

/** The batches of records of the list a run function produced (`shown.list`), as they arrive. */
export async function batchesOf(result: Result): Promise<AsyncIterable<Rec[]>> {
  for await (const part of partsOf(result)) {
    if (part.kind === 'list') {
      const records = part.records
      if (!Array.isArray(records)) return records
      return (async function* () {
        yield records
      })()
    }
  }
  throw new PayError('The service answered no list.', { kind: 'unavailable' })
}

/** The results of a bulk run, one per id, and the run's failure (some ids not done), if any. */
export async function bulkOf(result: Result): Promise<{ rows: BulkRow[]; failure?: PayError }> {
  const rows: BulkRow[] = []
  let failure: PayError | undefined
  for await (const part of partsOf(result)) {
    if (part.kind === 'bulk') rows.push(...part.rows)
    if (part.kind === 'fail') failure = part.error
  }
  return { rows, failure }
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
  const error =
    thrown instanceof PayError
      ? thrown
      : toPayError(thrown instanceof Error ? thrown : new Error(String(thrown)))
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
