import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/**
 * A proxy in front of a real server (the test sandbox) that can slow answers down, inject
 * faults and count requests in flight: the server's state stays the truth to check against.
 *
 *   const proxy = await startProxy(sandbox.baseUrl, (req) => ({ delayMs: 40 }))
 *   await runCli([...], { env: { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl } })
 *   expect(proxy.maxInFlight).toBe(4)
 */

export type Fault =
  /** 503 without forwarding: the server never sees the request. */
  | 'unavailable-before'
  /** TCP reset without forwarding. */
  | 'reset-before'
  /** Forwarded (the server acts on it), then 503 instead of the server's answer. */
  | 'unavailable-after'
  /** Forwarded (the server acts on it), then the connection reset instead of the answer. */
  | 'reset-after'

export interface Decision {
  delayMs?: number
  /**
   * Held until this many requests are in flight at once (or a second has passed), then handled:
   * a client allowed N requests at once reaches N however slow the machine, so a test of its
   * bound does not hang on timing.
   */
  gatherInFlight?: number
  /** Forwarded at once, then the server's answer held back this long (past a client's timeout). */
  answerDelayMs?: number
  fault?: Fault
}

export interface ProxiedRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  /** The fault injected into this request's answer, if any. */
  fault?: Fault
  /** Whether the request reached the server behind the proxy. */
  forwarded: boolean
}

export type Decide = (request: { method: string; path: string }) => Decision

export interface TestProxy {
  baseUrl: string
  /** Every request, in arrival order. */
  requests: ProxiedRequest[]
  /** Requests received and not yet answered. */
  readonly inFlight: number
  /** The most requests ever in flight at once. */
  readonly maxInFlight: number
  /** Replaces the decision for the next requests. */
  decide(next: Decide): void
  /**
   * Resolves once every request received has been dealt with, forwarding included (a request
   * whose client went away may still reach the server after that).
   */
  idle(): Promise<void>
  close(): Promise<void>
}

/** The message of an injected 503: a comma and quotes, to exercise CSV escaping downstream. */
export const UNAVAILABLE_MESSAGE = 'Service Unavailable, "maintenance" window'

const GATHER_LIMIT_MS = 1000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length'])

export async function startProxy(target: string, decide: Decide = () => ({})): Promise<TestProxy> {
  let current = decide
  let inFlight = 0
  let maxInFlight = 0
  let handling = 0
  const requests: ProxiedRequest[] = []
  const sockets = new Set<Socket>()
  let gathering: (() => void)[] = []

  const gather = (count: number) =>
    new Promise<void>((resolve) => {
      if (inFlight >= count) {
        for (const release of gathering) release()
        gathering = []
        return resolve()
      }
      const timer = setTimeout(release, GATHER_LIMIT_MS)
      function release() {
        clearTimeout(timer)
        resolve()
      }
      gathering.push(release)
    })

  const reset = (response: http.ServerResponse) => {
    const socket = response.socket as (Socket & { resetAndDestroy?: () => void }) | null
    if (socket?.resetAndDestroy) socket.resetAndDestroy()
    else socket?.destroy()
  }
  const unavailable = (response: http.ServerResponse) => {
    response.writeHead(503, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ message: UNAVAILABLE_MESSAGE }))
  }

  const server = http.createServer((req, res) => {
    inFlight += 1
    maxInFlight = Math.max(maxInFlight, inFlight)
    let counted = true
    const done = () => {
      if (!counted) return
      counted = false
      inFlight -= 1
    }
    res.on('finish', done)
    res.on('close', done)
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      handling += 1
      const method = req.method ?? 'GET'
      const path = req.url ?? '/'
      const decision = current({ method, path })
      const recorded: ProxiedRequest = {
        method,
        path,
        headers: req.headers,
        fault: decision.fault,
        forwarded: false,
      }
      requests.push(recorded)
      try {
        if (decision.gatherInFlight) await gather(decision.gatherInFlight)
        if (decision.delayMs) await sleep(decision.delayMs)
        if (decision.fault === 'unavailable-before') return unavailable(res)
        if (decision.fault === 'reset-before') return reset(res)
        const headers: Record<string, string> = {}
        for (const [name, value] of Object.entries(req.headers)) {
          if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value
        }
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined
        recorded.forwarded = true
        const answer = await fetch(`${target}${path}`, { method, headers, body, redirect: 'manual' })
        const text = await answer.text()
        if (decision.answerDelayMs) await sleep(decision.answerDelayMs)
        if (decision.fault === 'unavailable-after') return unavailable(res)
        if (decision.fault === 'reset-after') return reset(res)
        const contentType = answer.headers.get('content-type')
        res.writeHead(answer.status, contentType ? { 'content-type': contentType } : {})
        res.end(text)
      } catch (error) {
        if (!res.headersSent) {
          res.writeHead(599, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ message: `proxy: ${String(error)}` }))
        }
      } finally {
        handling -= 1
      }
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    get inFlight() {
      return inFlight
    },
    get maxInFlight() {
      return maxInFlight
    },
    decide(next) {
      current = next
    },
    async idle() {
      while (handling > 0) await sleep(10)
    },
    close() {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
