/**
 * What the sandbox checks of a connection and of a request before any route runs: the `Host` a
 * request names (DNS rebinding), the web `Origin` of an API request, and how many connections it
 * keeps and for how long.
 */
import type http from 'node:http'
import type { Socket } from 'node:net'
import os from 'node:os'

/** The names of the loopback interface, as a `Host` header writes them. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]']

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]'])

/** `name[:port]` or `[v6][:port]`, lower-cased. */
const HOST = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::([0-9]{1,5}))?$/

/** A host as a URL or a `Host` header writes it: brackets around an IPv6 address. */
function asUrlHost(host: string): string {
  const lower = host.toLowerCase()
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower
}

/**
 * The names and the port a request may address the sandbox by: the loopback names, the `--host`
 * it was started with (for an address of every interface, each address of this machine and its
 * host name), and the port it listens on. A browser on a page of a rebound name (`rebind.test`
 * resolved to 127.0.0.1) sends that name: refused.
 */
export class Addresses {
  private readonly names: Set<string>

  constructor(
    host: string,
    readonly port: number,
  ) {
    this.names = new Set(LOOPBACK_NAMES)
    if (WILDCARDS.has(host)) {
      for (const list of Object.values(os.networkInterfaces())) {
        for (const address of list ?? []) this.names.add(asUrlHost(address.address))
      }
      this.names.add(os.hostname().toLowerCase())
    } else {
      this.names.add(asUrlHost(host))
    }
  }

  /** `host:port` as the request named it (lower case), when it names this sandbox; else undefined. */
  allowedHost(header: string | undefined): string | undefined {
    if (header === undefined) return undefined
    const match = HOST.exec(header.trim().toLowerCase())
    if (!match) return undefined
    const port = match[2] === undefined ? 80 : Number(match[2])
    if (port !== this.port || !this.names.has(match[1])) return undefined
    return `${match[1]}:${port}`
  }

  /** Whether a web `Origin` is one of this sandbox's own (`http://` + an allowed host). */
  allowedOrigin(origin: string): boolean {
    let url: URL
    try {
      url = new URL(origin)
    } catch {
      return false
    }
    if (url.protocol !== 'http:' || url.origin !== origin.toLowerCase()) return false
    return this.allowedHost(url.port === '' ? `${url.hostname}:80` : url.host) !== undefined
  }

  /** How the 421 answer names what is accepted. */
  describe(): string {
    return `127.0.0.1, localhost or [::1]${this.names.size > LOOPBACK_NAMES.length ? ' (or the address it was started on)' : ''}, port ${this.port}`
  }
}

/** How many connections the sandbox keeps, and how long it waits for each part of a request. */
export interface ServerLimits {
  /**
   * Open connections at most. A connection beyond it closes the connection idle the longest (one
   * that is not in a request); when every one is in a request, the new one is closed.
   */
  maxConnections: number
  /** From a connection's start or the end of its last answer to the end of a request's headers. */
  headersTimeoutMs: number
  /** From a request's start to the end of its body. */
  requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxConnections: 512,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
}

/** The options of http.createServer that carry the limits' timeouts. */
export function serverOptions(limits: ServerLimits): http.ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // How often Node looks for connections past their headers or request timeout.
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
  }
}

/**
 * Keeps at most `maxConnections` connections on `server`, least recently used first out (a
 * connection in a request is never closed for another). Returns a function that closes every
 * connection not in a request (for closing the server).
 */
export function limitConnections(server: http.Server, maxConnections: number): () => void {
  /** Open connections, least recently used first, with how many requests each has under way. */
  const open = new Map<Socket, number>()
  const closeIdle = (count: number) => {
    for (const [socket, busy] of open) {
      if (count <= 0) return
      if (busy > 0) continue
      open.delete(socket)
      socket.destroy()
      count--
    }
  }
  server.on('connection', (socket: Socket) => {
    if (open.size >= maxConnections) closeIdle(open.size - maxConnections + 1)
    if (open.size >= maxConnections) {
      socket.destroy()
      return
    }
    open.set(socket, 0)
    socket.once('close', () => open.delete(socket))
  })
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const socket = request.socket
    if (!open.has(socket)) return
    open.set(socket, (open.get(socket) ?? 0) + 1)
    response.once('close', () => {
      const busy = open.get(socket)
      if (busy === undefined) return
      // Used last: to the end of the order.
      open.delete(socket)
      if (!socket.destroyed) open.set(socket, busy - 1)
    })
  })
  return () => closeIdle(open.size)
}
