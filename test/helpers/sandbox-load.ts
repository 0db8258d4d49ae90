import { isDeepStrictEqual } from 'node:util'
import { expect } from 'vitest'
import { BIN, cleanEnv, tempDir } from './cli.js'
import type { Json } from './links.js'
import { bundleEntry, startSandboxProcess } from './processes.js'
import { type Client, KEY_A, KEY_B, OBJECT_ID } from './sandbox.js'

/**
 * For the tests that load the sandbox hard (soak, kill -9) or start it as a process of its own:
 * seeded randomness, the sandbox as a process (test/helpers/sandbox-main.ts bundled from source,
 * or `pay sandbox start`), and what a well-formed record is.
 */

export const SOAK_SECONDS = Number(process.env.PAY_SOAK_SECONDS || 20)
export const SOAK_CLIENTS = 50
export const KILL_ROUNDS = 6
export const KILL_WORKERS = 16
/** Seeds every random choice here; printed by the soak and kill -9 tests, PAY_SANDBOX_SEED reuses one. */
export const SEED = Number(process.env.PAY_SANDBOX_SEED || Math.floor(Math.random() * 2 ** 31))

export const LINK_NOT_FOUND = { message: 'Payment link not found.' }
export const SUB_NOT_FOUND = { message: 'Subscription not found.' }

/** mulberry32: small, seedable, good enough to pick operations. */
export function randomSource(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    chance: (probability: number) => next() < probability,
    /** One of `choices`, each as likely as its weight. */
    weighted: <T>(choices: readonly (readonly [T, number])[]): T => {
      let ticket = next() * choices.reduce((sum, [, weight]) => sum + weight, 0)
      for (const [choice, weight] of choices) {
        ticket -= weight
        if (ticket < 0) return choice
      }
      return choices[choices.length - 1][0]
    },
  }
}
export type Random = ReturnType<typeof randomSource>

let mainScript: Promise<string> | undefined

/** test/helpers/sandbox-main.ts on `dir`, both businesses' keys, a free port. */
export async function startMain(dir: string, extra: string[] = []) {
  mainScript ??= bundleEntry('test/helpers/sandbox-main.ts').then((bundle) => bundle.file)
  return startSandboxProcess([
    await mainScript,
    '--dir',
    dir,
    '--port',
    '0',
    '--key',
    KEY_A,
    '--key',
    KEY_B,
    ...extra,
  ])
}

/** `pay sandbox start --port 0 --json` through the real bin/run.js. */
export const startCliSandbox = (extra: string[] = []) =>
  startSandboxProcess(
    [BIN, 'sandbox', 'start', '--port', '0', '--json', ...extra],
    cleanEnv({ PAY_SANDBOX_DIR: tempDir('pay-sandbox-') }),
  )

/** Every record a list endpoint shows the caller, walking all its pages. */
export async function listAll(client: Client, route: string, perPage = 500): Promise<Map<string, Json>> {
  const records = new Map<string, Json>()
  for (let page = 1; ; page++) {
    const answer = await client.call('GET', `${route}?per_page=${perPage}&page=${page}`)
    expect(answer.status).toBe(200)
    for (const record of answer.json.data.data) records.set(record._id, record)
    if (page >= answer.json.data.last_page) {
      expect(records.size).toBe(answer.json.data.total)
      return records
    }
  }
}

export const withoutUpdatedAt = ({ updated_at: _updatedAt, ...rest }: Json) => rest

/** `next` is `previous` with `fields` set, and a later updated_at. */
export const isChangeOf = (next: Json, previous: Json, fields: Json) =>
  isDeepStrictEqual(withoutUpdatedAt(next), withoutUpdatedAt({ ...previous, ...fields })) &&
  next.updated_at > previous.updated_at

/**
 * A record with its page addresses (payment_url, activation_url) cut to their paths: the store
 * keeps only the path, and each answer names the address of the sandbox that served it, so a
 * record read after a restart on another port differs from its first answer only there.
 */
export const pagePaths = (record: Json): Json => {
  const cut: Json = { ...record }
  for (const field of ['payment_url', 'activation_url']) {
    const value = cut[field]
    if (typeof value === 'string' && /^https?:\/\//.test(value)) {
      const url = new URL(value)
      cut[field] = url.pathname + url.search
    }
  }
  return cut
}

/** The stored fields of a link created or updated with `input` (amount is sent as text). */
export const linkFields = (input: Json) => ({ ...input, amount: Number(input.amount) })

/** A link just created from `input` through `baseUrl`, with every field as the sandbox sets it. */
export const isNewLink = (record: Json, input: Json, businessId: number, baseUrl: string) =>
  OBJECT_ID.test(record._id) &&
  isDeepStrictEqual(record, {
    _id: record._id,
    ...linkFields(input),
    status: 'Active',
    payment_url: `${baseUrl}/checkout/pay?id=${record._id}`,
    business_id: businessId,
    paid: false,
    created_at: record.created_at,
    updated_at: record.created_at,
  })

export const isNewSubscription = (record: Json, input: Json, packages: Json[]) =>
  OBJECT_ID.test(record._id) &&
  isDeepStrictEqual(record, {
    _id: record._id,
    ...input,
    status: 'created',
    package: packages.find((pkg) => pkg._id === input.package_id),
    payment_links: [],
    created_at: record.created_at,
    updated_at: record.created_at,
  })

export const isNewTokenization = (record: Json, input: Json, baseUrl: string) =>
  OBJECT_ID.test(record._id) &&
  /^[0-9a-f]{40}$/.test(record.token) &&
  isDeepStrictEqual(record, {
    _id: record._id,
    ...input,
    token: record.token,
    activation_url: `${baseUrl}/checkout/tokens/${record.token}/activate?test=true`,
    created_at: record.created_at,
    updated_at: record.created_at,
  })

export const CURRENCIES = ['NGN', 'USD', 'EUR', 'GHS']
export const AMOUNTS = ['1', '25.50', '0.5', '1000000.01', '99999999999.99']

export const linkInput = (random: Random, unique: string) => ({
  email: `${unique}@example.com`,
  currency: random.pick(CURRENCIES),
  amount: random.pick(AMOUNTS),
  title: `Invoice ${unique}`,
  reference: `ref-${unique}`,
})

/** A change of one or more fields of a subscription, never a cancel. */
export const subscriptionChange = (random: Random, unique: string): Json =>
  random.pick([
    { email: `${unique}@example.org` },
    { phone_no: `+234${String(random.int(1e9)).padStart(9, '0')}` },
    { email: `${unique}@example.net`, phone_no: `+1555${String(random.int(1e7)).padStart(7, '0')}` },
  ])

// ---- 1. Soak ----
