import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { afterAll, describe, expect, test } from 'vitest'
import { cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { startTestSandbox, type TestSandbox, trustSandbox } from '../../helpers/sandbox.js'

const create = (title: string) => [
  '-p',
  'sandbox',
  'links',
  'create',
  '--email',
  'jane@example.com',
  '--currency',
  'EUR',
  '--amount',
  '25.50',
  '--title',
  title,
  '--json',
]

const UNSERVED =
  'Warning: No sandbox is running at http://127.0.0.1:1, so the page addresses printed will not open: the sandbox ran inside this command. ' +
  'Serve them with `pay sandbox start` (PAY_SANDBOX_PORT sets the port).\n'

/** The built-in `sandbox` profile: no set-up, a running sandbox if any, else one in-process. */
describe('the sandbox profile', () => {
  test('with nothing running, runs a sandbox in-process on the store of PAY_SANDBOX_DIR', async () => {
    const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-'), PAY_SANDBOX_PORT: '1' }
    const created = await runCli(create('First'), { env })
    // The payment_url printed names the profile's address, where nothing serves it: said.
    expect(created.stderr).toBe(UNSERVED)
    expect(created.code).toBe(0)
    const link = JSON.parse(created.stdout)
    // The throw-away port is not named: the link points at the profile's address.
    expect(link.payment_url).toBe(`http://127.0.0.1:1/checkout/pay?id=${link._id}`)

    // Printing no page address, nothing to say.
    const listed = await runCli(['-p', 'sandbox', 'links', 'list', '-q'], { env })
    expect(listed).toMatchObject({ code: 0, stderr: '' })
    expect(listed.stdout).toBe(`${link._id}\n`)
  })

  test('ten commands at once, each with its own in-process sandbox on one store, all succeed and lose nothing', async () => {
    // A fresh directory: each of the ten makes its key at once, and they agree on one (the
    // links all land in one business, and one sandbox.key is left, nothing beside it).
    const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-'), PAY_SANDBOX_PORT: '1' }
    const runs = await Promise.all(
      Array.from({ length: 10 }, (_, i) => runCli(create(`Parallel ${i}`), { env })),
    )
    for (const run of runs) {
      expect(run.stderr).toBe(UNSERVED)
      expect(run.code).toBe(0)
    }
    const ids = runs.map((run) => JSON.parse(run.stdout)._id).sort()
    const listed = await runCli(['-p', 'sandbox', 'links', 'list', '-q'], { env })
    expect(listed.stdout.trim().split('\n').sort()).toEqual(ids)
    expect(fs.readdirSync(env.PAY_SANDBOX_DIR).filter((name) => name.startsWith('sandbox.key'))).toEqual([
      'sandbox.key',
    ])
  })

  describe('with a sandbox listening on its port', () => {
    let running: TestSandbox
    afterAll(() => running?.close())

    test('uses it once it proved it is the user’s own (records land in that sandbox, not in PAY_SANDBOX_DIR)', async () => {
      // As `sandbox start` with no key: the directory's own, which trusting it copies too.
      running = await startTestSandbox({ ownKey: true })
      const port = new URL(running.baseUrl).port
      const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-'), PAY_SANDBOX_PORT: port }
      trustSandbox(running.dir, env.PAY_SANDBOX_DIR)
      const created = await runCli(create('Served'), { env })
      expect(created).toMatchObject({ code: 0, stderr: '' })
      const link = JSON.parse(created.stdout)
      expect(link.payment_url).toBe(`${running.baseUrl}/checkout/pay?id=${link._id}`)
      const stored = await running.request('GET', `/payment-links/${link._id}`)
      expect(stored.status).toBe(200)
      expect(stored.body.data.title).toBe('Served')
    })
  })

  test('pay sandbox start serves any client and prints one JSON line with --json', async () => {
    const dir = tempDir('pay-sandbox-')
    const child = spawn(process.execPath, ['bin/run.js', 'sandbox', 'start', '--port', '0', '--json'], {
      env: cleanEnv({ PAY_SANDBOX_DIR: dir }),
    })
    const line = await new Promise<string>((resolve) => {
      let out = ''
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        out += chunk
        if (out.includes('\n')) resolve(out)
      })
    })
    const started = JSON.parse(line)
    expect(Object.keys(started)).toEqual([
      'base_url',
      'keys',
      'packages',
      'signature_keys',
      'webhooks',
      'account',
    ])
    // The account made for the directory (no --account, PAY_SANDBOX_ACCOUNT or fixture's).
    expect(started.account).toEqual({
      email: expect.stringMatching(/^merchant-[0-9a-f]{8}@sandbox\.pay\.example$/),
      password: expect.stringMatching(/^[0-9a-f]{24}$/),
    })
    expect(started.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(started.packages.map((p: { name: string }) => p.name)).toEqual(['Starter', 'Business', 'Monthly'])
    const health = await fetch(`${started.base_url}/_sandbox/health`)
    expect(await health.json()).toEqual({ service: 'pay-sandbox' })
    child.kill('SIGTERM')
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0)
  })
})
