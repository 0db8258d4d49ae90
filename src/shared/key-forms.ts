/**
 * A secret (an API key) in every form text can carry it: as itself, or percent-encoded, wholly or
 * in part, in either case of hex digits, once or twice over (`%73k_…`, `sk%5Flive…`, `%2573k…`),
 * as a URL's path, query or an id pasted into one would hold it. The client's redaction and the
 * sandbox's logs both use it, so that neither misses a form the other catches.
 */

/** The shortest secret looked for: shorter ones would match ordinary text. */
export const MIN_SECRET_LENGTH = 4

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')

/** One character of a secret: itself, or its UTF-8 bytes percent-encoded (and encoded again). */
function characterForms(char: string): string {
  const bytes = [...Buffer.from(char, 'utf8')].map((byte) => byte.toString(16).padStart(2, '0'))
  const hex = (digits: string) => digits.replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`)
  const once = bytes.map((byte) => `%${hex(byte)}`).join('')
  const twice = bytes.map((byte) => `%25${hex(byte)}`).join('')
  return `(?:${escapeRegExp(char)}|${once}|${twice})`
}

const patterns = new Map<string, RegExp>()

/** A pattern matching `secret` in every form above (global). */
export function secretPattern(secret: string): RegExp {
  let pattern = patterns.get(secret)
  if (!pattern) {
    pattern = new RegExp([...secret].map(characterForms).join(''), 'g')
    patterns.set(secret, pattern)
  }
  pattern.lastIndex = 0
  return pattern
}

/** Whether `text` holds one of `secrets` in any form. */
export function holdsSecret(text: string, secrets: readonly string[]): boolean {
  return secrets.some(
    (secret) =>
      secret.length >= MIN_SECRET_LENGTH &&
      (text.includes(secret) || (text.includes('%') && secretPattern(secret).test(text))),
  )
}

/** `text` with every form of each of `secrets` replaced by `replacement`. */
export function redactSecrets(text: string, secrets: readonly string[], replacement = '[REDACTED]'): string {
  let result = text
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue
    if (result.includes(secret)) result = result.split(secret).join(replacement)
    if (result.includes('%')) result = result.replace(secretPattern(secret), replacement)
  }
  return result
}
