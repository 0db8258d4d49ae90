import fs from 'node:fs'

/**
 * A cross-process lock held in a file created with O_EXCL, for short synchronous critical
 * sections (read-modify-write of one JSON file). The file holds the owner's pid; a lock whose
 * owner is gone (kill -9) is taken over.
 */
const sleeper = new Int32Array(new SharedArrayBuffer(4))
const sleepSync = (ms: number) => Atomics.wait(sleeper, 0, 0, ms)

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
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
  if (owner !== '') return !isAlive(Number(owner))
  try {
    return Date.now() - fs.statSync(lockPath).mtimeMs > 2000
  } catch {
    return false
  }
}

/** Removes a stale lock, restoring it if a live owner slipped in meanwhile. */
function takeOverStale(lockPath: string, staleOwner: string): void {
  const aside = `${lockPath}.${process.pid}.stale`
  try {
    fs.renameSync(lockPath, aside)
  } catch {
    return
  }
  if (readOwner(aside) !== staleOwner) {
    try {
      fs.linkSync(aside, lockPath)
    } catch {
      // another process holds a fresh lock already; nothing to restore
    }
  }
  fs.rmSync(aside, { force: true })
}

export class LockTimeoutError extends Error {
  constructor(lockPath: string) {
    super(`Timed out waiting for the lock ${lockPath}`)
  }
}

export function withFileLockSync<T>(lockPath: string, body: () => T, timeoutMs = 10_000): T {
  const deadline = Date.now() + timeoutMs
  let wait = 1
  for (;;) {
    let fd: number
    try {
      fd = fs.openSync(lockPath, 'wx', 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const owner = readOwner(lockPath)
      if (owner !== undefined && isStale(lockPath, owner)) {
        takeOverStale(lockPath, owner)
        continue
      }
      if (Date.now() > deadline) throw new LockTimeoutError(lockPath)
      sleepSync(wait)
      wait = Math.min(wait * 2, 20)
      continue
    }
    try {
      fs.writeSync(fd, String(process.pid))
    } finally {
      fs.closeSync(fd)
    }
    try {
      return body()
    } finally {
      fs.rmSync(lockPath, { force: true })
    }
  }
}
