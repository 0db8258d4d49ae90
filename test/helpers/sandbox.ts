import fs from 'node:fs'
import http from 'node:http'
import { createRequire } from 'node:module'
import path from 'node:path'
import type Libsql from 'libsql'
import { SANDBOX_KEY } from '../../src/sandbox/constants.js'
import { settleLinkIn } from '../../src/sandbox/handlers/notify/local.js'
import { PROOF_FILE } from '../../src/sandbox/http/proof.js'
import { type RunningSandbox, startSandbox } from '../../src/sandbox/http/server.js'
import { STORE_FILE } from '../../src/sandbox/store/database.js'
import type { LegacyStore } from '../../src/sandbox/store/legacy.js'
import { SandboxStore } from '../../src/sandbox/store/store.js'
import { SANDBOX_KEY_FILE, sandboxKeyOf } from '../../src/shared/sandbox-key.js'
import { tempDir } from './cli.js'

/**
 * A real sandbox on an ephemeral loopback port with its own store, and clients to talk to it
 * directly: for the sandbox's own tests and to seed or check what an end-to-end run did.
 */

export const KEY_A = SANDBOX_KEY
export const KEY_B = 'sk_test_second_business_0123456789'

export const META_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
export const OBJECT_ID = /^[0-9a-f]{24}$/

export { tempDir }

export interface Answer {
  status: number
  headers: Headers
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON; assertions check the shape
  json: any
}

export interface Client {
  call(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>
}

/** `key` null: no Authorization header. */
export function clientFor(baseUrl: string, key: string | null = KEY_A): Client {
  return {
    async call(method, route, body, headers = {}) {
      const response = await fetch(`${baseUrl}${route}`, {
        method,
        headers: {
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...(key === null ? {} : { Authorization: `Bearer ${key}` }),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      })
      const text = await response.text()
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: response.status, headers: response.headers, text, json }
    },
  }
}

export interface TestSandbox {
  sandbox: RunningSandbox
  baseUrl: string
  /** The first business's key (KEY_A, the well-known sandbox key, by default; the directory's own with `ownKey`). */
  key: string
  dir: string
  /** Seeded package ids of the key's business. */
  packageIds: string[]
  /** Env for runCli: this sandbox as the target, no profile needed. */
  env: Record<string, string>
  /** A raw authenticated request as the first business, to check what the sandbox holds. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the sandbox answers
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
  /** Marks a payment link paid, as the customer paying would. */
  markPaid(linkId: string): Promise<void>
  /** Clients of the first and the second business. */
  a: Client
  b: Client
  close(): Promise<void>
}

/**
 * A sandbox with two businesses (KEY_A, KEY_B unless `keys` says otherwise) on a fresh store.
 * `ownKey`: the first is the directory's own key (made for it), as `sandbox start` with no key
 * serves it and the built-in profile sends it with that PAY_SANDBOX_DIR.
 */
export async function startTestSandbox(
  options: { dir?: string; keys?: string[]; ownKey?: boolean } = {},
): Promise<TestSandbox> {
  const { dir = tempDir('pay-sandbox-') } = options
  const keys = options.keys ?? (options.ownKey ? [sandboxKeyOf(dir), KEY_B] : [KEY_A, KEY_B])
  const sandbox = await startSandbox({ dir, keys, port: 0 })
  const key = keys[0]
  const a = clientFor(sandbox.baseUrl, key)
  return {
    sandbox,
    baseUrl: sandbox.baseUrl,
    key,
    dir,
    packageIds: sandbox.packages[key].map((p) => p._id),
    env: { PAY_API_KEY: key, PAY_BASE_URL: sandbox.baseUrl, PAY_SANDBOX_DIR: dir },
    async request(method, path, body) {
      const answer = await a.call(method, path, body)
      return { status: answer.status, body: answer.text ? JSON.parse(answer.text) : undefined }
    },
    async markPaid(linkId) {
      if (!settleLinkIn(dir, linkId, 'paid')) throw new Error(`no payment link ${linkId} to pay`)
    },
    a,
    b: clientFor(sandbox.baseUrl, keys[1] ?? KEY_B),
    close: () => sandbox.close(),
  }
}

export const VALID_LINK = { email: 'ada@example.com', currency: 'NGN', amount: '25.50', title: 'Invoice 42' }
export const VALID_TOKEN = { email: 'ada@example.com', title: 'Card on file', description: 'Monthly billing' }

export const invalid = (errors: Record<string, string[]>) => ({
  message: 'The given data was invalid.',
  errors,
})
export const required = (field: string) => [`The ${field} field is required.`]

export interface RawAnswer {
  status: number
  headers: import('node:http').IncomingHttpHeaders
  text: string
}

/** A request through node:http, for what fetch refuses to send (a Host header, a chunked body, odd methods). */
export function rawRequest(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer[] },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${baseUrl}${options.path}`,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        )
      },
    )
    request.on('error', reject)
    if (Array.isArray(options.body)) {
      for (const chunk of options.body) request.write(chunk)
      request.end()
    } else {
      request.end(options.body)
    }
  })
}

const libsql = () => createRequire(import.meta.url)('libsql') as typeof Libsql

/** Sets the schema version of a sandbox database, as a later pay would have left it. */
export function setUserVersion(file: string, version: number): void {
  const db = new (libsql())(file)
  try {
    db.exec(`PRAGMA user_version = ${version}`)
  } finally {
    db.close()
  }
}

/** The rows a query reads from the store of `dir`, beside the sandbox that may be using it. */
export function queryStore(dir: string, sql: string, ...parameters: unknown[]): Record<string, unknown>[] {
  const db = new (libsql())(path.join(dir, STORE_FILE))
  try {
    return db.prepare(sql).all(...parameters) as Record<string, unknown>[]
  } finally {
    db.close()
  }
}

/**
 * What the sandbox in `dir` holds, in the shape of pay 0.1's store.json
 * (`{format, version, businesses: {<sha256 of key>: {business_id, tokenizations, payment_links,
 * subscriptions}}}`, records keyed by _id in creation order): for tests that look at the store
 * itself. The database must pass SQLite's integrity check first.
 */
export function readStore(dir: string): LegacyStore {
  const db = new (libsql())(path.join(dir, STORE_FILE))
  try {
    const check = db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]
    if (check.length !== 1 || check[0].integrity_check !== 'ok') {
      throw new Error(`the sandbox store in ${dir} fails its integrity check: ${JSON.stringify(check)}`)
    }
  } finally {
    db.close()
  }
  const store = new SandboxStore(dir)
  try {
    return store.snapshot()
  } finally {
    store.close()
  }
}

/** readStore as text, to compare the whole store before and after. */
export const storeText = (dir: string): string => JSON.stringify(readStore(dir))

/**
 * Makes pay, run with PAY_SANDBOX_DIR=`localDir`, trust the sandbox serving `serverDir`: a copy of
 * that sandbox's secret, with which it proves it is the user's own (src/sandbox/http/proof.ts),
 * and of the directory's own key when it has one (src/shared/sandbox-key.ts), which the built-in
 * profile sends. For tests that keep the command's local store apart from the server's, to see
 * which one was used.
 */
export function trustSandbox(serverDir: string, localDir: string): void {
  for (const file of [PROOF_FILE, SANDBOX_KEY_FILE]) {
    if (file === SANDBOX_KEY_FILE && !fs.existsSync(path.join(serverDir, file))) continue
    fs.copyFileSync(path.join(serverDir, file), path.join(localDir, file))
    fs.chmodSync(path.join(localDir, file), 0o600)
  }
}
