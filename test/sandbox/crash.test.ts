import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { build } from 'esbuild'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SANDBOX_KEY } from '../../src/sandbox/constants.js'
import { clientFor, OBJECT_ID, tempDir, VALID_LINK } from './helpers.js'

/**
 * The sandbox as a separate process, killed with SIGKILL. main.ts is bundled from source here,
 * so that the test never runs a stale dist/.
 */
let mainScript: string
beforeAll(async () => {
  mainScript = path.join(tempDir('pay-sandbox-main-'), 'main.mjs')
  const result = await build({
    entryPoints: [path.resolve('src/sandbox/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: mainScript,
    metafile: true,
    logLevel: 'silent',
  })
  // main.ts is started on every `pay sandbox start`: nothing outside the sandbox and the lock.
  expect(Object.keys(result.metafile.inputs).sort()).toEqual([
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

const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

interface Started {
  child: ChildProcess
  baseUrl: string
  line: { base_url: string; keys: string[]; packages: { _id: string; business_id: number }[] }
}

function startMain(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [mainScript, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let stderr = ''
  child.stderr!.on('data', (chunk) => {
    stderr += chunk
  })
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (text) => {
      const line = JSON.parse(text)
      resolve({ child, baseUrl: line.base_url, line })
    })
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)))
  })
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })

function runMain(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [mainScript, ...args])
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}

describe('main.js', () => {
  it('prints one JSON line with base_url, keys and packages, and stops cleanly on SIGTERM', async () => {
    const { child, line } = await startMain(['--dir', tempDir(), '--port', '0', '--key', 'k1', '--key', 'k2'])
    expect(Object.keys(line)).toEqual(['base_url', 'keys', 'packages'])
    expect(line.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(line.keys).toEqual(['k1', 'k2'])
    expect(line.packages).toHaveLength(6)
    expect(new Set(line.packages.map((pkg) => pkg.business_id)).size).toBe(2)
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
    const dead = spawn(process.execPath, ['-e', '0'])
    await exited(dead)
    fs.writeFileSync(path.join(dir, 'store.lock'), `${dead.pid}:0`)
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
