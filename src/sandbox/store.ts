import fs from 'node:fs'
import path from 'node:path'
import { withFileLockSync } from '../config/lock.js'
import type { PaymentLinkRecord, SubscriptionRecord, TokenizationRecord } from './records.js'

/** The records of one business, each map keyed by `_id` in creation order. */
export interface BusinessData {
  business_id: number
  tokenizations: Record<string, TokenizationRecord>
  payment_links: Record<string, PaymentLinkRecord>
  subscriptions: Record<string, SubscriptionRecord>
}

export interface StoreData {
  format: typeof STORE_FORMAT
  version: typeof STORE_VERSION
  /** Keyed by the sha256 of the business's API key: raw keys never reach the file. */
  businesses: Record<string, BusinessData>
}

const STORE_FORMAT = 'pay-sandbox-store'
const STORE_VERSION = 1
const STORE_FILE = 'store.json'
const LOCK_FILE = 'store.lock'

const emptyStore = (): StoreData => ({ format: STORE_FORMAT, version: STORE_VERSION, businesses: {} })

export class StoreCorruptError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(
      `The sandbox store ${file} is corrupt (${reason}). It was left untouched; "pay sandbox reset" empties it.`,
    )
    this.name = 'StoreCorruptError'
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function parseStore(file: string, text: string): StoreData {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new StoreCorruptError(file, `not valid JSON: ${(error as Error).message}`)
  }
  if (!isObject(parsed) || parsed.format !== STORE_FORMAT || !isObject(parsed.businesses)) {
    throw new StoreCorruptError(file, 'not a pay sandbox store')
  }
  if (parsed.version !== STORE_VERSION) {
    throw new StoreCorruptError(file, `unknown version ${JSON.stringify(parsed.version)}`)
  }
  for (const business of Object.values(parsed.businesses)) {
    const wellFormed =
      isObject(business) &&
      typeof business.business_id === 'number' &&
      isObject(business.tokenizations) &&
      isObject(business.payment_links) &&
      isObject(business.subscriptions)
    if (!wellFormed) throw new StoreCorruptError(file, 'a business entry is malformed')
  }
  return parsed as unknown as StoreData
}

interface PendingMutation {
  change: (data: StoreData) => unknown
  resolve: (result: unknown) => void
  reject: (error: unknown) => void
}

/** Identifies one version of the file: every write renames a new inode into place. */
const identityOf = (stat: fs.Stats) => `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`
const MISSING = 'missing'

/**
 * The sandbox state: one JSON file, replaced atomically (temp file, fsync, rename) under a
 * cross-process lock. Several stores, in this process or others, may share a directory: each
 * reloads its cache whenever the file's identity changed.
 */
export class SandboxStore {
  readonly file: string
  private readonly lockFile: string
  private data: StoreData = emptyStore()
  /** Identity of the file the cache was loaded from or written to; undefined: must reload. */
  private identity: string | undefined
  private queue: PendingMutation[] = []
  private flushScheduled = false

  constructor(readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    this.file = path.join(dir, STORE_FILE)
    this.lockFile = path.join(dir, LOCK_FILE)
  }

  /** The current state, reloaded first if the file changed. Treat it as read-only. */
  read(): StoreData {
    this.refresh()
    return this.data
  }

  /**
   * Applies `change` to the state and resolves once the new state is on disk. Changes that
   * arrive while one is pending are written together (group commit). `change` may mutate the
   * data it gets; records must be replaced, not edited in place, since callers hold them.
   */
  mutate<T>(change: (data: StoreData) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ change, resolve: resolve as (result: unknown) => void, reject })
      if (!this.flushScheduled) {
        this.flushScheduled = true
        setImmediate(() => this.flush())
      }
    })
  }

  /** `mutate`, synchronously and alone: for one-off commands outside the server. */
  mutateSync<T>(change: (data: StoreData) => T): T {
    return this.locked(() => {
      this.refresh()
      const result = change(this.data)
      this.write()
      return result
    })
  }

  /** Empties the store without reading it, so that it also repairs a corrupt file. */
  reset(): void {
    this.locked(() => {
      this.data = emptyStore()
      this.write()
    })
    for (const name of fs.readdirSync(this.dir)) {
      if (name.startsWith(`${STORE_FILE}.`) && name.endsWith('.tmp')) {
        fs.rmSync(path.join(this.dir, name), { force: true }) // left by a writer killed mid-write
      }
    }
  }

  private flush(): void {
    this.flushScheduled = false
    const batch = this.queue
    this.queue = []
    const results: unknown[] = []
    let failedChange: { index: number; error: unknown } | undefined
    try {
      this.locked(() => {
        this.refresh()
        for (const [index, mutation] of batch.entries()) {
          try {
            results.push(mutation.change(this.data))
          } catch (error) {
            failedChange = { index, error }
            throw error
          }
        }
        this.write()
      })
    } catch (error) {
      if (failedChange) {
        // Nothing was written: drop the failing change, run the others again on fresh data.
        batch[failedChange.index].reject(failedChange.error)
        const others = batch.filter((_, index) => index !== failedChange?.index)
        for (const mutation of others.reverse()) this.queue.unshift(mutation)
        if (this.queue.length > 0 && !this.flushScheduled) {
          this.flushScheduled = true
          setImmediate(() => this.flush())
        }
      } else {
        for (const mutation of batch) mutation.reject(error)
      }
      return
    }
    for (const [index, mutation] of batch.entries()) mutation.resolve(results[index])
  }

  private locked<T>(body: () => T): T {
    try {
      return withFileLockSync(this.lockFile, body)
    } catch (error) {
      this.identity = undefined // the cache may hold changes that never reached the file
      throw error
    }
  }

  private refresh(): void {
    let fd: number
    try {
      fd = fs.openSync(this.file, 'r')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      if (this.identity !== MISSING) {
        this.data = emptyStore()
        this.identity = MISSING
      }
      return
    }
    try {
      const identity = identityOf(fs.fstatSync(fd))
      if (identity === this.identity) return
      this.data = parseStore(this.file, fs.readFileSync(fd, 'utf8'))
      this.identity = identity
    } finally {
      fs.closeSync(fd)
    }
  }

  private write(): void {
    const temp = `${this.file}.${process.pid}.tmp`
    try {
      const fd = fs.openSync(temp, 'w', 0o600)
      try {
        fs.writeFileSync(fd, JSON.stringify(this.data))
        fs.fsyncSync(fd) // measured at well under 1 ms; keeps the rename from outrunning the data
      } finally {
        fs.closeSync(fd)
      }
      fs.renameSync(temp, this.file)
    } catch (error) {
      fs.rmSync(temp, { force: true })
      throw error
    }
    this.identity = identityOf(fs.statSync(this.file))
  }
}
