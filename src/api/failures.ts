import { PayError } from '../errors.js'

/** OpenSSL's verdicts on a server certificate, as pay words them (never retried). */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'is self-signed and not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'chains to a self-signed certificate that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'comes from an issuer that is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'could not be verified',
  CERT_HAS_EXPIRED: 'has expired',
  CERT_NOT_YET_VALID: 'is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'is not for this host name',
}
/** Connection errors that mean the request never left: nothing can have been created. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'])

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ETIMEDOUT: 'the connection timed out',
}

/**
 * The code of a connection its agent refused before anything was written to it: a new connection
 * to the user's sandbox that could not prove it reaches that sandbox (src/runtime/sandbox/proved-agent.ts).
 */
export const UNPROVEN_CONNECTION = 'ERR_PAY_SANDBOX_UNPROVEN'

/** How the transport says that the service at `origin` could not be talked to (all exit 6). */
export const failures = {
  timedOut(origin: string, timeoutMs: number): PayError {
    return new PayError(`No answer from ${origin} within ${timeoutMs / 1000} s.`, {
      kind: 'unavailable',
      hint: 'Raise the limit with --timeout SECONDS (or PAY_TIMEOUT) if the service is just slow.',
    })
  },

  connection(origin: string, code: string): PayError {
    const certificate = CERTIFICATE_PROBLEMS[code]
    if (certificate) {
      return new PayError(`Could not reach ${origin}: its TLS certificate ${certificate}.`, {
        kind: 'unavailable',
        hint: 'If the service uses a private certificate authority, point NODE_EXTRA_CA_CERTS at its certificate.',
        unsent: true,
      })
    }
    return new PayError(`Could not reach ${origin}: ${REASONS[code] ?? (code || 'network error')}.`, {
      kind: 'unavailable',
      unsent: NEVER_SENT.has(code),
    })
  },

  /**
   * The sandbox a command was talking to is no longer the user's: nothing was sent on the new
   * connection, and no later request of the command can do better (a bulk run stops, a wait ends).
   */
  unproven(origin: string): PayError {
    return new PayError(
      `${origin} is no longer your sandbox: a new connection to it could not prove it keeps its store in your ` +
        'PAY_SANDBOX_DIR (the sandbox stopped, and another program holds its port?). Nothing was sent on it.',
      {
        kind: 'unavailable',
        unsent: true,
        ends: true,
        hint: 'Start your sandbox again (`pay sandbox start`) and run the command again.',
      },
    )
  },

  tooLarge(origin: string, maxBytes: number): PayError {
    const limit = `${maxBytes / 1024 / 1024} MB`
    return new PayError(`The answer from ${origin} is larger than ${limit}: pay stopped reading it.`, {
      kind: 'unavailable',
      hint: `pay reads at most ${limit} of one answer; no page of a real service is that large.`,
    })
  },

  cutOff(origin: string): PayError {
    return new PayError(`The answer from ${origin} was cut off: the connection closed before its end.`, {
      kind: 'unavailable',
    })
  },

  redirected(base: string, status: number, location: string | undefined): PayError {
    let where = ''
    try {
      if (location) where = ` to ${new URL(location, base).origin}`
    } catch {}
    return new PayError(
      `The service answered ${status} with a redirect${where}; pay does not follow redirects.`,
      {
        kind: 'unavailable',
        hint: 'Redirects would carry the API key elsewhere. Check the base URL of the profile.',
      },
    )
  },
}

/**
 * A failure of a request that may have reached the service all the same (a timeout, a 5xx, a
 * cut connection, a redirect): said, with its Idempotency-Key and how to send it again. For a
 * create, `noun` names what may have been created; `pay api` is told to send the key again.
 */
export function mayHaveHappened(error: unknown, key: string | undefined, noun?: string): unknown {
  if (key === undefined || !(error instanceof PayError) || error.kind !== 'unavailable' || error.unsent)
    return error
  return new PayError(error.message, {
    kind: error.kind,
    status: error.status,
    errors: error.errors,
    idempotencyKey: key,
    hint: [
      noun
        ? `The ${noun} may have been created all the same (Idempotency-Key ${key}).`
        : `The request may have been acted on all the same (Idempotency-Key ${key}).`,
      noun
        ? `To send this very request again, add --idempotency-key ${key}.`
        : `To send this very request again, add -H 'Idempotency-Key: ${key}'.`,
      error.hint,
    ]
      .filter(Boolean)
      .join('\n'),
  })
}
