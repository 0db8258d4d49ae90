import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { threadId } from 'node:worker_threads'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { LockTimeoutError, withFileLockSync } from '../../../src/config/lock.js'
import { bundleEntry, deadPid, exited, killStarted, runNode, startNode } from '../../helpers/processes.js'
import { tempDir } from '../../helpers/sandbox.js'

describe('withFileLockSync', () => {
  it('holds the lock, tagged with pid and thread, only while the body runs', () => {
    const lock = path.join(tempDir(), 'x.lock')
    const seen = withFileLockSync(lock, () => fs.readFileSync(lock, 'utf8'))
    expect(seen).toBe(`${process.pid}:${threadId}`)
    expect(fs.existsSync(lock)).toBe(false)
  })

  it('releases the lock when the body throws', () => {
    const lock = path.join(tempDir(), 'x.lock')
    expect(() =>
      withFileLockSync(lock, () => {
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(fs.existsSync(lock)).toBe(false)
  })

  it('takes over a lock whose owner is dead at once, with no time given to wait, in the old pid-only form too', async () => {
    const lock = path.join(tempDir(), 'x.lock')
    for (const owner of [`${await deadPid()}:0`, String(await deadPid())]) {
      fs.writeFileSync(lock, owner)
      expect(withFileLockSync(lock, () => fs.readFileSync(lock, 'utf8'), 0)).toBe(
        `${process.pid}:${threadId}`,
      )
      expect(fs.existsSync(lock)).toBe(false)
    }
  })

  it('takes over a lock left by an earlier process that had this very pid', () => {
    const lock = path.join(tempDir(), 'x.lock')
    const tags = [`${process.pid}:${threadId}`, ...(threadId === 0 ? [String(process.pid)] : [])]
    for (const tag of tags) {
      fs.writeFileSync(lock, tag)
      expect(withFileLockSync(lock, () => 'ran', 1000)).toBe('ran')
    }
  })

  it('respects a lock held by another thread of this process', () => {
    const lock = path.join(tempDir(), 'x.lock')
    fs.writeFileSync(lock, `${process.pid}:${threadId + 1}`)
    expect(() => withFileLockSync(lock, () => 'ran', 100)).toThrow(LockTimeoutError)
  })

  it('never takes over the lock of a live owner: it times out, leaving the lock as it was', () => {
    const lock = path.join(tempDir(), 'x.lock')
    fs.writeFileSync(lock, `${process.ppid}:0`)
    expect(() => withFileLockSync(lock, () => 'ran', 300)).toThrow(LockTimeoutError)
    expect(fs.readFileSync(lock, 'utf8')).toBe(`${process.ppid}:0`)
  })

  it('is not reentrant: a nested call for the same lock times out instead of breaking it', () => {
    const lock = path.join(tempDir(), 'x.lock')
    expect(() => withFileLockSync(lock, () => withFileLockSync(lock, () => 'inner', 100))).toThrow(
      LockTimeoutError,
    )
    expect(fs.existsSync(lock)).toBe(false)
  })

  it('clears a takeover guard left by a process killed during a takeover', async () => {
    const lock = path.join(tempDir(), 'x.lock')
    fs.writeFileSync(lock, `${await deadPid()}:0`)
    fs.writeFileSync(`${lock}.takeover`, `${await deadPid()}:0`)
    expect(withFileLockSync(lock, () => 'ran', 1000)).toBe('ran')
    expect(fs.readdirSync(path.dirname(lock))).toEqual([])
  })

  it.runIf(process.platform === 'linux')(
    'treats a killed but unreaped owner (a zombie) as dead',
    async () => {
      const lock = path.join(tempDir(), 'x.lock')
      // The shell starts a child, then becomes `sleep`, which never reaps it; the child is killed
      // only then (a shell that killed it itself could reap it before its exec, under load).
      const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 30'])
      try {
        const zombiePid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', resolve)))
        const command = () => fs.readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim()
        for (let i = 0; i < 50 && command() !== 'sleep'; i++)
          await new Promise((resolve) => setTimeout(resolve, 20))
        expect(command()).toBe('sleep')
        process.kill(zombiePid, 'SIGKILL')
        const state = () => fs.readFileSync(`/proc/${zombiePid}/stat`, 'utf8').split(') ')[1][0]
        for (let i = 0; i < 50 && state() !== 'Z'; i++)
          await new Promise((resolve) => setTimeout(resolve, 20))
        expect(state()).toBe('Z')
        fs.writeFileSync(lock, `${zombiePid}:0`)
        expect(withFileLockSync(lock, () => 'ran', 500)).toBe('ran')
      } finally {
        parent.kill('SIGKILL')
      }
    },
  )
})

/**
 * Many processes racing to take over stale locks at once. Each holder, after its critical
 * section, leaves the lock behind tagged with a dead owner (as a process killed just then would),
 * so every round starts with a stale lock and all the others contending to take it over.
 */
describe('processes taking the lock', () => {
  afterEach(killStarted)
  let worker: string
  let holder: string
  let waiter: string
  beforeAll(async () => {
    const lockModule = (await bundleEntry('src/config/lock.ts')).file
    const dir = tempDir('pay-lock-worker-')
    worker = path.join(dir, 'worker.mjs')
    holder = path.join(dir, 'holder.mjs')
    waiter = path.join(dir, 'waiter.mjs')
    // Holds the lock until the file `release` exists, noting when it went in and out.
    fs.writeFileSync(
      holder,
      `import fs from 'node:fs'
import { withFileLockSync } from ${JSON.stringify(lockModule)}
const [lock, log, release] = process.argv.slice(2)
const pause = new Int32Array(new SharedArrayBuffer(4))
withFileLockSync(lock, () => {
  fs.appendFileSync(log, 'holder in\\n')
  process.stdout.write('held\\n')
  while (!fs.existsSync(release)) Atomics.wait(pause, 0, 0, 10)
  fs.appendFileSync(log, 'holder out\\n')
})
`,
    )
    // Finds the lock held (no time to wait: it times out at once), then waits for it.
    fs.writeFileSync(
      waiter,
      `import fs from 'node:fs'
import { LockTimeoutError, withFileLockSync } from ${JSON.stringify(lockModule)}
const [lock, log] = process.argv.slice(2)
try {
  withFileLockSync(lock, () => fs.appendFileSync(log, 'waiter in without waiting\\n'), 0)
} catch (error) {
  if (!(error instanceof LockTimeoutError)) throw error
}
process.stdout.write('tried\\n')
withFileLockSync(lock, () => fs.appendFileSync(log, 'waiter in\\n'), 60_000)
`,
    )
    fs.writeFileSync(
      worker,
      `import fs from 'node:fs'
import { withFileLockSync } from ${JSON.stringify(lockModule)}
const [lock, counter, inside, rounds, deadTag] = process.argv.slice(2)
let overlaps = 0
for (let i = 0; i < Number(rounds); i++) {
  withFileLockSync(lock, () => {
    try { fs.writeFileSync(inside, '', { flag: 'wx' }) } catch { overlaps++ }
    const count = Number(fs.readFileSync(counter, 'utf8'))
    fs.writeFileSync(counter, String(count + 1))
    fs.rmSync(inside, { force: true })
    fs.writeFileSync(lock, deadTag)
  })
}
process.stdout.write(String(overlaps))
`,
    )
  })

  it('a process waits for a live owner, and gets the lock once the owner releases it', async () => {
    const dir = tempDir('pay-lock-wait-')
    const [lock, log, release] = ['x.lock', 'log', 'release'].map((name) => path.join(dir, name))
    const first = startNode([holder, lock, log, release])
    await new Promise((resolve) => first.stdout!.once('data', resolve))
    const second = startNode([waiter, lock, log])
    await new Promise((resolve) => second.stdout!.once('data', resolve))
    fs.writeFileSync(release, '')
    await Promise.all([exited(first), exited(second)])
    expect([first.exitCode, second.exitCode]).toEqual([0, 0])
    expect(fs.readFileSync(log, 'utf8')).toBe('holder in\nholder out\nwaiter in\n')
    expect(fs.existsSync(lock)).toBe(false)
  })

  it('lets exactly one process in at a time: 8 processes, 150 stale takeovers each', async () => {
    const dir = tempDir('pay-lock-race-')
    const lock = path.join(dir, 'x.lock')
    const counter = path.join(dir, 'counter')
    const inside = path.join(dir, 'inside')
    fs.writeFileSync(counter, '0')
    const dead = `${await deadPid()}:0`
    fs.writeFileSync(lock, dead)
    const processes = 8
    const rounds = 150
    const runs = await Promise.all(
      Array.from({ length: processes }, () => runNode([worker, lock, counter, inside, String(rounds), dead])),
    )
    expect(runs.map((run) => [run.code, run.stderr])).toEqual(Array(processes).fill([0, '']))
    const overlaps = runs.map((run) => Number(run.stdout))
    expect(overlaps).toEqual(Array(processes).fill(0))
    expect(Number(fs.readFileSync(counter, 'utf8'))).toBe(processes * rounds)
  })
})
