/**
 * How a sandbox proves to pay that it is the user's own: a process listening on the sandbox's port
 * may be anyone's, and pay must not hand it a real API key or a customer's data.
 *
 * The server keeps a random secret in its directory (`$PAY_SANDBOX_DIR/proof.secret`: 0600, in a
 * 0700 directory, never through a symbolic link). pay sends a random challenge to the health
 * route (`GET /_sandbox/health?challenge=<64 hex>`), and the server answers with an HMAC of it
 * under that secret, bound to the address and port the connection reached (its local end). pay
 * computes the same from the secret of its own `$PAY_SANDBOX_DIR` and the address and port its
 * socket is connected to: only a process that can read that file answers right, and a squatter
 * that relays the challenge to the user's sandbox gets a proof naming where *that* connection
 * landed (another port, or the same port on another address), never the squatter's own, since
 * two listeners cannot hold one address and port.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import path from 'node:path'
import {
  createSecretFile,
  PrivateFileError,
  readSecretFile as readSecret,
} from '../../shared/private-file.js'
import { ensureSandboxDir } from '../../shared/sandbox-dir.js'

/** The secret's file in the sandbox directory. */
export const PROOF_FILE = 'proof.secret'

/** A challenge: 32 random bytes in hex. */
export const CHALLENGE = /^[0-9a-f]{64}$/

const SECRET = /^[0-9a-f]{64}$/

const ANEW = 'the sandbox makes a new secret'

/** The secret in `file` (a regular file of this user's, 0600, not through a link), or undefined when there is none. */
function readSecretFile(file: string): Buffer | undefined {
  const text = readSecret(file, ANEW)?.trim()
  if (text === undefined) return undefined
  if (!SECRET.test(text)) throw new PrivateFileError(`${file} does not hold a sandbox secret.`)
  return Buffer.from(text, 'hex')
}

/**
 * The server's side: the secret of `dir`, made on first use (the directory made 0700, or checked
 * and tightened). It is written to a file of its own (O_EXCL, 0600), then linked into place, which
 * never follows or replaces what is there: two sandboxes starting at once agree on one secret, and
 * a link planted at the name is refused.
 */
export function serverSecret(dir: string): Buffer {
  ensureSandboxDir(dir)
  const file = path.join(dir, PROOF_FILE)
  const found = readSecretFile(file)
  if (found !== undefined) return found
  createSecretFile(file, `${randomBytes(32).toString('hex')}\n`)
  const made = readSecretFile(file)
  if (made === undefined) throw new PrivateFileError(`${file} could not be made.`)
  return made
}

/**
 * pay's side: the secret of its own sandbox directory, or undefined when there is none it can
 * trust (no sandbox ever ran there, or the file is a link, another user's, or readable by others).
 */
export function clientSecret(dir: string): Buffer | undefined {
  try {
    return readSecretFile(path.join(dir, PROOF_FILE))
  } catch {
    return undefined
  }
}

/**
 * One end of a TCP connection as both sides write it: an IPv4 address mapped into IPv6 (a server
 * bound to `::`) as plain IPv4, IPv6 in lower case, then the port.
 */
export function endpointOf(address: string | undefined, port: number | undefined): string {
  const plain = (address ?? '').toLowerCase().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1')
  return `${plain}:${port ?? 0}`
}

/** The answer to `challenge` of a sandbox reached at `endpoint` (endpointOf: address and port). */
export function proofOf(secret: Buffer, challenge: string, endpoint: string): string {
  return createHmac('sha256', secret).update(`pay-sandbox-proof\n${challenge}\n${endpoint}`).digest('hex')
}

/** Whether `proof` answers `challenge` for a sandbox reached at `endpoint` holding `secret`. */
export function isProof(secret: Buffer, challenge: string, endpoint: string, proof: unknown): boolean {
  if (typeof proof !== 'string') return false
  const expected = Buffer.from(proofOf(secret, challenge, endpoint))
  const given = Buffer.from(proof)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export const newChallenge = (): string => randomBytes(32).toString('hex')
