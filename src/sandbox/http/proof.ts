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
import fs from 'node:fs'
import path from 'node:path'
import { errorCode } from '../store/files.js'

/** The secret's file in the sandbox directory. */
export const PROOF_FILE = 'proof.secret'

/** A challenge: 32 random bytes in hex. */
export const CHALLENGE = /^[0-9a-f]{64}$/

const SECRET = /^[0-9a-f]{64}$/

/** The sandbox directory or its secret cannot be trusted (another owner, a link, loose modes). */
export class ProofSecretError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ProofSecretError'
  }
}

const ownUid = () => (typeof process.getuid === 'function' ? process.getuid() : undefined)

/**
 * Makes the sandbox directory (0700) when missing. One that exists must be a directory of this
 * user (a link to another user's is refused); group and other permissions are taken away, since
 * it holds the store and the secret.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stat = fs.statSync(dir)
  if (!stat.isDirectory()) throw new ProofSecretError(`The sandbox directory ${dir} is not a directory.`)
  if (process.platform === 'win32') return
  const uid = ownUid()
  if (uid !== undefined && stat.uid !== uid) {
    throw new ProofSecretError(
      `The sandbox directory ${dir} belongs to another user: use a directory of your own.`,
    )
  }
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700)
}

/** The secret in `file`, opened without following a link; checked to be this user's, 0600. */
function readSecretFile(file: string): Buffer {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0))
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) throw new ProofSecretError(`${file} is not a regular file.`)
    if (process.platform !== 'win32') {
      const uid = ownUid()
      if (uid !== undefined && stat.uid !== uid)
        throw new ProofSecretError(`${file} belongs to another user.`)
      if ((stat.mode & 0o077) !== 0) {
        throw new ProofSecretError(
          `${file} may be read by other users. Remove it; the sandbox makes a new secret.`,
        )
      }
    }
    const text = fs.readFileSync(fd, 'utf8').trim()
    if (!SECRET.test(text)) throw new ProofSecretError(`${file} does not hold a sandbox secret.`)
    return Buffer.from(text, 'hex')
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The server's side: the secret of `dir`, made on first use. It is written to a file of its own
 * (O_EXCL, 0600), then linked into place, which never follows or replaces what is there: two
 * sandboxes starting at once agree on one secret, and a link planted at the name is refused.
 */
export function serverSecret(dir: string): Buffer {
  ensurePrivateDir(dir)
  const file = path.join(dir, PROOF_FILE)
  try {
    return readSecretFile(file)
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw refusal(file, error)
  }
  const temporary = path.join(dir, `${PROOF_FILE}.${randomBytes(6).toString('hex')}`)
  const flags =
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0)
  const fd = fs.openSync(temporary, flags, 0o600)
  try {
    fs.writeFileSync(fd, `${randomBytes(32).toString('hex')}\n`)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  try {
    fs.linkSync(temporary, file)
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error
  } finally {
    fs.rmSync(temporary, { force: true })
  }
  try {
    return readSecretFile(file)
  } catch (error) {
    throw refusal(file, error)
  }
}

function refusal(file: string, error: unknown): Error {
  if (error instanceof ProofSecretError) return error
  if (errorCode(error) === 'ELOOP') {
    return new ProofSecretError(
      `${file} is a symbolic link: refused. Remove it; the sandbox makes a new secret.`,
    )
  }
  return error as Error
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
