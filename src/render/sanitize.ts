/**
 * Server text is shown in caret notation before it reaches a terminal, so a title holding
 * escape sequences cannot move the cursor, recolour the screen or rewrite what was printed.
 * C0 controls become ^@ .. ^_, DEL becomes ^?, C1 controls become M-^@ .. M-^_ (as `cat -v`).
 * Tab and newline are kept.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

function caret(char: string): string {
  const code = char.charCodeAt(0)
  if (code === 0x7f) return '^?'
  if (code >= 0x80) return `M-^${String.fromCharCode(code - 0x80 + 0x40)}`
  return `^${String.fromCharCode(code + 0x40)}`
}

export function sanitizeText(text: string): string {
  return text.replace(CONTROL, caret)
}

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
