/**
 * `import { startSandbox } from 'pay-cli/sandbox'`: the sandbox as a test double for a test runner,
 * in the test's own process. A fresh store in a temporary directory by default (removed on close),
 * a free loopback port, and the controls a test needs: the customer's outcome on a link, the
 * clock, fault rules, fixtures, snapshots, a reset, and the notifications its payments send
 * (`webhooks`, `signatureKey`, `deliveries()`, and `verifyWebhook` and `webhookProblem` for the app's
 * handler). Each
 * function checks its arguments first (arguments.ts): what it does not take is an error, never a
 * no-op. It loads nothing of the CLI
 * (scripts/bundle.mjs builds it into dist/sandbox.js on its own and checks that no oclif is in it).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { argumentsOf, FIXTURES_TAKEN, isPlainObject, RULES_TAKEN } from './arguments.js'
import { OUTCOMES, type Outcome, SANDBOX_KEY } from './constants.js'
import type { PackageRecord } from './domain/records.js'
import { MAX_SEED } from './handlers/double/fault-sets.js'
import type { RecordedRequest } from './handlers/double/recorded-requests.js'
import { RECORDED_PER_BUSINESS } from './handlers/double/recorded-requests.js'
import type { FaultControl } from './handlers/double/test-double.js'
import type { DeliveryRecord } from './handlers/notify/outbox.js'
import { isWebhookUrl } from './handlers/notify/url.js'
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

export { SandboxArgumentError } from './arguments.js'
export type { Outcome } from './constants.js'
export { ClockRefused } from './handlers/billing/billing.js'
export type { FaultList, FaultRuleState } from './handlers/double/fault-sets.js'
export { FaultRuleError } from './handlers/double/faults.js'
export type { RecordedRequest } from './handlers/double/recorded-requests.js'
/** The name of RecordedRequest in earlier versions of the library. */
export type JournalEntry = RecordedRequest
export { verifyWebhook, webhookProblem } from '../shared/webhook-signature.js'
export type { PackageRecord } from './domain/records.js'
export type { FaultControl } from './handlers/double/test-double.js'
export type { AttemptRecord, DeliveryRecord, EndpointRecord } from './handlers/notify/outbox.js'
export {
  FixturesInvalid,
  type Seeded,
  type Settled,
  SnapshotError,
  type SnapshotInfo,
} from './local-store.js'
export { SANDBOX_KEY }

export interface StartSandboxOptions {
  /** The store's directory, kept on close. Default: a new temporary directory, removed on close. */
  dir?: string
  /**
   * API keys, each a business of its own. Default: the directory's own key, random, made for it
   * and kept in its `sandbox.key` (the one `pay -p sandbox` sends with that PAY_SANDBOX_DIR). The
   * well-known `SANDBOX_KEY` is served only when given here.
   */
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
  /**
   * The account a shop signs in with (`POST /auth/sign-in`, as the service's shop plugins do); its
   * businesses are the keys'. Default: the seed's `account`, else one made for the directory.
   */
  account?: { email: string; password: string }
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
  /** The account a shop signs in with (`POST /auth/sign-in`), whose businesses are the keys'. */
  account: { email: string; password: string }
  /**
   * The customer's outcome on payment link `id`: paid (when left out), pending, cancelled or failed;
   * any other outcome given (even undefined) is a SandboxArgumentError. Throws for no such link.
   * Paying, a pending payment and a failed one notify the business's webhook endpoints (attempted
   * at once, with payment_status 1, 2 and 3); pending leaves the link unpaid and payable.
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

/** The options startSandbox takes (StartSandboxOptions). */
const START_OPTIONS = [
  'dir',
  'keys',
  'port',
  'host',
  'seed',
  'faults',
  'faultSeed',
  'webhooks',
  'account',
] as const

const WEBHOOKS_TAKEN = 'an array of http:// or https:// URLs with no user name or password'

const isFixtures = (value: unknown) => (typeof value === 'string' && value !== '') || isPlainObject(value)
const SNAPSHOT_NAME_TAKEN = 'a snapshot name (letters, digits, ".", "_" and "-", at most 64)'

/** startSandbox's options, each of the kind it takes (SandboxArgumentError otherwise). */
function checkStartOptions(given: unknown): StartSandboxOptions {
  const check = argumentsOf('startSandbox(options)')
  const options = check.options(given, START_OPTIONS) as StartSandboxOptions
  const { dir, keys, host, seed, faults } = options
  if (dir !== undefined) check.text(dir, 'dir', "a directory's path")
  if (keys !== undefined) check.keyList(keys, 'keys')
  check.integer(options.port, 'port', 0, 65535)
  if (host !== undefined) check.text(host, 'host', 'a host name or address')
  if (seed !== undefined) check.must(isFixtures(seed), 'seed', FIXTURES_TAKEN, seed)
  if (faults !== undefined) check.textList(faults, 'faults', RULES_TAKEN)
  check.integer(options.faultSeed, 'faultSeed', 0, MAX_SEED)
  if (options.account !== undefined) {
    const account = check.options(options.account, ['email', 'password'], 'account')
    check.must(
      typeof account.email === 'string' && /^[^\s@]+@[^\s@]+$/.test(account.email),
      'account.email',
      'an e-mail address',
      account.email,
    )
    check.must(
      typeof account.password === 'string' && account.password !== '',
      'account.password',
      'a non-empty string',
      account.password,
    )
  }
  if (options.webhooks !== undefined) {
    check.textList(options.webhooks, 'webhooks', WEBHOOKS_TAKEN)
    check.must(options.webhooks.every(isWebhookUrl), 'webhooks', WEBHOOKS_TAKEN, options.webhooks)
  }
  return options
}

/** Starts a sandbox for a test: see Sandbox. */
export async function startSandbox(given: StartSandboxOptions = {}): Promise<Sandbox> {
  const options = checkStartOptions(given)
  const owned = options.dir === undefined
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pay-sandbox-'))
  let running: Awaited<ReturnType<typeof serve>>
  try {
    running = await serve({
      dir,
      // None given: the directory's own key, made for it (a temporary directory's is new).
      keys: options.keys,
      host: options.host,
      port: options.port ?? 0,
      faults: { rules: options.faults, seed: options.faultSeed },
      webhooks: { endpoints: options.webhooks },
      account: options.account,
      seed: options.seed === undefined ? undefined : { fixtures: fixturesOf(options.seed) },
    })
  } catch (error) {
    if (owned) fs.rmSync(dir, { recursive: true, force: true })
    throw error
  }
  const { baseUrl } = running
  const keysOf = running.keys
  let closed = false
  const faults = running.faults
  return {
    baseUrl,
    keys: keysOf,
    packages: running.packages[keysOf[0]],
    dir,
    signatureKey: running.webhooks.signatureKeys[0],
    account: { ...running.account },
    pay(...args: unknown[]) {
      const check = argumentsOf('sandbox.pay(id, outcome)')
      check.count(args.length, 2)
      const [id, outcome] = args
      check.text(id, 'id', "a payment link's _id (a non-empty string)")
      // Given, even as undefined (a field misspelt), it must be one of them: only leaving it out means paid.
      if (args.length === 2)
        check.must(OUTCOMES.includes(outcome as Outcome), 'outcome', `one of ${OUTCOMES.join(', ')}`, outcome)
      // Through the server: its fault rules and its notifier reach what the payment notifies.
      const settled = running.settle(id as string, args.length === 2 ? (outcome as Outcome) : 'paid')
      if (!settled) throw new Error(`No payment link ${id} in the sandbox.`)
      return settled
    },
    deliveries(...args: unknown[]) {
      const check = argumentsOf('sandbox.deliveries(options)')
      check.count(args.length, 1)
      const options = check.options(args[0], ['key', 'limit'])
      check.key(options.key, keysOf)
      check.integer(options.limit, 'limit', 1, 1000)
      return running.webhooks.deliveries(options as { key?: string; limit?: number })
    },
    clock: {
      now(...args: unknown[]) {
        argumentsOf('sandbox.clock.now()').count(args.length, 0)
        return clockIn(dir)
      },
      advance(...args: unknown[]) {
        const check = argumentsOf('sandbox.clock.advance(duration)')
        check.count(args.length, 1)
        check.text(args[0], 'duration', 'a duration as text ("30d", "12h", "1mo")')
        return moveClockIn(dir, { advance: args[0] as string }, baseUrl)
      },
      set(...args: unknown[]) {
        const check = argumentsOf('sandbox.clock.set(to)')
        check.count(args.length, 1)
        check.text(args[0], 'to', 'a date or date-time as text ("2027-01-01")')
        return moveClockIn(dir, { to: args[0] as string }, baseUrl)
      },
    },
    faults: {
      set(...args: unknown[]) {
        const check = argumentsOf('sandbox.faults.set(rules, options)')
        check.count(args.length, 2)
        check.textList(args[0], 'rules', RULES_TAKEN)
        const options = check.options(args[1], ['seed'])
        return faults.set(args[0] as string[], options)
      },
      clear(...args: unknown[]) {
        argumentsOf('sandbox.faults.clear()').count(args.length, 0)
        faults.clear()
      },
      list(...args: unknown[]) {
        const check = argumentsOf('sandbox.faults.list(key)')
        check.count(args.length, 1)
        check.key(args[0], keysOf)
        return faults.list(args[0] as string | undefined)
      },
    },
    requests(...args: unknown[]) {
      const check = argumentsOf('sandbox.requests(options)')
      check.count(args.length, 1)
      const options = check.options(args[0], ['key', 'after', 'limit'])
      check.key(options.key, keysOf)
      check.integer(options.after, 'after', 0, Number.MAX_SAFE_INTEGER)
      check.integer(options.limit, 'limit', 1, RECORDED_PER_BUSINESS)
      return running.requests(options)
    },
    seed(...args: unknown[]) {
      const check = argumentsOf('sandbox.seed(fixtures, options)')
      check.count(args.length, 2)
      check.must(isFixtures(args[0]), 'fixtures', FIXTURES_TAKEN, args[0])
      const options = check.options(args[1], ['once'])
      if (options.once !== undefined)
        check.must(typeof options.once === 'boolean', 'once', 'true or false', options.once)
      const fixtures = fixturesOf(args[0] as string | object)
      const done = seedIn(dir, keysOf[0], fixtures, {
        once: options.once as boolean | undefined,
        origin: baseUrl,
      })
      if (!done.ok) throw new FixturesInvalid(done.errors)
      return (done.value as Seeded).ids
    },
    snapshot(...args: unknown[]) {
      const check = argumentsOf('sandbox.snapshot(name)')
      check.count(args.length, 1)
      check.must(typeof args[0] === 'string', 'name', SNAPSHOT_NAME_TAKEN, args[0])
      const { replaced: _, ...info } = saveSnapshot(dir, args[0] as string)
      return info
    },
    restore(...args: unknown[]) {
      const check = argumentsOf('sandbox.restore(name)')
      check.count(args.length, 1)
      check.must(typeof args[0] === 'string', 'name', SNAPSHOT_NAME_TAKEN, args[0])
      return restoreSnapshot(dir, args[0] as string)
    },
    reset(...args: unknown[]) {
      argumentsOf('sandbox.reset()').count(args.length, 0)
      resetSandbox(dir)
      faults.clear()
    },
    async close() {
      if (closed) return
      closed = true
      await running.close()
      if (owned) fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
