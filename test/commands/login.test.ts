import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import { describe, expect, it } from 'vitest'
import type { CliResult } from '../helpers/cli.js'
import { configFile, freshConfigDir, readJson, writeConfig } from '../helpers/config-files.js'
import { sendJson, startFakeServer } from '../helpers/fake-server.js'
import { runInProcess } from '../helpers/in-process.js'
import { startKeyServer } from '../helpers/key-server.js'

const KEY = 'sk_live_Zq8vN3pL5tR7wX2y'
const KEY_SHOWN = 'sk_l…wX2y'
const OTHER_KEY = 'sk_live_Hk4mB9cD1fG6jQ0s'

/** Fails when any 6 characters in a row of the key appear in the output (redaction shows 4 at most). */
function expectNoKey(result: CliResult, key: string): void {
  const output = result.stdout + result.stderr
  for (let i = 0; i + 6 <= key.length; i += 1) expect(output).not.toContain(key.slice(i, i + 6))
}

interface LoginOptions {
  dir: string
  /** Piped to stdin; also the key that must never appear in the output. */
  input?: string
  env?: Record<string, string | undefined>
}

async function login(args: string[], { dir, input = '', env = {} }: LoginOptions): Promise<CliResult> {
  const result = await runInProcess(['login', ...args], { input, env: { PAY_CONFIG_DIR: dir, ...env } })
  for (const key of [KEY, OTHER_KEY, input.trim()]) if (key.length >= 6) expectNoKey(result, key)
  return result
}

/** Fresh fake services for one test, closed when it ends: tests run concurrently. */
async function servers(onTestFinished: (fn: () => Promise<void>) => void) {
  const accepting = await startKeyServer([KEY, OTHER_KEY])
  const other = await startKeyServer([KEY, OTHER_KEY])
  onTestFinished(async () => {
    await accepting.close()
    await other.close()
  })
  return { accepting, other }
}

describe.concurrent('pay login --with-key', () => {
  it('verifies the key with one GET, stores the profile as "default" and makes it current', async ({
    onTestFinished,
  }) => {
    const { accepting } = await servers(onTestFinished)
    const dir = freshConfigDir()
    const result = await login(['--with-key', '--base-url', accepting.baseUrl], { dir, input: `  ${KEY}\n` })
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr:
        `no system keychain: key stored in plain text in ${configFile(dir)}\n` +
        `Saved profile "default" (key ${KEY_SHOWN} in the config file, ${accepting.baseUrl}), key verified. It is now the current profile.\n`,
    })
    expect(accepting.requests).toHaveLength(1)
    const [request] = accepting.requests
    expect(request.method).toBe('GET')
    expect(request.path).toBe('/payment-links')
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(request.headers.accept).toBe('application/json')
    expect(request.body).toBe('')
    expect(readJson(configFile(dir))).toEqual({
      current: 'default',
      profiles: { default: { api_key: KEY, base_url: accepting.baseUrl } },
    })
  })

  it('saves nothing when the service answers 401, and exits 4', async ({ onTestFinished }) => {
    const { accepting } = await servers(onTestFinished)
    const dir = freshConfigDir()
    const result = await login(['--with-key', '--base-url', accepting.baseUrl], {
      dir,
      input: 'sk_live_WRONGwrongWRONG',
    })
    expect(result).toEqual({
      code: 4,
      signal: null,
      stdout: '',
      stderr: `Error: ${accepting.baseUrl} did not accept the key (401); nothing was saved.\n`,
    })
    expect(accepting.requests).toHaveLength(1)
    expect(fs.existsSync(configFile(dir))).toBe(false)
  })

  it('leaves an existing profile untouched when the new key is refused', async ({ onTestFinished }) => {
    const { accepting } = await servers(onTestFinished)
    const dir = freshConfigDir()
    const file = writeConfig(dir, {
      current: 'default',
      profiles: { default: { api_key: KEY, base_url: accepting.baseUrl } },
    })
    const before = fs.readFileSync(file, 'utf8')
    const result = await login(['--with-key'], { dir, input: 'sk_live_WRONGwrongWRONG' })
    expect([result.code, result.stderr]).toEqual([
      4,
      `Error: ${accepting.baseUrl} did not accept the key (401); nothing was saved.\n`,
    ])
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
  })

  it('saves nothing when verification fails otherwise (404: exit 5)', async () => {
    const dir = freshConfigDir()
    const server = await startFakeServer((_, res) => sendJson(res, 404, { message: 'No such route' }))
    try {
      const result = await login(['--with-key', '--base-url', server.baseUrl], { dir, input: KEY })
      expect(result).toEqual({ code: 5, signal: null, stdout: '', stderr: 'Error: No such route\n' })
      expect(server.requests).toHaveLength(1)
      expect(fs.existsSync(dir)).toBe(false)
    } finally {
      await server.close()
    }
  })

  it('sends nothing with --no-verify', async ({ onTestFinished }) => {
    const { accepting } = await servers(onTestFinished)
    const dir = freshConfigDir()
    const result = await login(['--with-key', '--no-verify', '--base-url', accepting.baseUrl], {
      dir,
      input: 'sk_test_unverified_0001',
    })
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr:
        `no system keychain: key stored in plain text in ${configFile(dir)}\n` +
        `Saved profile "default" (key sk_t…0001 in the config file, ${accepting.baseUrl}). It is now the current profile.\n`,
    })
    expect(accepting.requests).toEqual([])
    expect(readJson(configFile(dir)).profiles.default.api_key).toBe('sk_test_unverified_0001')
  })

  it('keeps the key out of the --debug trace', async ({ onTestFinished }) => {
    const { accepting } = await servers(onTestFinished)
    const dir = freshConfigDir()
    const result = await login(['--with-key', '--debug', '--base-url', accepting.baseUrl], {
      dir,
      input: KEY,
    })
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(`[debug] > GET ${accepting.baseUrl}/payment-links\n`)
    expect(result.stderr).toContain('[debug] > authorization: Bearer [REDACTED]\n')
    expect(accepting.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`])
  })

  it('prints the saved profile as JSON with --json, key redacted', async ({ onTestFinished }) => {
    const { accepting } = await servers(onTestFinished)
    const dir = freshConfigDir()
    const result = await login(['--with-key', '--json', '--base-url', accepting.baseUrl], { dir, input: KEY })
    // The one line about a key in plain text is said under --json too.
    expect([result.code, result.stderr]).toEqual([
      0,
      `no system keychain: key stored in plain text in ${configFile(dir)}\n`,
    ])
    expect(JSON.parse(result.stdout)).toEqual({
      profile: 'default',
      base_url: accepting.baseUrl,
      api_key: KEY_SHOWN,
      key_storage: 'file',
      current: true,
      verified: true,
    })
  })

  it('stores under --profile NAME, keeps other profiles, and makes the new one current', async ({
    onTestFinished,
  }) => {
    const { accepting, other } = await servers(onTestFinished)
    const dir = freshConfigDir()
    writeConfig(dir, {
      current: 'default',
      profiles: { default: { api_key: KEY, base_url: accepting.baseUrl } },
    })
    const result = await login(['--with-key', '--profile', 'live', '--base-url', other.baseUrl], {
      dir,
      input: OTHER_KEY,
    })
    expect([result.code, result.stdout, result.stderr]).toEqual([
      0,
      '',
      `no system keychain: key stored in plain text in ${configFile(dir)}\n` +
        `Saved profile "live" (key sk_l…jQ0s in the config file, ${other.baseUrl}), key verified. It is now the current profile.\n`,
    ])
    expect(readJson(configFile(dir))).toEqual({
      current: 'live',
      profiles: {
        default: { api_key: KEY, base_url: accepting.baseUrl },
        live: { api_key: OTHER_KEY, base_url: other.baseUrl },
      },
    })
  })
})

describe.concurrent('pay login: the base URL', () => {
  it('takes --base-url over PAY_BASE_URL', async ({ onTestFinished }) => {
    const { accepting, other } = await servers(onTestFinished)
    const dir = freshConfigDir()
    const result = await login(['--with-key', '--base-url', accepting.baseUrl], {
      dir,
      input: KEY,
      env: { PAY_BASE_URL: other.baseUrl },
    })
    expect(result.code).toBe(0)
    expect([accepting.requests.length, other.requests.length]).toEqual([1, 0])
    expect(readJson(configFile(dir)).profiles.default.base_url).toBe(accepting.baseUrl)
  })

  it('takes PAY_BASE_URL over the existing profile', async ({ onTestFinished }) => {
    const { accepting, other } = await servers(onTestFinished)
    const dir = freshConfigDir()
    writeConfig(dir, { profiles: { default: { api_key: 'old_key_000000', base_url: accepting.baseUrl } } })
    const result = await login(['--with-key'], { dir, input: KEY, env: { PAY_BASE_URL: other.baseUrl } })
    expect(result.code).toBe(0)
    expect([accepting.requests.length, other.requests.length]).toEqual([0, 1])
    expect(readJson(configFile(dir))).toEqual({
      current: 'default',
      profiles: { default: { api_key: KEY, base_url: other.baseUrl } },
    })
  })

  it("keeps the existing profile's base URL when neither is given", async ({ onTestFinished }) => {
    const { accepting, other } = await servers(onTestFinished)
    const dir = freshConfigDir()
    writeConfig(dir, {
      current: 'default',
      profiles: {
        default: { api_key: KEY, base_url: accepting.baseUrl },
        live: { api_key: 'old_key_000000', base_url: other.baseUrl },
      },
    })
    const result = await login(['--with-key', '-p', 'live'], { dir, input: OTHER_KEY })
    expect(result.code).toBe(0)
    expect(other.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${OTHER_KEY}`])
    expect(readJson(configFile(dir))).toEqual({
      current: 'live',
      profiles: {
        default: { api_key: KEY, base_url: accepting.baseUrl },
        live: { api_key: OTHER_KEY, base_url: other.baseUrl },
      },
    })
  })

  it('fails with exit 2 naming --base-url when there is none and no terminal to ask on', async () => {
    const dir = freshConfigDir()
    const result = await login(['--with-key'], { dir, input: KEY })
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr:
        'Error: Missing required flag: --base-url\nGive the service address with --base-url or PAY_BASE_URL (neither stdin nor stdout is a terminal, so pay does not ask).\n',
    })
    expect(fs.existsSync(dir)).toBe(false)
  })

  it('refuses a plain http:// base URL that is not loopback, with exit 2', async () => {
    const dir = freshConfigDir()
    const result = await login(['--with-key', '--base-url', 'http://pay.example'], { dir, input: KEY })
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr:
        'Error: Refusing to send the API key over plain http to pay.example.\n' +
        'Use an https:// base URL; http:// is allowed only for loopback addresses (127.0.0.1, localhost).\n',
    })
    expect(fs.existsSync(dir)).toBe(false)
  })

  // This machine's own non-loopback address: a server listening there would see any connection.
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address

  it.skipIf(external === undefined)(
    'refuses http:// to a non-loopback host before any connection',
    async ({ expect }) => {
      let connections = 0
      const listener = net.createServer((socket) => {
        connections += 1
        socket.destroy()
      })
      await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve))
      const { port } = listener.address() as net.AddressInfo
      try {
        const dir = freshConfigDir()
        const result = await login(['--with-key', '--base-url', `http://${external}:${port}`], {
          dir,
          input: KEY,
        })
        expect([result.code, result.stderr.split('\n')[0]]).toEqual([
          2,
          `Error: Refusing to send the API key over plain http to ${external}:${port}.`,
        ])
        expect(connections).toBe(0)
        expect(fs.existsSync(dir)).toBe(false)
        // The zero above means something: a connection to that address does reach the listener.
        const probe = net.connect(port, external)
        await new Promise<void>((resolve, reject) => probe.on('connect', resolve).on('error', reject))
        probe.destroy()
        await expect.poll(() => connections).toBe(1)
      } finally {
        await new Promise((resolve) => listener.close(resolve))
      }
    },
  )
})

describe.concurrent('pay login: refused input', () => {
  it('fails with exit 2 without --with-key off a terminal, sending nothing', async ({ onTestFinished }) => {
    const { accepting } = await servers(onTestFinished)
    const dir = freshConfigDir()
    const result = await login(['--base-url', accepting.baseUrl], { dir, input: KEY })
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr:
        'Error: No API key given: neither stdin nor stdout is a terminal, so pay cannot ask for it.\nPipe it in with --with-key.\n',
    })
    expect(accepting.requests).toEqual([])
    expect(fs.existsSync(dir)).toBe(false)
  })

  it.for([[''], ['  \n\t\n']])(
    'fails with exit 2 for an empty key (%j)',
    async ([input], { onTestFinished }) => {
      const { accepting } = await servers(onTestFinished)
      const dir = freshConfigDir()
      const result = await login(['--with-key', '--base-url', accepting.baseUrl], { dir, input })
      expect(result).toEqual({ code: 2, signal: null, stdout: '', stderr: 'Error: The API key is empty.\n' })
      expect(accepting.requests).toEqual([])
      expect(fs.existsSync(dir)).toBe(false)
    },
  )

  it('fails with exit 2 for a key with whitespace inside', async ({ onTestFinished }) => {
    const { accepting } = await servers(onTestFinished)
    const dir = freshConfigDir()
    const result = await login(['--with-key', '--base-url', accepting.baseUrl], {
      dir,
      input: `${KEY} ${OTHER_KEY}\n`,
    })
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'Error: The API key contains whitespace; check what was pasted or piped.\n',
    })
    expect(fs.existsSync(dir)).toBe(false)
  })

  it.for([[['-p', 'sandbox']]])('refuses %j with exit 2', async ([flags], { onTestFinished }) => {
    const { accepting } = await servers(onTestFinished)
    const dir = freshConfigDir()
    const result = await login(['--with-key', ...flags, '--base-url', accepting.baseUrl], {
      dir,
      input: KEY,
    })
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'Error: The sandbox profile is built in and needs no login.\nUse it with `-p sandbox`.\n',
    })
    expect(fs.existsSync(dir)).toBe(false)
  })

  it.for([['__proto__'], ['a b']])(
    'refuses the profile name %j with exit 2',
    async ([name], { onTestFinished }) => {
      const { accepting } = await servers(onTestFinished)
      const dir = freshConfigDir()
      const result = await login(['--with-key', `--profile=${name}`, '--base-url', accepting.baseUrl], {
        dir,
        input: KEY,
      })
      expect(result).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr: `Error: "${name}" cannot be a profile name.\nUse up to 64 letters, digits, ".", "_" and "-", starting with a letter or digit.\n`,
      })
      expect(fs.existsSync(dir)).toBe(false)
    },
  )
})
