import type http from 'node:http'
import { createRequire } from 'node:module'
import { type Shown, shown } from '../../render/result.js'
import { type Attempted, loadProofCheck, type Notice, startSandbox } from '../../sandbox/index.js'
import { sandboxKeyOf } from '../../shared/sandbox-key.js'

export interface Connection {
  baseUrl: string
  /** The sandbox runs inside this process for this one command. */
  inProcess: boolean
  /**
   * It runs in-process although something answers at the profile's address: that listener did
   * not prove it is the user's sandbox, so it was sent nothing.
   */
  squatter: boolean
  /** What opening the in-process sandbox's store did that a person should hear of. */
  notices: Notice[]
  /** The in-process sandbox's attempts of the notifications it made (each made before it closes). */
  attempted: Attempted[]
  close(): Promise<void>
}

/**
 * What opening the sandbox's store did (an old store imported): said on stderr in every mode, even
 * under --json or -q, since it changed the user's files.
 */
export const noticesShown = (notices: Notice[]): Shown[] =>
  notices.map(({ warning, message }) => (warning ? shown.warn(message) : shown.notice(message)))

/**
 * What answers at a base URL:
 * - `proven`: a pay sandbox that proved it holds the secret of this user's sandbox directory
 *   (src/sandbox/http/proof.ts): the user's own, which may be sent any key;
 * - `unproven`: something that says it is a pay sandbox (`X-Pay-Sandbox: 1`) but did not prove it
 *   (another user's process, a sandbox of another directory, an older pay's);
 * - `other`: some other server; `none`: no connection, or no answer within the timeout.
 */
export type Probed = 'proven' | 'unproven' | 'other' | 'none'

const require = createRequire(import.meta.url)

/** The largest health answer read: it is a few dozen bytes. */
const MAX_HEALTH_BYTES = 4096

/**
 * Asks `GET /_sandbox/health?challenge=…` at baseUrl, without any key, and checks the proof in the
 * answer against the secret of the user's sandbox directory `dir` ($PAY_SANDBOX_DIR).
 */
export async function probeSandbox(
  baseUrl: string,
  options: { dir: string; timeoutMs?: number },
): Promise<Probed> {
  let url: URL
  try {
    url = new URL(`${baseUrl.replace(/\/+$/, '')}/_sandbox/health`)
  } catch {
    return 'none'
  }
  // https only for a base URL that asks for it: no command start-up pays for loading TLS.
  const client = (
    url.protocol === 'http:'
      ? require('node:http')
      : url.protocol === 'https:'
        ? require('node:https')
        : undefined
  ) as typeof http | undefined
  if (!client) return 'none'
  const { clientSecret, endpointOf, isProof, newChallenge } = await loadProofCheck()
  const challenge = newChallenge()
  url.searchParams.set('challenge', challenge)
  const answer = await new Promise<{ sandbox: boolean; body: string; endpoint: string } | undefined>(
    (resolve) => {
      const request = client.get(url, { timeout: options.timeoutMs ?? 1000, agent: false }, (response) => {
        const sandbox = response.statusCode === 200 && response.headers['x-pay-sandbox'] === '1'
        // Where this connection actually went: the proof must name it.
        const endpoint = endpointOf(response.socket.remoteAddress, response.socket.remotePort)
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          body += chunk
          if (body.length > MAX_HEALTH_BYTES) response.destroy()
        })
        response.on('end', () => resolve({ sandbox, body, endpoint }))
        response.on('error', () => resolve({ sandbox, body: '', endpoint }))
        response.on('close', () => resolve({ sandbox, body: '', endpoint }))
      })
      request.on('timeout', () => request.destroy())
      request.on('error', () => resolve(undefined))
    },
  )
  if (answer === undefined) return 'none'
  if (!answer.sandbox) return 'other'
  let proof: unknown
  try {
    proof = (JSON.parse(answer.body) as { proof?: unknown }).proof
  } catch {
    return 'unproven'
  }
  const secret = clientSecret(options.dir)
  return secret !== undefined && isProof(secret, challenge, answer.endpoint, proof) ? 'proven' : 'unproven'
}

/** The port of a base URL, for messages. */
export function portOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl)
    return url.port || (url.protocol === 'https:' ? '443' : '80')
  } catch {
    return '?'
  }
}

/**
 * The built-in sandbox profile: use the sandbox listening at its address when it proved it is the
 * user's own (`found`, what probeSandbox said of it), or run one in this process on a free
 * loopback port, on the same store (`dir`), for the length of the command. A listener that cannot prove
 * it is never sent anything (no key, no customer's data): the command runs in-process and
 * `squatter` says why.
 */
export async function connectSandbox(
  baseUrl: string,
  apiKey: string,
  found: Probed,
  dir: string,
): Promise<Connection> {
  if (found === 'proven')
    return { baseUrl, inProcess: false, squatter: false, notices: [], attempted: [], close: async () => {} }
  const attempted: Attempted[] = []
  const sandbox = await startSandbox({
    dir,
    // The directory's own key (made now if it has none yet), and the key sent (PAY_API_KEY's).
    keys: [...new Set([sandboxKeyOf(dir), apiKey])],
    port: 0,
    checkoutOrigin: baseUrl,
    // Only the notifications this command makes, each attempted once before it ends.
    webhooks: { deliver: 'own', onAttempt: (attempt) => attempted.push(attempt) },
  })
  return {
    baseUrl: sandbox.baseUrl,
    inProcess: true,
    squatter: found !== 'none',
    notices: sandbox.notices,
    attempted,
    close: () => sandbox.close(),
  }
}
