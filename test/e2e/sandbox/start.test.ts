import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { verifyWebhook } from '../../../src/shared/webhook-signature.js'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { linkCreateArgs } from '../../helpers/links.js'
import { exited, killStarted, type SandboxProcess, startSandboxProcess } from '../../helpers/processes.js'
import { startReceiver } from '../../helpers/receiver.js'

afterEach(killStarted)

const start = (args: string[], dir = tempDir('pay-sandbox-')) =>
  startSandboxProcess([BIN, 'sandbox', 'start', '--json', ...args], cleanEnv({ PAY_SANDBOX_DIR: dir }))

/** Said first by a sandbox given keys with --key. */
const KEY_NOTE =
  'Warning: --key puts the key on the command line, where other users of this machine can read it (ps, /proc): ' +
  'give keys in a file only you can read (--key-file FILE, chmod 600) or in PAY_SANDBOX_KEYS instead.'

/** A key that must never reach the request log. */
const CANARY = 'sk_test_logcanary_5e6f7a8b9c0d1e2f'

/**
 * How to reach a sandbox on a port of its own, said on stderr after where its
 * database is: these tests start it with --port 0 while the profile looks on PAY_SANDBOX_PORT=1,
 * with the sandbox's own PAY_SANDBOX_DIR, which pay needs to trust it.
 */
const hint = (baseUrl: string, dir: string) =>
  [
    `pay -p sandbox looks for a sandbox on port 1, not ${new URL(baseUrl).port}. To use this one:`,
    `  export PAY_SANDBOX_PORT=${new URL(baseUrl).port} PAY_SANDBOX_DIR=${dir}`,
    `or: pay -p sandbox --base-url ${baseUrl} …`,
  ].join('\n')

/** The log's time of day and milliseconds, which change from run to run, as TIME and MS. */
const normalised = (stderr: string) =>
  stderr.replace(/^\d\d:\d\d:\d\d /gm, 'TIME ').replace(/ \d+\.\d ms$/gm, ' MS')

/** Waits until the sandbox's stderr has `count` lines (each request's line comes once it was answered). */
async function linesOnStderr(sandbox: SandboxProcess, count: number): Promise<void> {
  await onStderr(sandbox, (text) => text.split('\n').length - 1 >= count, `${count} lines`)
}

/** Waits until what the sandbox wrote on stderr holds what `seen` looks for (a hang detector at 30 s). */
async function onStderr(
  sandbox: SandboxProcess,
  seen: (text: string) => boolean,
  what: string,
): Promise<void> {
  const deadline = Date.now() + 30_000
  while (!seen(sandbox.stderr())) {
    if (Date.now() > deadline) throw new Error(`expected ${what} on stderr:\n${sandbox.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function stop(sandbox: SandboxProcess, signal: NodeJS.Signals): Promise<number | null> {
  sandbox.child.kill(signal)
  await exited(sandbox.child)
  return sandbox.child.exitCode
}

describe('pay sandbox start', () => {
  it('serves one business per --key, prints them in its JSON line, and stops cleanly on SIGTERM', async () => {
    const dir = tempDir('pay-sandbox-')
    const sandbox = await start(['--port', '0', '--key', 'k1', '--key', 'k2'], dir)
    const { line } = sandbox
    expect(Object.keys(line)).toEqual([
      'base_url',
      'keys',
      'packages',
      'signature_keys',
      'webhooks',
      'account',
    ])
    expect(line.account).toEqual({
      email: expect.stringMatching(/^merchant-[0-9a-f]{8}@sandbox\.pay\.example$/),
      password: expect.stringMatching(/^[0-9a-f]{24}$/),
    })
    expect(line.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(line.keys).toEqual(['k1', 'k2'])
    expect(line.packages).toHaveLength(6)
    expect(new Set(line.packages.map((pkg: { business_id: number }) => pkg.business_id)).size).toBe(2)
    const health = await fetch(`${line.base_url}/_sandbox/health`)
    expect(health.headers.get('x-pay-sandbox')).toBe('1')
    expect(await stop(sandbox, 'SIGTERM')).toBe(0)
    // Where the database is goes to stderr under --json (stdout is the JSON line alone).
    expect(normalised(sandbox.stderr())).toBe(
      `${KEY_NOTE}\nDatabase: ${path.join(dir, 'store.db')}\n${hint(line.base_url, dir)}\nTIME GET /_sandbox/health 200 MS\nSandbox stopped after 1 request.\n`,
    )
  })

  it('--webhook: an endpoint of the first key’s business, once; the signature keys in its JSON line; each notification logged', async () => {
    const dir = tempDir('pay-sandbox-')
    const hook = await startReceiver()
    try {
      const args = ['--port', '0', '--key', 'k1', '--key', 'k2', '--webhook', hook.url]
      const first = await start(args, dir)
      expect(first.line.signature_keys).toEqual([
        expect.stringMatching(/^sig_sandbox_[0-9a-f]{48}$/),
        expect.stringMatching(/^sig_sandbox_[0-9a-f]{48}$/),
      ])
      expect(first.line.signature_keys[0]).not.toBe(first.line.signature_keys[1])
      expect(first.line.webhooks).toEqual([
        {
          _id: expect.stringMatching(/^[0-9a-f]{24}$/),
          url: hook.url,
          events: ['payment.created'],
          enabled: true,
        },
      ])
      const k1 = { PAY_API_KEY: 'k1', PAY_BASE_URL: first.baseUrl, PAY_SANDBOX_DIR: dir }
      const id = JSON.parse((await runCli([...linkCreateArgs(), '--json'], { env: k1 })).stdout)._id
      expect((await runCli(['sandbox', 'pay', id], { env: k1 })).code).toBe(0)
      // The delivery's line comes once the receiver answered, after the request lines.
      await onStderr(first, (text) => / WEBHOOK .* delivered\n/.test(text), 'the delivery logged')
      expect(await stop(first, 'SIGTERM')).toBe(0)
      expect(normalised(first.stderr())).toMatch(
        new RegExp(`\nTIME WEBHOOK ${hook.url.replace(/\./g, '\\.')} 200 \\d+\\.\\d ms delivered\n`),
      )
      expect(verifyWebhook(hook.received[0].body, first.line.signature_keys[0])).toBe(true)
      // Started again on the directory: the same keys, the same one endpoint.
      const again = await start(args, dir)
      expect([again.line.signature_keys, again.line.webhooks]).toEqual([
        first.line.signature_keys,
        first.line.webhooks,
      ])
      expect(await stop(again, 'SIGTERM')).toBe(0)
    } finally {
      await hook.close()
    }
    const refused = await runCli(['sandbox', 'start', '--port', '0', '--webhook', 'ftp://x/hook'], {
      env: { PAY_SANDBOX_DIR: dir },
    })
    expect([refused.code, refused.stderr]).toEqual([
      2,
      'Error: --webhook: "ftp://x/hook" is not an http:// or https:// URL.\nSee `pay sandbox start --help`.\n',
    ])
  })

  it('logs one line per request on stderr: method, path with no secret in it, status, ms; never a key', async () => {
    const dir = tempDir('pay-sandbox-')
    const sandbox = await start(['--port', '0', '--key', CANARY], dir)
    const env = { PAY_API_KEY: CANARY, PAY_BASE_URL: sandbox.baseUrl }
    const created = await runCli([...linkCreateArgs(), '--json'], { env })
    expect(created.code).toBe(0)
    const id = JSON.parse(created.stdout)._id
    expect((await runCli(['links', 'get', id, '-q'], { env })).code).toBe(0)
    expect((await runCli(['links', 'get', '0123456789abcdef01234567'], { env })).code).toBe(5)
    const get = (route: string, key = CANARY) =>
      fetch(`${sandbox.baseUrl}${route}`, { headers: { Authorization: `Bearer ${key}` } })
    await get(`/payment-links?page=2&per_page=5&api_key=${CANARY}&token=tok_secret_1`)
    await get(`/payment-links/${CANARY}`)
    // Percent-encoded, wholly or in part: the log finds it all the same.
    await get(`/payment-links/${[...CANARY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`)
    await get(`/payment-links?id=${CANARY.replace(/_/g, '%5F')}`)
    await get('/subscriptions', 'sk_test_not_a_key_of_this_sandbox')
    await get(`/checkout/tokens/${'ab'.repeat(20)}/activate?test=true`)
    await linesOnStderr(sandbox, 14)
    expect(await stop(sandbox, 'SIGINT')).toBe(0)
    expect(normalised(sandbox.stderr())).toBe(
      [
        KEY_NOTE,
        `Database: ${path.join(dir, 'store.db')}`,
        hint(sandbox.baseUrl, dir),
        'TIME POST /payment-links 200 MS',
        `TIME GET /payment-links/${id} 200 MS`,
        'TIME GET /payment-links/0123456789abcdef01234567 404 MS',
        'TIME GET /payment-links?page=2&per_page=5&api_key=[REDACTED]&token=[REDACTED] 200 MS',
        'TIME GET /payment-links/[REDACTED] 404 MS',
        'TIME GET /payment-links/[REDACTED] 404 MS',
        'TIME GET /payment-links?id=[REDACTED] 200 MS',
        'TIME GET /subscriptions 401 MS',
        'TIME GET /checkout/tokens/[REDACTED]/activate?test=true 404 MS',
        'Sandbox stopped after 9 requests.',
        '',
      ].join('\n'),
    )
    expect(sandbox.stderr()).not.toContain('tok_secret_1')
    expect(sandbox.stderr()).not.toContain(CANARY.slice(8))
  })

  it('--quiet logs no request: where the database is, and the line when it stops', async () => {
    const dir = tempDir('pay-sandbox-')
    const sandbox = await start(['--port', '0', '--quiet'], dir)
    await fetch(`${sandbox.baseUrl}/_sandbox/health`)
    await fetch(`${sandbox.baseUrl}/payment-links`)
    expect(await stop(sandbox, 'SIGINT')).toBe(0)
    const made =
      `Made an API key for this sandbox directory, kept in ${path.join(dir, 'sandbox.key')} (readable by you alone): ` +
      '`pay -p sandbox` sends it. The well-known sandbox key is served only when given by name.\n'
    expect(sandbox.stderr()).toBe(
      `${made}Database: ${path.join(dir, 'store.db')}\n${hint(sandbox.baseUrl, dir)}\nSandbox stopped after 2 requests.\n`,
    )
  })

  it('on the port of a running sandbox: points to it when it is yours, else says it is not; exit 2', async () => {
    const dir = tempDir('pay-sandbox-')
    const { baseUrl } = await start(['--port', '0'], dir)
    const port = new URL(baseUrl).port
    const taken = await runCli(['sandbox', 'start', '--port', port], { env: { PAY_SANDBOX_DIR: dir } })
    expect(taken).toMatchObject({ code: 2, stdout: '' })
    expect(taken.stderr).toBe(
      `Error: Port ${port} is taken: a pay sandbox already runs at ${baseUrl}.\n` +
        'Use it, or pick another port with --port PORT, or --port 0 for any free one.\n',
    )
    // Another PAY_SANDBOX_DIR: that sandbox cannot prove it is the one of this directory.
    const other = tempDir('pay-sandbox-')
    const notYours = await runCli(['sandbox', 'start', '--port', port], { env: { PAY_SANDBOX_DIR: other } })
    expect(notYours).toMatchObject({ code: 2, stdout: '' })
    expect(notYours.stderr).toBe(
      `Error: Port ${port} on 127.0.0.1 is taken by a pay sandbox that is not yours: it could not prove it keeps its store in ${other} (another PAY_SANDBOX_DIR's, or another user's).\n` +
        'Pick another port with --port PORT, or --port 0 for any free one.\n',
    )
  })
})

describe('sandbox keys out of other users’ sight', () => {
  /** The process's command line, as any user of the machine reads it (ps, /proc/PID/cmdline). */
  const commandLine = (sandbox: SandboxProcess) =>
    fs.readFileSync(`/proc/${sandbox.child.pid}/cmdline`, 'utf8').split('\0').join(' ')

  it.runIf(process.platform === 'linux')(
    '--key shows in the process list (and says so); --key-file and PAY_SANDBOX_KEYS do not',
    async () => {
      const dir = tempDir('pay-sandbox-keys-')
      const file = path.join(dir, 'keys')
      fs.writeFileSync(file, `${CANARY}\n`, { mode: 0o600 })
      const flagged = await start(['--port', '0', '--key', CANARY])
      expect(commandLine(flagged)).toContain(CANARY)
      expect(flagged.stderr().split('\n')[0]).toBe(KEY_NOTE)
      const fromFile = await start(['--port', '0', '--key-file', file])
      const fromEnv = await startSandboxProcess(
        [BIN, 'sandbox', 'start', '--json', '--port', '0'],
        cleanEnv({ PAY_SANDBOX_DIR: tempDir('pay-sandbox-'), PAY_SANDBOX_KEYS: CANARY }),
      )
      for (const sandbox of [fromFile, fromEnv]) {
        expect(sandbox.line.keys).toEqual([CANARY])
        expect(commandLine(sandbox)).not.toContain(CANARY)
        expect(sandbox.stderr()).not.toContain('Warning')
        // The environment is the user's own to read: /proc/PID/environ is 0400.
        expect(fs.statSync(`/proc/${sandbox.child.pid}/environ`).mode & 0o777).toBe(0o400)
      }
    },
  )
})
