/**
 * The e-mail rule pay checks before sending, the service's own: its framework's RFC validation
 * (Laravel's `email` rule, egulias/EmailValidator's RFCValidation). `a@localhost` passes; two dots
 * in a row, or a dot first or last in the local part, do not; a quoted local part (`"a..b"@c.co`)
 * may hold what a plain one may not. docs/choices.md says where the rule comes from; the sandbox
 * keeps the same rule on its side, and one table of cases checks that both agree.
 */
import { isIPv4, isIPv6 } from 'node:net'
import { domainToASCII } from 'node:url'

/** Text beyond ASCII, as the validator reads it: no symbol, no control. */
const BEYOND = '[^\\x00-\\x7F\\p{S}\\p{C}]'
const ATOM = `(?:[A-Za-z0-9!#$%&'*+/=?^_\`{|}~-]|${BEYOND})+`
const DOT_ATOM = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`, 'u')
const QUOTED = new RegExp(`^"(?:[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]|${BEYOND}|\\\\[\\x20-\\x7E])*"$`, 'u')
const LABEL = new RegExp(`^(?:[A-Za-z0-9-]|${BEYOND})*(?:[A-Za-z0-9]|${BEYOND})$`, 'u')

/** Splits at the `@` that ends the local part: after a quoted one, or the first. */
function split(value: string): [string, string] | undefined {
  if (value.startsWith('"')) {
    const end = /^"(?:[^"\\]|\\.)*"/su.exec(value)?.[0].length
    return end !== undefined && value[end] === '@' ? [value.slice(0, end), value.slice(end + 1)] : undefined
  }
  const at = value.indexOf('@')
  return at === -1 ? undefined : [value.slice(0, at), value.slice(at + 1)]
}

function domainOk(domain: string): boolean {
  const literal = /^\[(.*)\]$/s.exec(domain)?.[1]
  if (literal !== undefined) return /^IPv6:/i.test(literal) ? isIPv6(literal.slice(5)) : isIPv4(literal)
  if (domain.startsWith('-') || new TextEncoder().encode(domain).length > 253) return false
  return domain.split('.').every((label) => {
    if (!LABEL.test(label)) return false
    // A label beyond ASCII is as long as its ASCII form (punycode) is.
    return (/^[\x20-\x7E]+$/.test(label) ? label : domainToASCII(label)).length <= 63
  })
}

/** Whether `value` is an address the service takes as an e-mail. */
export function isServiceEmail(value: string): boolean {
  const parts = split(value)
  if (!parts) return false
  const [local, domain] = parts
  return (DOT_ATOM.test(local) || QUOTED.test(local)) && domainOk(domain) && domain !== ''
}
