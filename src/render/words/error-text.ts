import type { FieldErrors, PayError } from '../../errors.js'
import { sanitizeText } from '../../values.js'
import { escapeControls } from '../json.js'

/** An error as --json prints it on stderr: `{"error": {status, kind, exit_code, message, …}}`, one line. */
export function errorJson(error: PayError): string {
  const body = {
    error: {
      status: error.status ?? null,
      kind: error.kind,
      exit_code: error.exitCode,
      message: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
      ...(error.hint ? { hint: error.hint } : {}),
      ...(error.idempotencyKey ? { idempotency_key: error.idempotencyKey } : {}),
    },
  }
  return `${escapeControls(JSON.stringify(body))}\n`
}

/** An error for a person: one clean message, field errors under their flags (`label`), the hint. */
export function errorText(
  error: PayError,
  label: (field: string) => string,
  colour: boolean,
  wrap: (text: string) => string = (text) => text,
): string {
  // Cancelled by the user (a "no", Ctrl-C) is no error: it is said plainly.
  const prefix = error.kind === 'cancelled' ? '' : 'Error: '
  const lines = [`${prefix}${sanitizeText(error.message)}`, ...fieldLines(error.errors, label)]
  if (error.hint) lines.push(sanitizeText(error.hint))
  // Wrapped before it is coloured: a colour code takes no column.
  const text = wrap(`${lines.join('\n')}\n`)
  return colour && prefix ? text.replace(/^Error: /, '\u001b[31mError:\u001b[39m ') : text
}

/** Rows of an input file that failed local checks: each line number, its fields under their flags. */
export function invalidRowsText(
  rows: { line: number; errors: FieldErrors }[],
  label: (field: string) => string,
) {
  const lines = rows.flatMap(({ line, errors }) => [`Line ${line}:`, ...fieldLines(errors, label)])
  return `${lines.join('\n')}\n`
}

/**
 * Field errors as a 422 is shown: one line per message, under the flag's name, aligned. The
 * names come from the server as much as the messages do: both are sanitised.
 */
function fieldLines(errors: FieldErrors | undefined, label: (field: string) => string): string[] {
  const entries = Object.entries(errors ?? {}).flatMap(([field, messages]) =>
    (Array.isArray(messages) ? messages : [String(messages)]).map((message) => [
      sanitizeText(label(field)),
      message,
    ]),
  )
  const width = Math.max(0, ...entries.map(([flag]) => flag.length))
  return entries.map(([flag, message]) => `  ${flag.padEnd(width)}  ${sanitizeText(String(message))}`)
}
