import { afterEach, describe, expect, test } from 'vitest'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { killStarted, startSandboxProcess } from '../../helpers/processes.js'
import { clientFor, VALID_LINK } from '../../helpers/sandbox.js'

/**
 * `pay sandbox snapshot save|restore|list|delete NAME` as bin/run.js: exact
 * output, exit codes, and a restore while a sandbox server answers clients that never stop:
 * every answer is the old state or the new one, never a mix. The store-level rules (links,
 * modes, names) are in test/unit/sandbox/store/snapshots.test.ts.
 */

afterEach(killStarted)

describe('pay sandbox snapshot', () => {
  test('restore under a server taking requests: every answer is the old state or the new one', async () => {
    const dir = tempDir('pay-sandbox-')
    const env = cleanEnv({ PAY_SANDBOX_DIR: dir })
    const server = await startSandboxProcess(
      [BIN, 'sandbox', 'start', '--port', '0', '--json', '--quiet'],
      env,
    )
    const api = clientFor(server.baseUrl, server.key)
    const create = async (n: number) => {
      const ids: string[] = []
      for (let i = 0; i < n; i++) {
        const answer = await api.call('POST', '/payment-links', VALID_LINK)
        expect(answer.status).toBe(200)
        ids.push(answer.json.data._id)
      }
      return ids
    }
    const small = (await create(10)).sort()
    expect((await runCli(['sandbox', 'snapshot', 'save', 'small'], { env })).code).toBe(0)
    const big = [...small, ...(await create(15))].sort()
    expect((await runCli(['sandbox', 'snapshot', 'save', 'big'], { env })).code).toBe(0)

    const states = new Map([
      [small.join(), 'small'],
      [big.join(), 'big'],
    ])
    const seen: string[] = []
    let stop = false
    const hammer = async () => {
      while (!stop) {
        const answer = await api.call('GET', '/payment-links?per_page=500')
        expect(answer.status).toBe(200)
        const page = answer.json.data
        const ids = page.data.map((link: { _id: string }) => link._id).sort()
        expect(page.total).toBe(ids.length)
        const state = states.get(ids.join())
        if (!state) throw new Error(`a mixed state: ${ids.length} links`)
        seen.push(state)
      }
    }
    const clients = [hammer(), hammer(), hammer()]
    const order = ['small', 'big', 'small', 'big', 'small']
    for (const name of order) {
      const restored = await runCli(['sandbox', 'snapshot', 'restore', name], { env })
      expect(restored.code).toBe(0)
      // The server's next request sees what was restored.
      const after = (await api.call('GET', '/payment-links?per_page=500')).json.data
      expect(after.total).toBe(name === 'small' ? 10 : 25)
    }
    stop = true
    await Promise.all(clients)
    expect(seen.length).toBeGreaterThan(0)
    expect(new Set(seen)).toEqual(new Set(['small', 'big']))
    server.child.kill('SIGTERM')
  })
})
