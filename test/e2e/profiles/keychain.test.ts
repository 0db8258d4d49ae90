import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CliResult, runCli } from '../../helpers/cli.js'
import { configFile, freshConfigDir, modeOf, readJson, writeConfig } from '../../helpers/config-files.js'
import type { FakeServer } from '../../helpers/fake-server.js'
import { startKeyServer } from '../../helpers/key-server.js'
import { type KeyringSession, RUN_KEYRING_TESTS, startKeyring } from '../../helpers/keyring.js'
import { filesUnder } from '../../helpers/leak.js'
import { keyedSandboxDir } from '../../helpers/profiles.js'
import { startTestSandbox } from '../../helpers/sandbox.js'

/**
 * Keys in a real Secret Service (gnome-keyring in a private D-Bus session, test/helpers/keyring.ts):
 * where `pay login` puts them, that commands read them from there, that the config dir holds no
 * trace of them, and what happens when an entry vanishes or the profile goes.
 */

const KEY = 'sk_live_Kc7hN2pQ4sW6yB8d'
const KEY_SHOWN = 'sk_l…yB8d'
const OTHER_KEY = 'sk_live_Ot3rM5nJ7kL9vX1z'
/** The sandbox directory of every run, its own key made: the built-in profile's row shows it redacted. */
const SANDBOX = keyedSandboxDir()

/** No file under `dir` holds the key, nor any 8 characters of it in a row (UTF-8 or UTF-16). */
function expectKeyInNoFile(dir: string, key: string): void {
  const pieces = Array.from({ length: key.length - 7 }, (_, i) => key.slice(i, i + 8))
  const files = filesUnder(dir)
  expect(files.length).toBeGreaterThan(0)
  for (const file of files) {
    const bytes = fs.readFileSync(file)
    for (const piece of pieces) {
      for (const encoding of ['utf8', 'utf16le'] as const) {
        if (bytes.includes(Buffer.from(piece, encoding)))
          throw new Error(`${file} holds ${JSON.stringify(piece)} of the key (${encoding})`)
      }
    }
  }
}

describe.runIf(RUN_KEYRING_TESTS)('keys in the system keychain (a real Secret Service)', () => {
  // One keyring for the file (each test its own config dir, so its own entries); a service per test.
  // The tests run one after another: run together, their keychain calls queued at the one keyring
  // daemon, and on a machine busy with the rest of the suite an answer then came after pay's 3 s,
  // so that `pay login` took the keychain for absent and put the key in the file.
  let keyring: KeyringSession
  beforeAll(async () => {
    keyring = await startKeyring()
  })
  afterAll(() => keyring?.close())

  /** A service accepting KEY and OTHER_KEY, and pay pointed at it with a config dir of its own. */
  async function setUp(onTestFinished: (fn: () => Promise<void>) => void) {
    const server: FakeServer = await startKeyServer([KEY, OTHER_KEY])
    onTestFinished(() => server.close())
    const pay = (
      dir: string,
      args: string[],
      options: { input?: string; env?: Record<string, string> } = {},
    ) =>
      runCli(args, {
        input: options.input,
        env: { ...keyring.env, PAY_CONFIG_DIR: dir, PAY_SANDBOX_DIR: SANDBOX.dir, ...options.env },
      })
    const login = (dir: string, args: string[], key = KEY) =>
      pay(dir, ['login', '--with-key', '--base-url', server.baseUrl, ...args], { input: `${key}\n` })
    const requestsWith = (key: string) =>
      server.requests.filter((request) => request.headers.authorization === `Bearer ${key}`).length
    return { server, pay, login, requestsWith }
  }

  it('pay login stores the key there: secret-tool reads it, and no file under the config dir holds it', async ({
    onTestFinished,
  }) => {
    const { server, login } = await setUp(onTestFinished)
    const dir = freshConfigDir()
    const result = await login(dir, ['-p', 'live'])
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: `Saved profile "live" (key ${KEY_SHOWN} in the system keychain, ${server.baseUrl}), key verified. It is now the current profile.\n`,
    })
    expect(readJson(configFile(dir))).toEqual({
      current: 'live',
      profiles: {
        live: { base_url: server.baseUrl, key_storage: 'keychain', keychain_account: `live@${dir}` },
      },
    })
    expect(keyring.lookup(`live@${dir}`)).toBe(KEY)
    expectKeyInNoFile(dir, KEY)
    expect(modeOf(configFile(dir)).toString(8)).toBe('600')
  })

  it('commands take the key from there; profiles list and show say "keychain" and show it redacted', async ({
    onTestFinished,
  }) => {
    const { server, pay, login, requestsWith } = await setUp(onTestFinished)
    const dir = freshConfigDir()
    expect((await login(dir, ['-p', 'live', '--json'])).code).toBe(0)
    const before = requestsWith(KEY)
    const listed = await pay(dir, ['links', 'list', '--json'])
    expect([listed.code, listed.stdout, listed.stderr]).toEqual([0, '[]\n', ''])
    expect(requestsWith(KEY)).toBe(before + 1)

    const profiles = await pay(dir, ['profiles', 'list'])
    expect(profiles).toEqual({
      code: 0,
      signal: null,
      stdout:
        `sandbox\tfalse\thttp://127.0.0.1:1\t${SANDBOX.shown}\tbuilt-in\n` +
        `live\ttrue\t${server.baseUrl}\t${KEY_SHOWN}\tkeychain\n`,
      stderr: '',
    })
    const shown = await pay(dir, ['profiles', 'show', '--json'])
    expect([shown.code, shown.stderr, JSON.parse(shown.stdout)]).toEqual([
      0,
      '',
      {
        name: 'live',
        current: true,
        base_url: server.baseUrl,
        api_key: KEY_SHOWN,
        key_storage: 'keychain',
        built_in: false,
      },
    ])
    expectKeyInNoFile(dir, KEY)
  })

  it('--debug says what was asked of the keychain and how long it took, never the key', async ({
    onTestFinished,
  }) => {
    const { pay, login } = await setUp(onTestFinished)
    const dir = freshConfigDir()
    await login(dir, ['-p', 'live'])
    const result = await pay(dir, ['links', 'list', '--debug'])
    expect(result.code).toBe(0)
    expect(result.stderr.split('\n')[0]).toMatch(
      new RegExp(`^\\[debug\\] keychain: read "live@${dir}": 1 found \\(\\d+ ms, service "pay"\\)$`),
    )
  })

  it('login --email keeps the access token there too, beside the key: commands read it; profiles remove deletes both', async ({
    onTestFinished,
  }) => {
    const sandbox = await startTestSandbox({ keys: [KEY] })
    onTestFinished(() => sandbox.close())
    const dir = freshConfigDir()
    const env = { ...keyring.env, PAY_CONFIG_DIR: dir, PAY_SANDBOX_DIR: sandbox.dir }
    const { email, password } = sandbox.sandbox.account
    const base = `${sandbox.baseUrl}/api`
    const login = await runCli(
      ['login', '--email', email, '--password-stdin', '-p', 'shop', '--base-url', base],
      {
        env,
        input: `${password}\n`,
      },
    )
    expect(login).toMatchObject({ code: 0, stdout: '' })
    expect(login.stderr).toContain(`Saved profile "shop" (key ${KEY_SHOWN} in the system keychain, ${base})`)
    const stored = readJson(configFile(dir)).profiles.shop
    expect(stored).toMatchObject({
      key_storage: 'keychain',
      keychain_account: `shop@${dir}`,
      access_token_storage: 'keychain',
    })
    expect(stored).not.toHaveProperty('access_token')
    expect(stored).not.toHaveProperty('api_key')
    const token = keyring.lookup(`shop@${dir}#access-token`)
    expect(token).toMatch(/^sat_/)
    expect(keyring.lookup(`shop@${dir}`)).toBe(KEY)
    expectKeyInNoFile(dir, String(token))
    expectKeyInNoFile(dir, KEY)
    // The account's commands send the token read from there.
    const listed = await runCli(['businesses', 'list', '--json'], { env })
    expect([listed.code, listed.stderr]).toEqual([0, ''])
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ chosen: true })])
    expect(listed.stdout).not.toContain(String(token))
    expect(await runCli(['profiles', 'remove', 'shop'], { env })).toMatchObject({
      code: 0,
      stderr:
        'Removed profile "shop". Its key and access token were deleted from the system keychain. No profile is current now.\n',
    })
    expect(keyring.lookup(`shop@${dir}#access-token`)).toBeUndefined()
    expect(keyring.lookup(`shop@${dir}`)).toBeUndefined()
  })

  it('profiles remove deletes the keychain entry too', async ({ onTestFinished }) => {
    const { pay, login } = await setUp(onTestFinished)
    const dir = freshConfigDir()
    await login(dir, ['-p', 'live'])
    await login(dir, ['-p', 'other'], OTHER_KEY)
    expect(keyring.accounts()).toEqual(expect.arrayContaining([`live@${dir}`, `other@${dir}`]))
    expect(await pay(dir, ['profiles', 'remove', 'live'])).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: 'Removed profile "live". Its key was deleted from the system keychain.\n',
    })
    expect(keyring.lookup(`live@${dir}`)).toBeUndefined()
    expect(keyring.accounts()).not.toContain(`live@${dir}`)
    expect(keyring.lookup(`other@${dir}`)).toBe(OTHER_KEY)
    const json = await pay(dir, ['profiles', 'remove', 'other', '--json'])
    expect([json.code, json.stderr, JSON.parse(json.stdout)]).toEqual([
      0,
      '',
      { removed: 'other', was_current: true, key_storage: 'keychain', key_deleted: true },
    ])
    expect(keyring.lookup(`other@${dir}`)).toBeUndefined()
    // An entry already gone: the profile goes, and pay says the key was not there.
    await login(dir, ['-p', 'gone'])
    keyring.clear(`gone@${dir}`)
    expect(await pay(dir, ['profiles', 'remove', 'gone'])).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr:
        'Removed profile "gone". Its key was no longer in the system keychain. No profile is current now.\n',
    })
  })

  it('an entry that vanished: exit 4 naming the profile and pay login -p NAME, nothing sent', async ({
    onTestFinished,
  }) => {
    const { server, pay, login } = await setUp(onTestFinished)
    const dir = freshConfigDir()
    await login(dir, ['-p', 'live'])
    keyring.clear(`live@${dir}`)
    const requests = server.requests.length
    const result = await pay(dir, ['links', 'list'])
    expect(result).toEqual({
      code: 4,
      signal: null,
      stdout: '',
      stderr:
        'Error: The key of profile "live" is no longer in the system keychain.\n' +
        'Run `pay login -p live` to store it again.\n',
    })
    expect(server.requests.length).toBe(requests)
    expect(await pay(dir, ['profiles', 'list'])).toEqual({
      code: 0,
      signal: null,
      stdout:
        `sandbox\tfalse\thttp://127.0.0.1:1\t${SANDBOX.shown}\tbuilt-in\n` +
        `live\ttrue\t${server.baseUrl}\t(not in keychain)\tkeychain\n`,
      stderr:
        'The key of profile "live" is no longer in the system keychain: run `pay login -p live` to store it again.\n',
    })
    // PAY_API_KEY needs no keychain; logging in again stores the key anew.
    const withEnv = await pay(dir, ['links', 'list', '--json'], { env: { PAY_API_KEY: KEY } })
    expect([withEnv.code, withEnv.stdout]).toEqual([0, '[]\n'])
    expect((await login(dir, ['-p', 'live'])).code).toBe(0)
    expect((await pay(dir, ['links', 'list'])).code).toBe(0)
    expect(keyring.lookup(`live@${dir}`)).toBe(KEY)
  })

  it('a file key keeps working; pay login -p NAME again moves it into the keychain', async ({
    onTestFinished,
  }) => {
    const { server, pay, requestsWith } = await setUp(onTestFinished)
    const dir = freshConfigDir()
    writeConfig(dir, { current: 'old', profiles: { old: { api_key: KEY, base_url: server.baseUrl } } })
    const before = requestsWith(KEY)
    expect((await pay(dir, ['links', 'list'])).code).toBe(0)
    expect((await pay(dir, ['profiles', 'show', '--json'])).stdout).toContain('"key_storage": "file"')
    expect(requestsWith(KEY)).toBe(before + 1)
    expect(keyring.lookup(`old@${dir}`)).toBeUndefined()

    const moved = await pay(dir, ['login', '-p', 'old', '--with-key', '--no-verify'], { input: KEY })
    expect([moved.code, moved.stderr]).toEqual([
      0,
      `Saved profile "old" (key ${KEY_SHOWN} in the system keychain, ${server.baseUrl}). It is now the current profile.\n`,
    ])
    expect(readJson(configFile(dir)).profiles.old).toEqual({
      base_url: server.baseUrl,
      key_storage: 'keychain',
      keychain_account: `old@${dir}`,
    })
    expect(keyring.lookup(`old@${dir}`)).toBe(KEY)
    expectKeyInNoFile(dir, KEY)
    expect((await pay(dir, ['links', 'list'])).code).toBe(0)
    expect(requestsWith(KEY)).toBe(before + 2)
  })

  it('--insecure-storage keeps the key in the file on purpose, and takes it out of the keychain', async ({
    onTestFinished,
  }) => {
    const { server, pay, login } = await setUp(onTestFinished)
    const dir = freshConfigDir()
    await login(dir, ['-p', 'live'])
    expect(keyring.lookup(`live@${dir}`)).toBe(KEY)
    const result = await login(dir, ['-p', 'live', '--insecure-storage'], OTHER_KEY)
    expect([result.code, result.stderr]).toEqual([
      0,
      `Saved profile "live" (key sk_l…vX1z in the config file, ${server.baseUrl}), key verified. It is now the current profile.\n`,
    ])
    expect(readJson(configFile(dir)).profiles.live).toEqual({ api_key: OTHER_KEY, base_url: server.baseUrl })
    expect(keyring.lookup(`live@${dir}`)).toBeUndefined()
    const listed = await pay(dir, ['profiles', 'list'])
    expect(listed.stdout).toContain(`live\ttrue\t${server.baseUrl}\tsk_l…vX1z\tfile\n`)
  })

  it('PAY_KEYCHAIN=0: the key goes to the file though there is a keychain, which is not touched', async ({
    onTestFinished,
  }) => {
    const { server, pay, login } = await setUp(onTestFinished)
    const dir = freshConfigDir()
    const result = await pay(dir, ['login', '--with-key', '-p', 'ci', '--base-url', server.baseUrl], {
      input: KEY,
      env: { PAY_KEYCHAIN: '0' },
    })
    expect([result.code, result.stderr]).toEqual([
      0,
      `no system keychain: key stored in plain text in ${configFile(dir)}\n` +
        `Saved profile "ci" (key ${KEY_SHOWN} in the config file, ${server.baseUrl}), key verified. It is now the current profile.\n`,
    ])
    expect(readJson(configFile(dir)).profiles.ci).toEqual({ api_key: KEY, base_url: server.baseUrl })
    expect(keyring.lookup(`ci@${dir}`)).toBeUndefined()
    // Without it, logging in again moves the key into the keychain.
    expect((await login(dir, ['-p', 'ci'])).code).toBe(0)
    expect(keyring.lookup(`ci@${dir}`)).toBe(KEY)
    expectKeyInNoFile(dir, KEY)
  })

  it("a config file naming another config dir's entry is refused as corrupt: that key is read, sent and deleted nowhere", async ({
    onTestFinished,
  }) => {
    const { server, pay, login, requestsWith } = await setUp(onTestFinished)
    const [victim, planted] = [freshConfigDir(), freshConfigDir()]
    await login(victim, ['-p', 'live'])
    expect(keyring.lookup(`live@${victim}`)).toBe(KEY)
    // A config dir (a project's, a shared one) whose file holds no key but points at the victim's entry.
    const file = writeConfig(planted, {
      current: 'live',
      profiles: {
        live: { base_url: server.baseUrl, key_storage: 'keychain', keychain_account: `live@${victim}` },
      },
    })
    const before = requestsWith(KEY)
    const corrupt =
      `Error: The config file ${file} is corrupt: profile "live" has keychain_account "live@${victim}", ` +
      `which is not its own entry (pay keeps the key of this profile under "live@${planted}", and reads no other).\n` +
      'pay has not changed it. Fix it by hand, or move it away and run `pay login` again.\n'
    for (const args of [
      ['links', 'list'],
      ['profiles', 'list'],
      ['profiles', 'show', 'live'],
      ['profiles', 'remove', 'live'],
      ['login', '-p', 'live', '--with-key', '--no-verify'],
    ]) {
      expect({ args, ...(await pay(planted, args, { input: OTHER_KEY })) }).toEqual({
        args,
        code: 1,
        signal: null,
        stdout: '',
        stderr: corrupt,
      })
    }
    expect(requestsWith(KEY)).toBe(before)
    expect(keyring.lookup(`live@${victim}`)).toBe(KEY)
    expect(keyring.accounts()).not.toContain(`live@${planted}`)
    // The victim's own config still works.
    expect((await pay(victim, ['links', 'list'])).code).toBe(0)
    expect(requestsWith(KEY)).toBe(before + 1)
  })

  it('two config dirs never share an entry, even for the same profile name', async ({ onTestFinished }) => {
    const { pay, login, requestsWith } = await setUp(onTestFinished)
    const [a, b] = [freshConfigDir(), freshConfigDir()]
    await login(a, [])
    await login(b, [], OTHER_KEY)
    expect([keyring.lookup(`default@${a}`), keyring.lookup(`default@${b}`)]).toEqual([KEY, OTHER_KEY])
    const [before, otherBefore] = [requestsWith(KEY), requestsWith(OTHER_KEY)]
    expect((await pay(a, ['links', 'list'])).code).toBe(0)
    expect((await pay(b, ['links', 'list'])).code).toBe(0)
    expect([requestsWith(KEY), requestsWith(OTHER_KEY)]).toEqual([before + 1, otherBefore + 1])
  })
})

describe.runIf(RUN_KEYRING_TESTS)('a locked keyring', () => {
  it('counts as no keychain: login falls back to the file, a keychain profile exits 4 saying so', async () => {
    const keyring = await startKeyring()
    const server = await startKeyServer([KEY])
    try {
      const env = (dir: string) => ({ ...keyring.env, PAY_CONFIG_DIR: dir })
      const run = (dir: string, args: string[], input?: string): Promise<CliResult> =>
        runCli(args, { input, env: env(dir) })
      const stored = freshConfigDir()
      const args = ['login', '--with-key', '--no-verify', '--base-url', server.baseUrl]
      expect((await run(stored, args, KEY)).code).toBe(0)
      keyring.lock()

      expect(await run(stored, ['links', 'list'])).toEqual({
        code: 4,
        signal: null,
        stdout: '',
        stderr:
          'Error: The key of profile "default" is in the system keychain, which is locked.\n' +
          'Unlock or start the keychain and try again, or set PAY_API_KEY. To keep this key in the ' +
          'config file instead: `pay login -p default --insecure-storage`.\n',
      })
      const dir = freshConfigDir()
      expect(await run(dir, args, KEY)).toEqual({
        code: 0,
        signal: null,
        stdout: '',
        stderr:
          `no system keychain: key stored in plain text in ${configFile(dir)}\n` +
          `Saved profile "default" (key ${KEY_SHOWN} in the config file, ${server.baseUrl}). It is now the current profile.\n`,
      })
      expect(readJson(configFile(dir)).profiles.default).toEqual({ api_key: KEY, base_url: server.baseUrl })
    } finally {
      await Promise.all([keyring.close(), server.close()])
    }
  })
})

describe.runIf(RUN_KEYRING_TESTS)('other entries of the service coming and going', () => {
  it('do not throw a read off (another pay removing profiles meanwhile)', async () => {
    const keyring = await startKeyring()
    const server = await startKeyServer([KEY])
    try {
      const dir = freshConfigDir()
      const env = { ...keyring.env, PAY_CONFIG_DIR: dir }
      const login = ['login', '--with-key', '--no-verify', '--base-url', server.baseUrl]
      expect((await runCli(login, { input: KEY, env })).code).toBe(0)
      // Entries of other profiles (other config dirs): twenty that stay, and more stored and
      // deleted again, one after another, while pay reads its own. An entry found by a search
      // may be gone when pay comes to read it.
      for (let i = 0; i < 20; i += 1) await keyring.store(`other-${i}@/elsewhere`, `secret-${i}`)
      let churning = true
      const churn = (async () => {
        for (let i = 0; churning; i += 1) await keyring.storeAndClear(`churn-${i}@/elsewhere`, `secret-${i}`)
      })()
      const reads = await Promise.all(
        Array.from({ length: 8 }, () => runCli(['links', 'list', '--json'], { env })),
      )
      churning = false
      await churn
      expect(reads.map((read) => [read.code, read.stdout, read.stderr])).toEqual(
        Array.from({ length: 8 }, () => [0, '[]\n', '']),
      )
    } finally {
      await Promise.all([keyring.close(), server.close()])
    }
  })
})
