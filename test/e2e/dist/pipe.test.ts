import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BIN, cleanEnv } from '../../helpers/cli.js'
import { envelope, type FakeServer, sendJson, startFakeServer } from '../../helpers/fake-server.js'

/** `pay links list | head -1`: the reader goes away early; pay exits 0 without a word. */
describe('a reader that closes the pipe early', () => {
  let server: FakeServer
  beforeAll(async () => {
    const links = Array.from({ length: 20_000 }, (_, i) => ({
      _id: `link${String(i).padStart(20, '0')}`,
      status: 'Active',
      paid: false,
      amount: 10,
      currency: 'EUR',
      email: `customer${i}@example.com`,
      title: `Invoice ${i}`,
    }))
    server = await startFakeServer((_, res) => sendJson(res, 200, envelope(links)))
  })
  afterAll(() => server.close())

  for (const args of [
    ['links', 'list'],
    ['links', 'list', '--json'],
    ['links', 'list', '--jsonl'],
    ['links', 'list', '--jq', '.[]._id'],
    ['api', '/payment-links'],
    ['api', '/payment-links', '--paginate', '--jq', '.[]'],
  ]) {
    test(`pay ${args.join(' ')} | head -c 100`, async () => {
      const child = spawn(process.execPath, [BIN, ...args], {
        env: cleanEnv({ PAY_API_KEY: 'sk_test_pipe', PAY_BASE_URL: server.baseUrl }),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (chunk) => {
        stderr += chunk
      })
      let first = ''
      child.stdout.once('data', (chunk: Buffer) => {
        first = chunk.toString('utf8').slice(0, 100)
        child.stdout.destroy()
      })
      const code = await new Promise((resolve) => child.on('close', resolve))
      expect(first.length).toBe(100)
      expect(stderr).toBe('')
      expect(code).toBe(0)
    })
  }
})
