import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import { describe, expect, it } from 'vitest'
import { accountBusinesses } from '../../src/sandbox/domain/account.js'
import { type AccountSandbox, startAccountSandbox } from '../helpers/account.js'
import type { CliResult } from '../helpers/cli.js'
import { configFile, freshConfigDir, readJson, writeConfig } from '../helpers/config-files.js'
import { sendJson, startFakeServer } from '../helpers/fake-server.js'
import { runInProcess } from '../helpers/in-process.js'
import { startKeyServer } from '../helpers/key-server.js'
import { KEY_A, KEY_B } from '../helpers/sandbox.js'

/** The integration id the sandbox gives the business of `key` (as approved-businesses answers it). */
const integrationOf = (_s: AccountSandbox, key: string) =>
  accountBusinesses([key]).map((business) => business.integrationId)[0]

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

describe.concurrent('pay login --email', () => {
  it('signs in, takes the business asked for, stores its key, signature key, integration and the token, and shows none of them', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    const business = String(s.t.sandbox.packages[KEY_A][0].business_id)
    const result = await s.signIn()
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      `no system keychain: key and access token stored in plain text in ${configFile(s.configDir)}\n` +
        `Signed in as ${s.account.email}; business Sandbox business 1 (${business}), integration ${integrationOf(s, KEY_A)}. ` +
        `Saved profile "shop" (key sk_s…9e1d in the config file, ${s.t.baseUrl}/api), key verified. It is now the current profile.\n`,
    )
    const token = readJson(configFile(s.configDir)).profiles.shop.access_token as string
    expect(readJson(configFile(s.configDir))).toEqual({
      current: 'shop',
      profiles: {
        shop: {
          api_key: KEY_A,
          base_url: `${s.t.baseUrl}/api`,
          access_token: token,
          account_email: s.account.email,
          business_id: business,
          business_name: 'Sandbox business 1',
          integration_id: integrationOf(s, KEY_A),
          signature_key: s.t.sandbox.webhooks.signatureKeys[0],
        },
      },
    })
    expect(token).toMatch(/^sat_/)
    for (const secret of [s.account.password, token, KEY_A, s.t.sandbox.webhooks.signatureKeys[0]])
      expect(result.stdout + result.stderr).not.toContain(secret)
    // --json: what was saved, its secrets redacted.
    const json = await s.signIn({ args: ['--json'] })
    expect(JSON.parse(json.stdout)).toEqual({
      profile: 'shop',
      base_url: `${s.t.baseUrl}/api`,
      api_key: 'sk_s…9e1d',
      key_storage: 'file',
      current: true,
      verified: true,
      account: s.account.email,
      business_id: business,
      business_name: 'Sandbox business 1',
      integration_id: integrationOf(s, KEY_A),
      signature_key: `${s.t.sandbox.webhooks.signatureKeys[0].slice(0, 4)}…${s.t.sandbox.webhooks.signatureKeys[0].slice(-4)}`,
    })
  })

  it('a wrong password: exit 3, under --email, in the service’s words; nothing saved', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    const result = await s.pay(
      ['login', '--email', s.account.email, '--password-stdin', '-p', 'shop', '--base-url', s.t.baseUrl],
      { input: 'not the password\n' },
    )
    expect(result).toMatchObject({
      code: 3,
      stdout: '',
      stderr: 'Error: The given data was invalid.\n  --email  These credentials do not match our records.\n',
    })
    expect(fs.existsSync(configFile(s.configDir))).toBe(false)
  })

  it('several businesses: off a terminal --business is needed (exit 2), an unknown one is exit 5; on a terminal pay asks, the password masked', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    const [a, b] = [KEY_A, KEY_B].map((key) => String(s.t.sandbox.packages[key][0].business_id))
    const base = ['login', '--email', s.account.email, '-p', 'shop', '--base-url', s.t.baseUrl]
    const unasked = await s.pay([...base, '--password-stdin'], { input: s.account.password })
    expect(unasked).toMatchObject({
      code: 2,
      stderr:
        'Error: The account has 2 businesses: choose one with --business ID.\n' +
        `Its businesses: ${a}, ${b} (neither stdin nor stdout is a terminal, so pay does not ask).\n`,
    })
    const unknown = await s.pay([...base, '--password-stdin', '--business', '404'], {
      input: s.account.password,
    })
    expect(unknown).toMatchObject({
      code: 5,
      stderr: `Error: The account has no approved business 404.\nIts businesses: ${a}, ${b}.\n`,
    })
    expect(fs.existsSync(configFile(s.configDir))).toBe(false)
    const asked = await s.pay(base, { terminal: true, answers: [s.account.password, b] })
    expect(asked.code).toBe(0)
    expect(asked.io.asked).toEqual([`Password of ${s.account.email}`, 'Business'])
    expect(readJson(configFile(s.configDir)).profiles.shop).toMatchObject({ api_key: KEY_B, business_id: b })
  })

  it('takes a base URL with or without /api, and refuses --with-key with --email (exit 2)', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    expect((await s.signIn({ profile: 'root', base: '' })).code).toBe(0)
    expect((await s.signIn({ profile: 'api', base: '/api/' })).code).toBe(0)
    const both = await s.pay(['login', '--email', s.account.email, '--with-key'], { input: 'x' })
    expect(both.code).toBe(2)
    expect(both.stderr).toBe(
      'Error: The following error occurred:\n' +
        `  --email=${s.account.email} cannot also be provided when using --with-key\n` +
        'See `pay login --help`.\n',
    )
  })
})
