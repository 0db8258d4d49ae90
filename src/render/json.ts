/**
 * The one JSON escaper of pay's output: JSON text as JSON.stringify writes it, with the
 * characters it leaves raw that a terminal would act on escaped as well.
 */

/**
 * DEL, C1 controls, U+2028, U+2029 and the bidirectional controls (values.ts) in JSON text as
 * \\u escapes: they can only sit in its strings, and the data stays exact once parsed.
 */
export const escapeControls = (json: string) =>
  json.replace(
    /[\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )

/** JSON text with DEL and C1 controls escaped too (JSON.stringify escapes only C0). */
export function toJson(value: unknown): string {
  return escapeControls(JSON.stringify(value, null, 2))
}

/** The same on one line (--jsonl, piped `pay api`). */
export function toJsonLine(value: unknown): string {
  return escapeControls(JSON.stringify(value))
}
