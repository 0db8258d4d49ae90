import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type WorkerThreads from 'node:worker_threads'

/**
 * A cross-process lock held in a file created with O_EXCL, for short synchronous critical
 * sections (read-modify-write of one JSON file). The file holds the owner's `pid:threadId`; a lock
 * whose owner is gone (kill -9) is taken over.
 */
const sleeper = new Int32Array(new SharedArrayBuffer(4))
const sleepSync = (ms: number) => Atomics.wait(sleeper, 0, 0, ms)

let ownThread: number | undefined
/** This thread's id: node:worker_threads loads with the first lock taken, not with every command. */
function threadId(): number {
  ownThread ??= (createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads).threadId
  return ownThread
}
const ownerTag = () => `${process.pid}:${threadId()}`
/**
 * Locks this thread holds now. A lock tagged with this very thread but not listed here was left by
 * an earlier process that had the same pid: pids are reused, in containers often at once.
 */
const heldByThisThread = new Set<string>()

/** A zombie (killed, not yet reaped by its parent) still answers kill(pid, 0). */
function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.charAt(stat.lastIndexOf(')') + 2)
    return state === 'Z' || state === 'X'
  } catch {
    return false
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  return !isZombie(pid)
}

function readOwner(lockPath: string): string | undefined {
  try {
    return fs.readFileSync(lockPath, 'utf8')
  } catch {
    return undefined
  }
}

/** A lock is stale when its owner is dead, or when it stayed empty (owner killed while creating it). */
function isStale(lockPath: string, owner: string): boolean {
  if (owner === '') {
    try {
      return Date.now() - fs.statSync(lockPath).mtimeMs > 2000
    } catch {
      return false
    }
  }
  const [pid, thread = 0] = owner.split(':').map(Number) // `pid` alone: written by a main thread
  if (pid === process.pid) return thread === threadId() && !heldByThisThread.has(lockPath)
  return !isAlive(pid)
}

/**
 * Creates `file` if it does not exist yet (O_EXCL), holding this thread's tag. False when it
 * exists. A file left empty would block others for 2 s, so a failed write removes it.
 */
function tryCreate(file: string): boolean {
  let fd: number
  try {
    fd = fs.openSync(file, 'wx', 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return false
  }
  try {
    fs.writeSync(fd, ownerTag())
  } catch (error) {
    fs.rmSync(file, { force: true })
    throw error
  } finally {
    fs.closeSync(fd)
  }
  return true
}

function hasStaleOwner(file: string): boolean {
  const owner = readOwner(file)
  return owner !== undefined && isStale(file, owner)
}

/**
 * Removes a stale lock. Only one process at a time may do so, under a second O_EXCL file (the
 * guard), and it checks the lock again under the guard. Without the guard, a process that saw the
 * stale lock late could remove the fresh lock of the process that took over first, and let a
 * third one in beside it.
 */
function takeOverStale(lockPath: string): void {
  const guard = `${lockPath}.takeover`
  if (!tryCreate(guard)) {
    // Another process is taking over. A guard whose owner died during a takeover is cleared.
    if (hasStaleOwner(guard)) fs.rmSync(guard, { force: true })
    return
  }
  try {
    if (hasStaleOwner(lockPath)) fs.rmSync(lockPath, { force: true })
  } finally {
    fs.rmSync(guard, { force: true })
  }
}

export class LockTimeoutError extends Error {
  constructor(lockPath: string) {
    super(`Timed out waiting for the lock ${lockPath}`)
  }
}

export function withFileLockSync<T>(lockPath: string, body: () => T, timeoutMs = 10_000): T {
  lockPath = path.resolve(lockPath)
  const deadline = Date.now() + timeoutMs
  let wait = 1
  for (;;) {
    if (!tryCreate(lockPath)) {
      if (hasStaleOwner(lockPath)) {
        takeOverStale(lockPath)
        continue
      }
      if (Date.now() > deadline) throw new LockTimeoutError(lockPath)
      sleepSync(wait)
      wait = Math.min(wait * 2, 20)
      continue
    }
    heldByThisThread.add(lockPath)
    try {
      return body()
    } finally {
      heldByThisThread.delete(lockPath)
      // Leave alone a lock that is no longer ours (taken over while we were stopped too long).
      if (readOwner(lockPath) === ownerTag()) fs.rmSync(lockPath, { force: true })
    }
  }
}
