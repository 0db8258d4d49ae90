/**
 * `import { startSandbox } from 'pay-cli/sandbox'`: the sandbox as a test double for a test runner,
 * in the test's own process. A fresh store in a temporary directory by default (removed on close),
 * a free loopback port, and the controls a test needs: the customer's outcome on a link, the
 * clock, fault rules, fixtures, snapshots, a reset, and the notifications its payments send
 * (`webhooks`, `signatureKey`, `deliveries()`, and `verifyWebhook` for the app's handler). It loads nothing of the CLI
 * (scripts/bundle.mjs builds it into dist/sandbox.js on its own and checks that no oclif is in it).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Outcome } from './constants.js'
import { SANDBOX_KEY } from './constants.js'
import type { RecordedRequest } from './double/recorded-requests.js'
import type { FaultControl } from './double/test-double.js'
import { startSandbox as serve } from './http/server.js'
import {
  clockIn,
  FixturesInvalid,
  moveClockIn,
  parseFixtures,
  resetSandbox,
  restoreSnapshot,
  type Seeded,
  type Settled,
  type SnapshotInfo,
  saveSnapshot,
  seedIn,
} from './local-store.js'
import type { DeliveryRecord } from './notify/outbox.js'
import type { PackageRecord } from './service/records.js'

export type { Outcome } from './constants.js'
export { type FaultList, FaultRuleError, type FaultRuleState } from './double/faults.js'
export type { RecordedRequest } from './double/recorded-requests.js'
/** The name of RecordedRequest in earlier versions of the library. */
export type JournalEntry = RecordedRequest
export type { FaultControl } from './double/test-double.js'
export {
  FixturesInvalid,
  type Seeded,
  type Settled,
  SnapshotError,
  type SnapshotInfo,
} from './local-store.js'
export type { AttemptRecord, DeliveryRecord, EndpointRecord } from './notify/outbox.js'
export { verifyWebhook } from './notify/signature.js'
export type { PackageRecord } from './service/records.js'
export { SANDBOX_KEY }

export interface StartSandboxOptions {
  /** The store's directory, kept on close. Default: a new temporary directory, removed on close. */
  dir?: string
  /** API keys, each a business of its own. Default: the well-known sandbox key. */
  keys?: string[]
  /** Default 0: a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** Fixtures (a JSON file's path, or the object) seeded into the first key's business before any request. */
  seed?: string | object
  /** Fault rules every business starts with, e.g. `"POST /payment-links 503 x2"` (see `pay sandbox faults set`). */
  faults?: string[]
  /** Seed of the `P%` fault draws, to repeat a run. */
  faultSeed?: number
  /** Webhook endpoints (http or https URLs) of the first key's business: each payment attempt is POSTed to them. */
  webhooks?: string[]
}

export interface SandboxClock {
  /** The sandbox's time and how far it is ahead of the real one. */
  now(): { now: string; offset_seconds: number }
  /** Moves the clock forward (`"30d"`, `"1h"`, ...) and bills what came due. */
  advance(duration: string): { now: string; charges_created: number }
  /** Moves the clock to a later date or time (`"2027-01-01"`) and bills what came due. */
  set(to: string): { now: string; charges_created: number }
}

export interface Sandbox {
  /** `http://127.0.0.1:PORT`: the base URL to give the app under test. */
  baseUrl: string
  /** The API keys, the first the default business. */
  keys: string[]
  /** The seeded packages of the first key's business (for `package_id`). */
  packages: PackageRecord[]
  /** The store's directory. */
  dir: string
  /** The signature key of the first key's business: the key of its notifications' hash (`verifyWebhook`). */
  signatureKey: string
  /**
   * The customer's outcome on payment link `id`: paid (default), cancelled or failed. Throws for no
   * such link. Paying and failing notify the business's webhook endpoints (attempted at once).
   */
  pay(id: string, outcome?: Outcome): Settled
  /** The notifications to the endpoints of the business of `key` (default: the first), newest last. */
  deliveries(options?: { key?: string; limit?: number }): DeliveryRecord[]
  clock: SandboxClock
  /** Fault rules, set, cleared and listed while it runs. */
  faults: FaultControl
  /** What the business of `key` (default: the first) sent, newest last. */
  requests(options?: { key?: string; after?: number; limit?: number }): RecordedRequest[]
  /** Seeds fixtures (a JSON file's path, or the object) into the first key's business: `{NAME: ID}`. FixturesInvalid, nothing kept, when one is invalid. */
  seed(fixtures: string | object, options?: { once?: boolean }): Record<string, string>
  /** Saves the whole database (every business, the clock) as snapshot `name`. */
  snapshot(name: string): SnapshotInfo
  /** Puts snapshot `name` back; the next request sees it. */
  restore(name: string): SnapshotInfo
  /** Empties the database (records, clock, seeded names) and clears the fault rules. */
  reset(): void
  /** Stops the server; removes the temporary directory unless `dir` was given. */
  close(): Promise<void>
}

const fixturesOf = (fixtures: string | object): unknown =>
  typeof fixtures === 'string' ? parseFixtures(fs.readFileSync(fixtures, 'utf8')) : fixtures

/** Starts a sandbox for a test: see Sandbox. */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<Sandbox> {
  const owned = options.dir === undefined
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pay-sandbox-'))
  const keys = options.keys ?? [SANDBOX_KEY]
  let running: Awaited<ReturnType<typeof serve>>
  try {
    running = await serve({
      dir,
      keys,
      host: options.host,
      port: options.port ?? 0,
      faults: { rules: options.faults, seed: options.faultSeed },
      webhooks: { endpoints: options.webhooks },
      seed: options.seed === undefined ? undefined : { fixtures: fixturesOf(options.seed) },
    })
  } catch (error) {
    if (owned) fs.rmSync(dir, { recursive: true, force: true })
    throw error
  }
  const { baseUrl } = running
  let closed = false
  return {
    baseUrl,
    keys: running.keys,
    packages: running.packages[running.keys[0]],
    dir,
    signatureKey: running.webhooks.signatureKeys[0],
    pay(id, outcome = 'paid') {
      const settled = running.settle(id, outcome)
      if (!settled) throw new Error(`No payment link ${id} in the sandbox.`)
      return settled
    },
    deliveries: (query) => running.webhooks.deliveries(query),
    clock: {
      now: () => clockIn(dir),
      advance: (duration) => moveClockIn(dir, { advance: duration }, baseUrl),
      set: (to) => moveClockIn(dir, { to }, baseUrl),
    },
    faults: running.faults,
    requests: (request) => running.requests(request),
    seed(fixtures, seedOptions = {}) {
      const done = seedIn(dir, running.keys[0], fixturesOf(fixtures), { ...seedOptions, origin: baseUrl })
      if (!done.ok) throw new FixturesInvalid(done.errors)
      return (done.value as Seeded).ids
    },
    snapshot: (name) => {
      const { replaced: _, ...info } = saveSnapshot(dir, name)
      return info
    },
    restore: (name) => restoreSnapshot(dir, name),
    reset() {
      resetSandbox(dir)
      running.faults.clear()
    },
    async close() {
      if (closed) return
      closed = true
      await running.close()
      if (owned) fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
