/**
 * What the sandbox checks of a connection and of a request before any route runs: the `Host` a
 * request names (DNS rebinding), the web `Origin` of an API request, and how many connections it
 * keeps and for how long.
 */
import type http from 'node:http'
import type { Socket } from 'node:net'
import os from 'node:os'
import type { Reply } from '../domain/answers.js'
import { misdirectedPage } from '../handlers/pages/templates.js'

/** The names of the loopback interface, as a `Host` header writes them. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]']

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]'])

/** `name[:port]` or `[v6][:port]`, lower-cased. */
const HOST = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::([0-9]{1,5}))?$/

/**
 * Whether a sandbox listening on `host` can be reached from this machine only: a loopback address
 * or name. Anything else (`0.0.0.0`, an interface's address, a name) may be reached from the
 * network.
 */
export function isLoopbackHost(host: string): boolean {
  const lower = host.toLowerCase()
  return (
    lower === 'localhost' ||
    lower === '::1' ||
    lower === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(lower)
  )
}

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

  /** `http://host:port` of the server listening on `host` (urlHostOf). */
  baseUrl(host: string): string {
    return `http://${urlHostOf(host)}:${this.port}`
  }

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

/** The first path segment of a customer page: those answer HTML, everything else JSON. */
const isPagePath = (rawUrl: string) => /^\/checkout(?:[/?#]|$)/.test(rawUrl)

/**
 * Before any route: a request must name this sandbox in its Host (421 otherwise: a page of
 * another name rebound to this address), and an API request that a web page of another origin
 * sent is refused (403). The customer pages check the origin of their forms themselves.
 */
export function refusal(request: http.IncomingMessage, addresses: Addresses): Reply | undefined {
  const page = isPagePath(request.url ?? '/')
  // Node keeps the first of several Host lines; a request with more than one names no one host.
  const hosts = request.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'host').length
  if (hosts !== 1 || addresses.allowedHost(request.headers.host) === undefined) {
    if (page) return misdirectedPage(addresses.describe())
    return {
      status: 421,
      body: {
        message: `Misdirected request: this sandbox answers only requests addressed to it as ${addresses.describe()}.`,
      },
      headers: { Connection: 'close' },
    }
  }
  const origin = request.headers.origin
  if (!page && origin !== undefined && !addresses.allowedOrigin(origin)) {
    return {
      status: 403,
      body: { message: 'This sandbox does not answer API requests from web pages of another origin.' },
    }
  }
  return undefined
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
  /**
   * Requests a fault holds at once (hang, latency): past it, such a fault is answered 503 at
   * once, so that held requests never take every connection.
   */
  maxHeldRequests: number
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxConnections: 512,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeldRequests: 128,
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
 * Keeps at most `maxConnections` connections on `server`. A connection past the cap closes the one
 * used least recently among those that wait on their client or on a fault: idle (between
 * requests, or still sending its headers), held by a fault (`isHeld`: hang, latency), or still
 * sending its body (a slow upload, a payment form whose body never comes). A request being
 * answered is never closed for another; when every connection is in one, the new one is closed.
 * Returns a function that closes every connection not in a request (for closing the server).
 */
export function limitConnections(
  server: http.Server,
  maxConnections: number,
  isHeld: (socket: Socket) => boolean = () => false,
): () => void {
  /** Open connections, least recently used first, with the requests each has under way. */
  const open = new Map<Socket, Set<http.IncomingMessage>>()
  const waiting = (socket: Socket, requests: Set<http.IncomingMessage>) =>
    requests.size === 0 || isHeld(socket) || [...requests].some((request) => !request.complete)
  /** Closes up to `count` connections that `which` picks, least recently used first. */
  const close = (count: number, which: (socket: Socket, requests: Set<http.IncomingMessage>) => boolean) => {
    for (const [socket, requests] of open) {
      if (count <= 0) return
      if (!which(socket, requests)) continue
      open.delete(socket)
      socket.destroy()
      count--
    }
  }
  server.on('connection', (socket: Socket) => {
    if (open.size >= maxConnections) close(open.size - maxConnections + 1, waiting)
    if (open.size >= maxConnections) {
      socket.destroy()
      return
    }
    open.set(socket, new Set())
    socket.once('close', () => open.delete(socket))
  })
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const socket = request.socket
    const requests = open.get(socket)
    if (!requests) return
    requests.add(request)
    response.once('close', () => {
      const still = open.get(socket)
      if (still === undefined) return
      still.delete(request)
      // Used last: to the end of the order.
      open.delete(socket)
      if (!socket.destroyed) open.set(socket, still)
    })
  })
  return () => close(open.size, (_, requests) => requests.size === 0)
}

/** `http://` + host as written in a URL: brackets for IPv6, loopback for "any address". */
function urlHostOf(host: string): string {
  if (host === '' || host === '0.0.0.0') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') ? `[${host}]` : host
}
