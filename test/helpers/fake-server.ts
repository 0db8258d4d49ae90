import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'

/** What a test server received, for asserting exactly what pay sent. */
export interface RecordedRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: string
}

export type Handler = (request: RecordedRequest, response: http.ServerResponse) => void | Promise<void>

export interface FakeServer {
  baseUrl: string
  requests: RecordedRequest[]
  /** Replaces the handler for the next requests. */
  handle(handler: Handler): void
  close(): Promise<void>
}

/**
 * A loopback HTTP server that records every request and answers with the test's handler; an
 * HTTPS one at https://localhost:PORT when given a key and certificate.
 */
export async function startFakeServer(
  handler: Handler = (_, res) => sendJson(res, 404, { message: 'Not found' }),
  /** `port`: listen there (a squatter taking a port another server left); default a free one. */
  options: { tls?: { key: string; cert: string }; port?: number } = {},
) {
  let current = handler
  const requests: RecordedRequest[] = []
  const sockets = new Set<import('node:net').Socket>()
  const listener: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const recorded = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      requests.push(recorded)
      try {
        await current(recorded, res)
      } catch (error) {
        if (!res.headersSent) sendJson(res, 599, { message: String(error) })
      }
    })
  }
  const server = options.tls ? https.createServer(options.tls, listener) : http.createServer(listener)
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  const fake: FakeServer = {
    baseUrl: options.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next
    },
    close() {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
  return fake
}

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

/** The success envelope of docs/spec/payment-service-api.md 2.1 around data. */
export function envelope(data: unknown) {
  return {
    success: true,
    data,
    errors: null,
    meta: { timestamp: '2026-01-01 00:00:00 UTC', timezone: 'UTC' },
  }
}
