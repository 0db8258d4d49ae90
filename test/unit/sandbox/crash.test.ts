import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SANDBOX_KEY } from '../../../src/sandbox/constants.js'
import { bundleEntry, deadPid, exited, killStarted, startSandboxProcess } from '../../helpers/processes.js'
import { clientFor, OBJECT_ID, tempDir, VALID_LINK } from '../../helpers/sandbox.js'

/**
 * The sandbox as a separate process, killed with SIGKILL (test/helpers/sandbox-main.ts bundled
 * from source).
 */
let mainScript: string
beforeAll(async () => {
  const main = await bundleEntry('test/helpers/sandbox-main.ts')
  mainScript = main.file
  // The sandbox server needs nothing of pay outside src/sandbox but the store's lock.
  expect(main.inputs).toEqual([
    'src/config/lock.ts',
    'src/sandbox/business.ts',
    'src/sandbox/constants.ts',
    'src/sandbox/records.ts',
    'src/sandbox/routes.ts',
    'src/sandbox/rules.ts',
    'src/sandbox/server.ts',
    'src/sandbox/store.ts',
    'test/helpers/sandbox-main.ts',
  ])
})
afterEach(killStarted)

const startMain = (args: string[]) => startSandboxProcess([mainScript, ...args])

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
