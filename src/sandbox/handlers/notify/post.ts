/**
 * One attempt of a notification: a JSON POST to its endpoint, as the service makes it. Nothing of
 * the business's but the body travels (no API key, no signature key: the hash in the body is
 * the proof); redirects are not followed (a 3xx is an answer that is not 2xx); the whole attempt
 * has `timeoutMs`, and of the answer at most `maxAnswerBytes` is read before the connection is
 * cut, so that a receiver that hangs or answers without end costs the sandbox nothing.
 */
import http from 'node:http'
import https from 'node:https'
import { webhookUrlProblem } from './url.js'

export interface PostLimits {
  timeoutMs: number
  maxAnswerBytes: number
  /**
   * What went wrong said only as "unreachable" or "timed out", never why (refused, no such host,
   * reset): a sandbox that listens beyond loopback takes endpoints from anyone who has a key, and
   * its errors would tell them which hosts and ports of its network answer.
   */
  coarseErrors?: boolean
}

/** The words of an attempt with no answer, when errors are coarse. */
const UNREACHABLE = 'unreachable'
const TIMED_OUT = 'timed out'

/** What came of a POST: the status of its answer, or what went wrong; how long it took. */
export interface Posted {
  status: number | null
  error: string | null
  ms: number
  /** Cut short by the notifier closing: not an attempt to record. */
  aborted: boolean
}

/** Keep-alive agents for the endpoints' connections, one per protocol. */
export class Agents {
  readonly http = new http.Agent({ keepAlive: true, maxSockets: 16 })
  readonly https = new https.Agent({ keepAlive: true, maxSockets: 16 })
  destroy(): void {
    this.http.destroy()
    this.https.destroy()
  }
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
}

/** What went wrong, in a few words with its code: never a body, never a header. */
function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code && REASONS[code]) return `${REASONS[code]} (${code})`
  return code ?? (error as Error | undefined)?.message ?? 'the request failed'
}

/** POSTs `body` to `url`; never throws. */
export function postNotification(
  url: string,
  body: string,
  limits: PostLimits,
  agents: Agents,
  signal: AbortSignal,
): Promise<Posted> {
  const started = process.hrtime.bigint()
  const ms = () => Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10
  const failed = (error: unknown) => (limits.coarseErrors ? UNREACHABLE : reasonOf(error))
  // An endpoint kept from before the rule: its credentials would go out as Basic auth.
  if (webhookUrlProblem(url) === 'credentials') {
    return Promise.resolve({
      status: null,
      error: 'not sent: its URL holds a user name or password',
      ms: 0,
      aborted: false,
    })
  }
  return new Promise<Posted>((resolve) => {
    let done = false
    const finish = (status: number | null, error: string | null) => {
      if (done) return
      done = true
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      resolve({ status, error, ms: ms(), aborted: signal.aborted })
    }
    let request: http.ClientRequest
    try {
      const target = new URL(url)
      const client = target.protocol === 'https:' ? https : http
      request = client.request(target, {
        method: 'POST',
        agent: target.protocol === 'https:' ? agents.https : agents.http,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': 'pay-sandbox',
        },
      })
    } catch (error) {
      resolve({ status: null, error: failed(error), ms: ms(), aborted: false })
      return
    }
    const seconds = limits.timeoutMs / 1000
    const timer = setTimeout(() => {
      request.destroy()
      finish(null, limits.coarseErrors ? TIMED_OUT : `no answer within ${seconds} s`)
    }, limits.timeoutMs)
    const onAbort = () => {
      request.destroy()
      finish(null, 'stopped: the sandbox closed')
    }
    signal.addEventListener('abort', onAbort)
    request.on('response', (response) => {
      const status = response.statusCode ?? null
      let read = 0
      response.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > limits.maxAnswerBytes) {
          // The status is all the sandbox needs: the rest of an endless answer is never read.
          response.destroy()
          finish(status, null)
        }
      })
      response.on('end', () => finish(status, null))
      response.on('error', () => finish(status, null))
      response.on('close', () => finish(status, null))
    })
    request.on('error', (error) => finish(null, failed(error)))
    request.end(body)
  })
}
