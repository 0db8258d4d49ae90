import http from 'node:http'
import type Https from 'node:https'
import { createRequire } from 'node:module'

/**
 * One HTTP exchange, nothing more: the request sent on Node's keep-alive agents, the answer read
 * whole within a byte cap and a deadline, no redirect followed, no retry, no decoding (the
 * transport, transport.ts, does each of those itself). node:http rather than got: a request through
 * got cost about four times the CPU of the same request through node:http (docs/performance.md), and
 * loading got cost every command start-up a few milliseconds more.
 */

/** An answer as it came: status line, headers, and the body's bytes. */
export interface WireResponse {
  statusCode: number
  statusMessage: string
  httpVersion: string
  headers: http.IncomingHttpHeaders
  rawHeaders: string[]
  body: Buffer
}

/**
 * Why an exchange ended without a whole answer: `code` as Node names a connection failure
 * (ECONNREFUSED, ECONNRESET…), ETIMEDOUT past the deadline, TOO_LARGE past the cap; `cutOff`
 * when the status line arrived and the connection closed before the body's end.
 */
export class WireError extends Error {
  constructor(
    readonly code: string,
    readonly cutOff = false,
  ) {
    super(code)
    this.name = 'WireError'
  }
}

export interface WireRequest {
  method: string
  headers: Record<string, string>
  body?: string
  /** The whole exchange, from sending to the body's last byte. */
  timeoutMs: number
  /** The most bytes of body read; past it the exchange stops (TOO_LARGE). */
  maxBytes: number
  /** Makes the connections of an http: URL (the user's sandbox: each proved); Node's own by default. */
  agent?: http.Agent
}

let https: typeof Https | undefined

/** node:https for an https: URL, loaded then: a plain-http run never loads TLS. */
function clientOf(url: URL): typeof http | typeof Https {
  if (url.protocol !== 'https:') return http
  https ??= createRequire(import.meta.url)('node:https') as typeof Https
  return https
}

export function exchangeOnce(address: string, options: WireRequest): Promise<WireResponse> {
  const url = new URL(address)
  return new Promise<WireResponse>((resolve, reject) => {
    let done = false
    let request: http.ClientRequest | undefined
    const fail = (error: unknown) => {
      if (done) return
      done = true
      clearTimeout(timer)
      request?.destroy()
      reject(error)
    }
    const timer = setTimeout(() => fail(new WireError('ETIMEDOUT')), options.timeoutMs)
    const headers =
      options.body === undefined
        ? options.headers
        : // Node frames the body of a GET or DELETE only when told its length.
          { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) }
    try {
      const agent = url.protocol === 'http:' ? options.agent : undefined
      request = clientOf(url).request(url, { method: options.method, headers, ...(agent ? { agent } : {}) })
    } catch (error) {
      // A header Node refuses (a character it cannot send): nothing went out.
      return fail(error)
    }
    request.on('error', fail)
    request.on('response', (response) => {
      if (Number(response.headers['content-length']) > options.maxBytes)
        return fail(new WireError('TOO_LARGE'))
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > options.maxBytes) fail(new WireError('TOO_LARGE'))
        else chunks.push(chunk)
      })
      const cut = (error?: NodeJS.ErrnoException) => fail(new WireError(error?.code ?? 'ECONNRESET', true))
      response.on('error', cut)
      response.on('close', () => {
        if (!response.complete) cut()
      })
      response.on('end', () => {
        if (done) return
        done = true
        clearTimeout(timer)
        resolve({
          statusCode: response.statusCode ?? 0,
          statusMessage: response.statusMessage ?? '',
          httpVersion: response.httpVersion,
          headers: response.headers,
          rawHeaders: response.rawHeaders,
          body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size),
        })
      })
    })
    request.end(options.body)
  })
}
