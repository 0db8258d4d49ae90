import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SANDBOX_KEY } from '../../src/sandbox/constants.js'
import {
  bundleEntry,
  deadPid,
  exited,
  killStarted,
  runNode,
  startSandboxProcess,
} from '../helpers/processes.js'
import { clientFor, OBJECT_ID, tempDir, VALID_LINK } from './helpers.js'

/**
 * The sandbox as a separate process, killed with SIGKILL (main.ts bundled from source).
 */
let mainScript: string
beforeAll(async () => {
  const main = await bundleEntry('src/sandbox/main.ts')
  mainScript = main.file
  // main.ts is started on every `pay sandbox start`: nothing outside the sandbox and the lock.
  expect(main.inputs).toEqual([
    'src/lib/file-lock.ts',
    'src/sandbox/api.ts',
    'src/sandbox/business.ts',
    'src/sandbox/constants.ts',
    'src/sandbox/main.ts',
    'src/sandbox/records.ts',
    'src/sandbox/rules.ts',
    'src/sandbox/server.ts',
    'src/sandbox/store.ts',
  ])
})
afterEach(killStarted)

const startMain = (args: string[]) => startSandboxProcess([mainScript, ...args])
const runMain = (args: string[]) => runNode([mainScript, ...args])

describe('main.js', () => {
  it('prints one JSON line with base_url, keys and packages, and stops cleanly on SIGTERM', async () => {
    const { child, line } = await startMain(['--dir', tempDir(), '--port', '0', '--key', 'k1', '--key', 'k2'])
    expect(Object.keys(line)).toEqual(['base_url', 'keys', 'packages'])
    expect(line.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(line.keys).toEqual(['k1', 'k2'])
    expect(line.packages).toHaveLength(6)
    expect(new Set(line.packages.map((pkg: { business_id: number }) => pkg.business_id)).size).toBe(2)
    const health = await fetch(`${line.base_url}/_sandbox/health`)
    expect(health.headers.get('x-pay-sandbox')).toBe('1')
    child.kill('SIGTERM')
    await exited(child)
    expect(child.exitCode).toBe(0)
  })

  it('exits 2 on bad arguments and 1 when the port is taken', async () => {
    const badPort = await runMain(['--dir', tempDir(), '--port', 'http'])
    expect(badPort).toEqual({ code: 2, stdout: '', stderr: 'pay-sandbox: invalid --port "http"\n' })
    const unknown = await runMain(['--dir', tempDir(), '--bogus'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("Unknown option '--bogus'")
    const { baseUrl } = await startMain(['--dir', tempDir(), '--port', '0'])
    const taken = await runMain(['--dir', tempDir(), '--port', new URL(baseUrl).port])
    expect(taken.code).toBe(1)
    expect(taken.stderr).toContain('EADDRINUSE')
  })
})

describe('kill -9', () => {
  it('keeps every acknowledged write, and the restart is not blocked', async () => {
    const dir = tempDir()
    const first = await startMain(['--dir', dir, '--port', '0'])
    const client = clientFor(first.baseUrl, SANDBOX_KEY)
    const acknowledged: Record<string, unknown>[] = []
    let failures = 0
    let next = 0
    const worker = async () => {
      while (next < 2000) {
        const reference = `burst-${next++}`
        try {
          const answer = await client.call('POST', '/payment-links', { ...VALID_LINK, reference })
          if (answer.status === 200) acknowledged.push(answer.json.data)
          if (acknowledged.length === 150) first.child.kill('SIGKILL')
        } catch {
          failures++
          if (failures > 50) return
        }
      }
    }
    await Promise.all(Array.from({ length: 50 }, worker))
    await exited(first.child)
    expect(first.child.signalCode).toBe('SIGKILL')
    expect(acknowledged.length).toBeGreaterThanOrEqual(150)
    expect(failures).toBeGreaterThan(0) // the kill did land mid-burst

    JSON.parse(fs.readFileSync(path.join(dir, 'store.json'), 'utf8'))
    const restartedAt = Date.now()
    const second = await startMain(['--dir', dir, '--port', '0'])
    const again = clientFor(second.baseUrl, SANDBOX_KEY)
    expect((await again.call('POST', '/payment-links', VALID_LINK)).status).toBe(200)
    expect(Date.now() - restartedAt).toBeLessThan(2500)

    const answers = await Promise.all(
      acknowledged.map((link) => again.call('GET', `/payment-links/${link._id as string}`)),
    )
    expect(answers.map((answer) => answer.status)).toEqual(acknowledged.map(() => 200))
    expect(answers.map((answer) => answer.json.data)).toEqual(acknowledged)
    const total = (await again.call('GET', '/payment-links')).json.data.total
    expect(total).toBeGreaterThanOrEqual(acknowledged.length + 1)
  })

  it('takes over a lock left by a dead process at once', async () => {
    const dir = tempDir()
    fs.writeFileSync(path.join(dir, 'store.lock'), `${await deadPid()}:0`)
    const { baseUrl } = await startMain(['--dir', dir, '--port', '0'])
    const started = Date.now()
    const answer = await clientFor(baseUrl, SANDBOX_KEY).call('POST', '/payment-links', VALID_LINK)
    expect(answer.status).toBe(200)
    expect(answer.json.data._id).toMatch(OBJECT_ID)
    expect(Date.now() - started).toBeLessThan(500)
    expect(fs.existsSync(path.join(dir, 'store.lock'))).toBe(false)
  })

  it('takes over an empty lock (owner killed while creating it) within about 2 s', async () => {
    const dir = tempDir()
    fs.writeFileSync(path.join(dir, 'store.lock'), '')
    const { baseUrl } = await startMain(['--dir', dir, '--port', '0'])
    const started = Date.now()
    const answer = await clientFor(baseUrl, SANDBOX_KEY).call('POST', '/payment-links', VALID_LINK)
    expect(answer.status).toBe(200)
    expect(Date.now() - started).toBeLessThan(3000)
  })
})
