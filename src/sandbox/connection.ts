import http from 'node:http'
import { createRequire } from 'node:module'
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

/**
 * What answers at baseUrl: a pay sandbox (its health route says so, with `X-Pay-Sandbox: 1`), some
 * other server, or nothing (no connection, no answer within the timeout). No key is sent.
 */
export function probeSandbox(baseUrl: string, timeoutMs = 1000): Promise<'sandbox' | 'other' | 'none'> {
  let url: URL
  try {
    url = new URL(`${baseUrl.replace(/\/+$/, '')}/_sandbox/health`)
  } catch {
    return Promise.resolve('none')
  }
  // https only for a base URL that asks for it: no command start-up pays for loading TLS.
  const client =
    url.protocol === 'http:'
      ? http
      : url.protocol === 'https:'
        ? (createRequire(import.meta.url)('node:https') as typeof http)
        : undefined
  if (!client) return Promise.resolve('none')
  return new Promise((resolve) => {
    const request = client.get(url, { timeout: timeoutMs, agent: false }, (response) => {
      response.resume()
      const sandbox = response.statusCode === 200 && response.headers['x-pay-sandbox'] === '1'
      resolve(sandbox ? 'sandbox' : 'other')
    })
    request.on('timeout', () => request.destroy())
    request.on('error', () => resolve('none'))
  })
}

/**
 * The built-in sandbox profile: use the sandbox listening at its address, or run one in this
 * process on a free loopback port, on the same store, for the length of the command.
 */
export async function connectSandbox(baseUrl: string, apiKey: string): Promise<Connection> {
  if ((await probeSandbox(baseUrl)) === 'sandbox')
    return { baseUrl, inProcess: false, notices: [], close: async () => {} }
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
