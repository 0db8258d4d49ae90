import http from 'node:http'
import { SANDBOX_KEY, sandboxDir } from './constants.js'
import type { Notice } from './legacy.js'

export interface Connection {
  baseUrl: string
  /** The sandbox runs inside this process for this one command. */
  inProcess: boolean
  /** What opening the in-process sandbox's store did that a person should hear of. */
  notices: Notice[]
  close(): Promise<void>
}

/** True when a pay sandbox answers at baseUrl (any other server there does not count). */
export function sandboxIsUp(baseUrl: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get(
      `${baseUrl}/_sandbox/health`,
      { timeout: timeoutMs, agent: false },
      (response) => {
        response.resume()
        resolve(response.statusCode === 200 && response.headers['x-pay-sandbox'] === '1')
      },
    )
    request.on('timeout', () => request.destroy())
    request.on('error', () => resolve(false))
  })
}

/**
 * The built-in sandbox profile: use the sandbox listening at its address, or run one in this
 * process on a free loopback port, on the same store, for the length of the command.
 */
export async function connectSandbox(baseUrl: string, apiKey: string): Promise<Connection> {
  if (await sandboxIsUp(baseUrl)) return { baseUrl, inProcess: false, notices: [], close: async () => {} }
  const { startSandbox } = await import('./server.js')
  const sandbox = await startSandbox({
    dir: sandboxDir(),
    keys: [...new Set([SANDBOX_KEY, apiKey])],
    port: 0,
    checkoutOrigin: baseUrl,
  })
  return {
    baseUrl: sandbox.baseUrl,
    inProcess: true,
    notices: sandbox.notices,
    close: () => sandbox.close(),
  }
}
