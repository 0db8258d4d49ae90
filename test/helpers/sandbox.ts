import { SANDBOX_KEY } from '../../src/sandbox/constants.js'
import { startSandbox } from '../../src/sandbox/server.js'
import { tempDir } from './cli.js'

export interface TestSandbox {
  baseUrl: string
  key: string
  dir: string
  /** Seeded package ids of the key's business. */
  packageIds: string[]
  /** Env for runCli: this sandbox as the target, no profile needed. */
  env: Record<string, string>
  /** A raw authenticated request to the sandbox, to check what it holds. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the sandbox answers
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
  close(): Promise<void>
}

/** A real sandbox on an ephemeral loopback port with its own store, for end-to-end tests. */
export async function startTestSandbox(keys: string[] = [SANDBOX_KEY]): Promise<TestSandbox> {
  const dir = tempDir('pay-sandbox-')
  const sandbox = await startSandbox({ dir, keys, port: 0 })
  const key = keys[0]
  return {
    baseUrl: sandbox.baseUrl,
    key,
    dir,
    packageIds: sandbox.packages[key].map((p) => p._id),
    env: { PAY_API_KEY: key, PAY_BASE_URL: sandbox.baseUrl, PAY_SANDBOX_DIR: dir },
    async request(method, path, body) {
      const response = await fetch(`${sandbox.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          accept: 'application/json',
          'content-type': 'application/json',
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await response.text()
      return { status: response.status, body: text ? JSON.parse(text) : undefined }
    },
    close: () => sandbox.close(),
  }
}
