import { asPayError, EXIT_MEANINGS } from '../errors.js'
import { type Rec, sanitizeText } from '../values.js'
import { DATA_NOTE, idText, moneyText, quoted } from './untrusted.js'

/**
 * What a tool answers: the data the plain functions return (a record, a list's page, a bulk
 * run's results) as its structured content, where the service's strings stay data fields, and a
 * short text, where each of them is quoted and escaped (untrusted.ts); or a tool error with its
 * kind, the exit code a command would end with and what that code means.
 */

/** A tool's answer, before it is put in MCP's terms (server.ts). */
export interface Answer {
  structured: Record<string, unknown>
  text: string
  isError?: boolean
}

/**
 * A record in one line, from its summary (the fields a plan shows, runs.ts): its id, then each
 * field by name, its value quoted (`title "Invoice 42"`), an amount with its currency (`25.50
 * EUR`), paid or not in words. Nothing the service sent can end the line or pass for pay's words.
 */
export function recordLine(summary: Rec): string {
  const parts: string[] = []
  for (const [field, value] of Object.entries(summary)) {
    if (['id', '_id', 'found', 'currency'].includes(field)) continue
    if (value === undefined || value === null || value === '') continue
    if (field === 'amount') parts.push(moneyText(value, summary.currency))
    else if (field === 'paid' && typeof value === 'boolean') parts.push(value ? 'paid' : 'unpaid')
    else parts.push(`${field} ${quoted(value)}`)
  }
  return [idText(summary.id ?? summary._id), parts.join(' · ')].filter(Boolean).join('  ')
}

/** An answer's text: its first line (pay's words), the note on quoted data when data follows, then the data's lines. */
export const withData = (first: string, lines: string[], after: string[] = []): string =>
  [first, ...(lines.length > 0 ? [DATA_NOTE, ...lines] : []), ...after].join('\n')

/** A record as the answer: the record itself, and a line of what it is. */
export const recordAnswer = (record: Rec, said: string, summary: Rec): Answer => ({
  structured: record,
  text: withData(`${said}:`, [`  ${recordLine(summary)}`]),
})

/**
 * pay's own words on one line: a message of pay's may hold a value it was given or read (an id,
 * an amount), which must not start a line of its own either.
 */
const oneLine = (text: string) => sanitizeText(text.replace(/[\r\n\u0085\u2028\u2029]+/g, ' '))

/**
 * Any failure as a tool error: the PayError a command would print (another error is made one),
 * with its kind, the exit code and its meaning, the status, and each field's messages. When the
 * service answered (a status), its message and its field errors are its text: quoted in the
 * answer's text, and fields of their own in the structured content (`from_service`).
 */
export function errorAnswer(thrown: unknown): Answer {
  const error = asPayError(thrown)
  const fromService = error.status !== undefined
  const fields = Object.entries(error.errors ?? {}).map(([field, messages]) => {
    const list = Array.isArray(messages) ? messages.map(String) : [String(messages)]
    return fromService
      ? `  ${quoted(field)}: ${list.map(quoted).join(' ')}`
      : `  ${oneLine(`${field}: ${list.join(' ')}`)}`
  })
  const head = `Error (${error.kind}, exit ${error.exitCode})`
  const hint = error.hint ? [sanitizeText(error.hint)] : []
  const text = fromService
    ? withData(
        `${head}: the service answered ${error.status}.`,
        [`  ${quoted(error.message)}`, ...fields],
        hint,
      )
    : [`${head}: ${oneLine(error.message)}`, ...fields, ...hint].join('\n')
  return {
    isError: true,
    text,
    structured: {
      error: {
        kind: error.kind,
        exit_code: error.exitCode,
        meaning: EXIT_MEANINGS[error.kind],
        message: error.message,
        from_service: fromService,
        status: error.status ?? null,
        ...(error.errors ? { errors: error.errors } : {}),
        ...(error.hint ? { hint: error.hint } : {}),
        ...(error.idempotencyKey ? { idempotency_key: error.idempotencyKey } : {}),
      },
    },
  }
}
