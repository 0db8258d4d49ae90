import { PayError } from '../errors.js'
import { holdsSecret, redactSecrets } from '../shared/key-forms.js'

/** Request headers a --debug trace shows as [REDACTED]: credentials, cookies, anything named like a secret. */
export const SECRET_HEADER =
  /^(authorization|proxy-authorization|cookie)$|token|secret|password|api-?key|session/i

/** Longest body a --debug trace shows. */
const DEBUG_BODY_LIMIT = 4096
/** Fields whose values a --debug trace never shows (and those values wherever else they appear). */
const SECRET_FIELD = /(^|_)(token|secret|password|api_?key|signature_?key|authorization)$/i

/**
 * The API key kept out of everything pay prints: wherever a server echoed it (a body, a header,
 * an error message, a field name), it is shown as [REDACTED].
 */
export class Redactor {
  constructor(private readonly apiKey: string) {}

  /**
   * The key in text, in any form (itself, or percent-encoded in part or whole, as a path or query
   * holds it), as [REDACTED]; also for text taken out of a body (a JSON string's escapes can spell it).
   */
  readonly text = (text: string): string => redactSecrets(text, [this.apiKey])

  /**
   * A parsed JSON value with the key redacted from its strings: a body can hold the key written
   * with \u escapes, which only parsing reveals.
   */
  value(value: unknown, source?: string): unknown {
    // Without a backslash in its text, a body's strings are its text's, already redacted.
    if (source !== undefined && !source.includes('\\')) return value
    const text = JSON.stringify(value)
    if (text === undefined || !holdsSecret(text, [this.apiKey])) return value
    return JSON.parse(this.text(text))
  }

  /** The same error with the key redacted from its text, if a server echoed it there. */
  error(error: unknown): unknown {
    if (!(error instanceof PayError)) return error
    const texts = [
      error.message,
      error.hint ?? '',
      error.idempotencyKey ?? '',
      ...Object.entries(error.errors ?? {}).flat(2),
    ]
    if (!texts.some((text) => holdsSecret(text, [this.apiKey]))) return error
    const errors = error.errors
      ? Object.fromEntries(
          Object.entries(error.errors).map(([field, messages]) => [
            this.text(field),
            messages.map((m) => this.text(m)),
          ]),
        )
      : undefined
    return new PayError(this.text(error.message), {
      kind: error.kind,
      status: error.status,
      errors,
      hint: error.hint && this.text(error.hint),
      idempotencyKey: error.idempotencyKey && this.text(error.idempotencyKey),
      unsent: error.unsent,
      ends: error.ends,
      cause: error.cause,
    })
  }
}

/** A body as the --debug trace shows it: JSON pretty-printed with secrets redacted, cut past 4 KB. */
export function debugBody(text: string): string {
  let shown = text
  try {
    const secrets = new Set<string>()
    const parsed = JSON.parse(text, (key, value) => {
      if (SECRET_FIELD.test(key) && typeof value === 'string' && value !== '') {
        secrets.add(value)
        return '[REDACTED]'
      }
      return value
    })
    shown = JSON.stringify(parsed, null, 2)
    // The same secret inside another field (a token in an activation URL) is hidden too.
    for (const secret of secrets) if (secret.length >= 4) shown = shown.split(secret).join('[REDACTED]')
  } catch {
    // not JSON: shown as it came
  }
  if (shown.length <= DEBUG_BODY_LIMIT) return shown
  return `${shown.slice(0, DEBUG_BODY_LIMIT)}\n… (${shown.length - DEBUG_BODY_LIMIT} more characters not shown)`
}
