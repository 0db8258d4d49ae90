/**
 * Every failure the CLI reports is a PayError with a kind; the kind decides the exit code
 * (the table in docs/design.md), so commands and the API client never pick numbers themselves.
 */
export type ErrorKind =
  | 'general'
  | 'usage'
  | 'validation'
  | 'auth'
  | 'not_found'
  | 'unavailable'
  | 'partial'
  | 'wait_timeout'
  | 'cancelled'

const EXIT_CODES: Record<ErrorKind, number> = {
  general: 1,
  usage: 2,
  validation: 3,
  auth: 4,
  not_found: 5,
  unavailable: 6,
  partial: 7,
  /** Still waiting when the wait's --timeout ran out (`links wait`). */
  wait_timeout: 8,
  cancelled: 130,
}

/**
 * What each exit code means, as README.md's table says it: `pay mcp` gives it to the assistant
 * (its instructions, and each tool error's `meaning`), docs/agents.md lists it.
 */
export const EXIT_MEANINGS: Record<ErrorKind, string> = {
  general: 'anything not below (a corrupt config file, a 400 or 409 from the service)',
  usage: 'a bad or missing argument, or refusing to act without confirmation',
  validation: 'rejected by validation (a 422 from the service, or the same rule checked locally)',
  auth: 'authentication: no key configured, 401, 403',
  not_found: 'not found (404)',
  unavailable:
    'the service unreachable or failing: connection error, timeout, 5xx, an answer of the wrong shape',
  partial: 'a bulk operation where some items failed (the others done and reported)',
  wait_timeout: 'still waiting when the time allowed ran out (`links wait`)',
  cancelled: 'a confirmation declined, Ctrl-C',
}

/** Every exit code but 0, in order, with its kind and meaning. */
export const EXIT_CODE_TABLE: readonly { code: number; kind: ErrorKind; meaning: string }[] = (
  Object.keys(EXIT_CODES) as ErrorKind[]
).map((kind) => ({ code: EXIT_CODES[kind], kind, meaning: EXIT_MEANINGS[kind] }))

/** Field name -> messages, as in a 422 body. */
export type FieldErrors = Record<string, string[]>

interface PayErrorOptions {
  kind: ErrorKind
  /** HTTP status when the error came from the service. */
  status?: number
  /** Per-field messages (422, or the same rules checked locally). */
  errors?: FieldErrors
  /** A second line telling the user what to do next. */
  hint?: string
  /** The Idempotency-Key of a POST that failed after it may have reached the service. */
  idempotencyKey?: string
  /** The request certainly never reached the service (refused connection, unknown host, TLS). */
  unsent?: boolean
  /** No later request of the command can do better: a bulk run stops at it, a wait ends with it. */
  ends?: boolean
  cause?: unknown
}

export class PayError extends Error {
  readonly kind: ErrorKind
  readonly status?: number
  readonly errors?: FieldErrors
  readonly hint?: string
  readonly idempotencyKey?: string
  readonly unsent?: boolean
  readonly ends?: boolean

  constructor(message: string, options: PayErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'PayError'
    this.kind = options.kind
    this.status = options.status
    this.errors = options.errors
    this.hint = options.hint
    this.idempotencyKey = options.idempotencyKey
    this.unsent = options.unsent
    this.ends = options.ends
  }

  get exitCode(): number {
    return EXIT_CODES[this.kind]
  }
}

export const usageError = (message: string, hint?: string) => new PayError(message, { kind: 'usage', hint })

export const validationError = (errors: FieldErrors, message = 'The given data was invalid.') =>
  new PayError(message, { kind: 'validation', errors })

/**
 * Anything thrown, as a PayError: one as it is, a question the person cancelled (Ctrl-C at a
 * prompt) as `cancelled`, anything else as a general error with its message. (The oclif adapter
 * reads its own parse errors first: src/cli/command-errors.ts.)
 */
export function asPayError(thrown: unknown): PayError {
  if (thrown instanceof PayError) return thrown
  const error = thrown instanceof Error ? thrown : new Error(String(thrown))
  if (error.name === 'ExitPromptError' || error.name === 'AbortPromptError') {
    return new PayError('Cancelled.', { kind: 'cancelled' })
  }
  return new PayError(error.message || String(error), { kind: 'general' })
}
