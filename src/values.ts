import { decimalText } from './shared/money.js'
/**
 * JSON values from the service, as every part of pay handles them: whether a value is a record,
 * its plain text, and that text made safe for a terminal. A leaf: it imports nothing of pay but src/shared.
 */

export type Rec = Record<string, unknown>

export const isRecord = (value: unknown): value is Rec =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Any value as one line of plain text (not yet sanitised). */
export function plain(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number') return decimalText(value)
  if (typeof value === 'boolean') return String(value)
  if (Array.isArray(value)) return value.length === 0 ? '[]' : JSON.stringify(value)
  return JSON.stringify(value)
}

/**
 * Server text is shown in caret notation before it reaches a terminal, so a title holding
 * escape sequences cannot move the cursor, recolour the screen or rewrite what was printed.
 * C0 controls become ^@ .. ^_, DEL becomes ^?, C1 controls become M-^@ .. M-^_ (as `cat -v`).
 * Tab and newline are kept. Unicode's bidirectional controls (the embeddings, overrides and
 * isolates U+202A-U+202E and U+2066-U+2069, and the marks U+200E, U+200F, U+061C), which
 * reorder what a terminal shows ("REF-<U+202E>evil" shows as "REF-live"), are named instead:
 * `<U+202E>`.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

function caret(char: string): string {
  const code = char.charCodeAt(0)
  if (code > 0xff) return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`
  if (code === 0x7f) return '^?'
  if (code >= 0x80) return `M-^${String.fromCharCode(code - 0x80 + 0x40)}`
  return `^${String.fromCharCode(code + 0x40)}`
}

export function sanitizeText(text: string): string {
  return text.replace(CONTROL, caret)
}

/**
 * A web address as a service may hand one out (a payment_url) to go to a browser or a QR code:
 * http(s), a host, and only the characters RFC 3986 lets a URL hold as sent (letters, digits,
 * `-._~:/?#[]@!$&()*+,;=`, and `%` before two hex digits), less the quote `'`. Whitespace,
 * controls, quotes, `|`, `^`, `<`, `>`, `\`, `{`, `}`, a backquote, a lone `%` and any character
 * beyond ASCII are refused: no real payment URL has them (a server escapes them), and they are
 * what a shell or `cmd` would read as syntax.
 */
const WEB_URL = /^https?:\/\/(?:[A-Za-z0-9\-._~:/?#[\]@!$&()*+,;=]|%[0-9A-Fa-f]{2})+$/i

export function isPlainWebUrl(text: string): boolean {
  if (!WEB_URL.test(text)) return false
  try {
    return new URL(text).hostname !== ''
  } catch {
    return false
  }
}
