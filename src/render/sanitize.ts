import { sanitizeText } from '../values.js'

/** One TSV cell: sanitised, and tab/newline written as \t and \n so rows and columns stay intact. */
export function sanitizeCell(text: string): string {
  return sanitizeText(text).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n')
}

/** JSON text with DEL and C1 controls escaped too (JSON.stringify escapes only C0). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}
