/**
 * The service's e-mail rule. Its 422s are Laravel's, and Laravel's `email` rule checks an address
 * with egulias/EmailValidator's RFCValidation (RFC 5321/5322). What that takes, as this follows it:
 * - the local part is a dot-atom (RFC 5322 atext, or any character beyond ASCII that is not a
 *   symbol or a control, separated by single dots; none first or last) or a quoted string;
 *   a local part over 64 characters is only a warning there, so it passes;
 * - the domain is labels of letters, digits and hyphens (and letters beyond ASCII) separated by
 *   single dots, none first or last, no hyphen first in the domain nor last in a label, a label
 *   at most 63 characters, the domain at most 253 bytes; one label is enough (`a@localhost`: a
 *   warning there); or an address literal (`[192.0.2.1]`, `[IPv6:2001:db8::1]`);
 * - no control character, no space outside quotes, no comment (pay's client refuses them too).
 */
import { isIPv4, isIPv6 } from 'node:net'
import { domainToASCII } from 'node:url'

/** RFC 5322 atext of ASCII. */
const ASCII_ATEXT = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]$/

/** A character beyond ASCII that the validator reads as text: not a symbol, not a control. */
const isTextBeyondAscii = (char: string) => char.codePointAt(0)! > 0x7f && !/[\p{S}\p{C}]/u.test(char)

const isAtext = (char: string) => ASCII_ATEXT.test(char) || isTextBeyondAscii(char)

/** A dot-atom: atext runs joined by single dots. */
function isDotAtom(text: string): boolean {
  const runs = text.split('.')
  return runs.every((run) => run.length > 0 && [...run].every(isAtext))
}

/**
 * The quoted local part at the start of `value` (`"a..b"`): its length with the quotes, or 0
 * when it is not one. Inside: printable ASCII but `"` and `\`, text beyond ASCII, or `\` and a
 * printable ASCII character.
 */
function quotedLength(value: string): number {
  const chars = [...value]
  if (chars[0] !== '"') return 0
  let length = 1
  for (let i = 1; i < chars.length; i++) {
    const char = chars[i]
    length += char.length
    if (char === '"') return length
    if (char === '\\') {
      const next = chars[i + 1]
      if (next === undefined || !/^[\x20-\x7e]$/.test(next)) return 0
      length += next.length
      i++
      continue
    }
    if (!/^[\x20-\x7e]$/.test(char) && !isTextBeyondAscii(char)) return 0
  }
  return 0
}

const LABEL_CHAR = (char: string) => /^[A-Za-z0-9-]$/.test(char) || isTextBeyondAscii(char)

function isDomain(domain: string): boolean {
  if (domain.startsWith('[')) return isAddressLiteral(domain)
  if (domain === '' || domain.startsWith('-') || Buffer.byteLength(domain) > 253) return false
  return domain.split('.').every((label) => {
    if (label === '' || label.endsWith('-') || ![...label].every(LABEL_CHAR)) return false
    const ascii = [...label].every((char) => char.codePointAt(0)! < 0x80) ? label : domainToASCII(label)
    return ascii !== '' && ascii.length <= 63
  })
}

function isAddressLiteral(domain: string): boolean {
  const inner = /^\[(.*)\]$/.exec(domain)?.[1]
  if (inner === undefined) return false
  if (/^IPv6:/i.test(inner)) return isIPv6(inner.slice(5))
  return isIPv4(inner)
}

/** Whether `value` is an e-mail address the service's `email` rule accepts. */
export function isEmail(value: string): boolean {
  const quoted = quotedLength(value)
  const at = quoted > 0 ? quoted : value.indexOf('@')
  if (at <= 0 || value[at] !== '@') return false
  const local = value.slice(0, at)
  if (quoted === 0 && !isDotAtom(local)) return false
  return isDomain(value.slice(at + 1))
}
