/**
 * A receiver of the sandbox's notifications in this process (`pay sandbox listen`, `pay links
 * wait`): a loopback server at a random path, registered with the sandbox as an endpoint of the
 * key's business that lives while it is renewed (a lease of LEASE_SECONDS, renewed every
 * RENEW_MS), so that one left by a process killed with `kill -9` goes on its own.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { PayApi } from '../../../api/client.js'
import { randomHex } from '../../../shared/crypto.js'
import type { Rec } from '../../../values.js'
import { addSandboxWebhook, removeSandboxWebhook } from '../controls.js'

/** The endpoint's lease, and how often it is renewed: a receiver gone is forgotten within a lease. */
export const LEASE_SECONDS = 20
const RENEW_MS = 5_000
/** The largest notification taken: they are about half a kilobyte. */
const MAX_NOTIFICATION_BYTES = 1024 * 1024

/** A notification as it came: its body, and the request's headers (name, value, … in order). */
export type Handle = (body: string, headers: string[]) => Promise<number>

export interface Receiver {
  /** Where the sandbox sends: `http://127.0.0.1:PORT/<name>/<random>`. */
  url: string
  /** The endpoint it is registered as. */
  endpoint: Rec
  /** Resolves with what went wrong when a renewal fails (the sandbox gone, or its answer). */
  lost: Promise<unknown>
  /**
   * Stops renewing and closes the server; the endpoint is removed, unless `left` (the sandbox is
   * gone: its lease ends it).
   */
  close(options?: { left?: boolean }): Promise<void>
}

/**
 * Starts a receiver under `/<name>/` that answers each POST as `handle` says, and registers it
 * with the sandbox of `api`; nothing is left behind when the registration fails.
 */
export async function receiveNotifications(api: PayApi, name: string, handle: Handle): Promise<Receiver> {
  const server = await startServer(`/${name}/${randomHex(12)}`, handle)
  let endpoint: Rec
  try {
    endpoint = await addSandboxWebhook(api, { url: server.url, lease_seconds: LEASE_SECONDS })
  } catch (error) {
    await server.close()
    throw error
  }
  let renewal: NodeJS.Timeout | undefined
  let closed = false
  const lost = new Promise<unknown>((resolve) => {
    const renew = () => {
      renewal = setTimeout(async () => {
        try {
          await addSandboxWebhook(api, { url: server.url, lease_seconds: LEASE_SECONDS }, { renewal: true })
          if (!closed) renew()
        } catch (error) {
          if (!closed) resolve(error)
        }
      }, RENEW_MS)
    }
    renew()
  })
  return {
    url: server.url,
    endpoint,
    lost,
    async close({ left = false } = {}) {
      closed = true
      clearTimeout(renewal)
      await server.close()
      if (!left) await removeSandboxWebhook(api, String(endpoint._id)).catch(() => {})
    },
  }
}

/** A loopback server that takes POSTs at `path` and answers each with what `handle` says. */
async function startServer(path: string, handle: Handle) {
  const server = http.createServer((request, response) => {
    const answer = (status: number) => response.writeHead(status, { 'Content-Length': 0 }).end()
    if (request.method !== 'POST' || request.url !== path) return answer(404)
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_NOTIFICATION_BYTES) chunks.push(chunk)
    })
    request.on('end', () => {
      if (size > MAX_NOTIFICATION_BYTES) return answer(413)
      handle(Buffer.concat(chunks).toString('utf8'), request.rawHeaders).then(answer, () => answer(500))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
