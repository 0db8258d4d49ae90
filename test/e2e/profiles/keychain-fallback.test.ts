import { afterAll, beforeAll, describe, it } from 'vitest'
import { runCli, tempDir } from '../../helpers/cli.js'
import { configFile, freshConfigDir, modeOf, readJson, writeConfig } from '../../helpers/config-files.js'
import { startKeyServer } from '../../helpers/key-server.js'
import { kernelKeysNaming, startDeadBus } from '../../helpers/keyring.js'
import { keyedSandboxDir } from '../../helpers/profiles.js'

/**
 * No keychain: no D-Bus session at all, or a session bus that accepts the connection and never
 * answers (a hung D-Bus: the 3-second limit). And no keychain call where none is needed.
 */

const KEY = 'sk_live_Fb4kQ8wE2rT6yU0i'
const KEY_SHOWN = 'sk_l…yU0i'
/** The sandbox directory of the runs that list profiles, its own key made: shown redacted. */
const SANDBOX = keyedSandboxDir()
const KEYCHAIN_PROFILE = (dir: string) => ({
  current: 'live',
  profiles: {
    live: { base_url: 'https://pay.example', key_storage: 'keychain', keychain_account: `live@${dir}` },
  },
})

/**
 * A command facing a hung keychain gives up on it at 3 s. No test measures that (timings on a
 * shared machine prove nothing); a run still going after this long is killed, and its result
 * (signal SIGKILL, no output) fails the test: the hang detector.
 */
const HANG_MS = 15_000

let deadBus: Awaited<ReturnType<typeof startDeadBus>>
beforeAll(async () => {
  deadBus = await startDeadBus()
})
afterAll(() => deadBus?.close())

// D-Bus is how Linux reaches its keychain; macOS and Windows have theirs always.
const onLinux = process.platform === 'linux'

describe.runIf(onLinux).concurrent('with no D-Bus session', () => {
  it('pay login stores the key in the 0600 file and says so in one line', async ({
    expect,
    onTestFinished,
  }) => {
    const server = await startKeyServer([KEY])
    onTestFinished(() => server.close())
    const dir = freshConfigDir()
    const result = await runCli(['login', '--with-key', '--base-url', server.baseUrl], {
      input: KEY,
      // No address, and no $XDG_RUNTIME_DIR/bus to fall back on.
      env: { PAY_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: tempDir() },
    })
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr:
        `no system keychain: key stored in plain text in ${configFile(dir)}\n` +
        `Saved profile "default" (key ${KEY_SHOWN} in the config file, ${server.baseUrl}), key verified. It is now the current profile.\n`,
    })
    expect(readJson(configFile(dir))).toEqual({
      current: 'default',
      profiles: { default: { api_key: KEY, base_url: server.baseUrl } },
    })
    expect(modeOf(configFile(dir)).toString(8)).toBe('600')
    // Not in the kernel's keyring either, where @napi-rs/keyring would have put it.
    expect(kernelKeysNaming(`default@${dir}`) ?? []).toEqual([])
  })

  it('--debug says why there was no keychain', async ({ expect }) => {
    const dir = freshConfigDir()
    const result = await runCli(
      ['login', '--with-key', '--no-verify', '--base-url', 'https://pay.example', '--debug'],
      {
        input: KEY,
        env: { PAY_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: tempDir() },
      },
    )
    expect(result.code).toBe(0)
    expect(result.stderr.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\[debug\\] keychain: store "default@${dir}": the system keychain is not available ` +
            '\\(no D-Bus session or Secret Service\\) \\(\\d+ ms, service "pay"\\)$',
        ),
      ),
      `no system keychain: key stored in plain text in ${configFile(dir)}`,
    ])
  })
})

describe.runIf(onLinux).concurrent('with a D-Bus session that never answers', () => {
  const onDeadBus = (dir: string, extra: Record<string, string> = {}) => ({
    PAY_CONFIG_DIR: dir,
    PAY_SANDBOX_DIR: SANDBOX.dir,
    DBUS_SESSION_BUS_ADDRESS: deadBus.address,
    ...extra,
  })

  it('pay login gives up on the keychain at the 3 s limit and stores the key in the file', async ({
    expect,
  }) => {
    const dir = freshConfigDir()
    const connections = deadBus.connections()
    const result = await runCli(['login', '--with-key', '--no-verify', '--base-url', 'https://pay.example'], {
      input: KEY,
      env: onDeadBus(dir),
      timeoutMs: HANG_MS,
    })
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr:
        `no system keychain: key stored in plain text in ${configFile(dir)}\n` +
        `Saved profile "default" (key ${KEY_SHOWN} in the config file, https://pay.example). It is now the current profile.\n`,
    })
    expect(readJson(configFile(dir)).profiles.default).toEqual({
      api_key: KEY,
      base_url: 'https://pay.example',
    })
    // It did try the keychain: the bus saw the connection.
    expect(deadBus.connections()).toBeGreaterThan(connections)
  })

  it('a command needing a keychain key exits 4, naming the profile and the way out', async ({ expect }) => {
    const dir = freshConfigDir()
    writeConfig(dir, KEYCHAIN_PROFILE(dir))
    const result = await runCli(['links', 'list'], { env: onDeadBus(dir), timeoutMs: HANG_MS })
    expect(result).toEqual({
      code: 4,
      signal: null,
      stdout: '',
      stderr:
        'Error: The key of profile "live" is in the system keychain, which did not answer within 3 s.\n' +
        'Unlock or start the keychain and try again, or set PAY_API_KEY. To keep this key in the ' +
        'config file instead: `pay login -p live --insecure-storage`.\n',
    })
  })

  it('profiles list shows what it can', async ({ expect }) => {
    const dir = freshConfigDir()
    writeConfig(dir, KEYCHAIN_PROFILE(dir))
    const result = await runCli(['profiles', 'list'], { env: onDeadBus(dir), timeoutMs: HANG_MS })
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout:
        `sandbox\tfalse\thttp://127.0.0.1:1\t${SANDBOX.shown}\tbuilt-in\n` +
        'live\ttrue\thttps://pay.example\t(keychain unavailable)\tkeychain\n',
      stderr: 'The system keychain did not answer within 3 s: the key of profile "live" cannot be shown.\n',
    })
  })

  it('profiles remove forgets the profile, and names the entry left behind', async ({ expect }) => {
    const dir = freshConfigDir()
    writeConfig(dir, KEYCHAIN_PROFILE(dir))
    const result = await runCli(['profiles', 'remove', 'live', '--json'], {
      env: onDeadBus(dir),
      timeoutMs: HANG_MS,
    })
    expect([result.code, JSON.parse(result.stdout), result.stderr]).toEqual([
      0,
      { removed: 'live', was_current: true, key_storage: 'keychain', key_deleted: false },
      'Warning: The key of profile "live" is still in the system keychain, which did not answer within 3 s; ' +
        `delete it there (service "pay", account "live@${dir}").\n`,
    ])
    expect(readJson(configFile(dir))).toEqual({ profiles: {} })
  })
})

describe.runIf(onLinux)('commands that need no keychain key never ask the keychain', () => {
  it('with the sandbox profile, PAY_API_KEY, a file key, or --insecure-storage: no connection to the bus', async ({
    expect,
    onTestFinished,
  }) => {
    // A bus of its own: the other tests' connections must not count.
    const deadBus = await startDeadBus()
    const server = await startKeyServer([KEY])
    onTestFinished(() => Promise.all([server.close(), deadBus.close()]).then(() => {}))
    const fileDir = freshConfigDir()
    writeConfig(fileDir, { current: 'file', profiles: { file: { api_key: KEY, base_url: server.baseUrl } } })
    const keychainDir = freshConfigDir()
    writeConfig(keychainDir, KEYCHAIN_PROFILE(keychainDir))
    const runs: [string[], Record<string, string>, string?][] = [
      [['-p', 'sandbox', 'links', 'list'], { PAY_CONFIG_DIR: freshConfigDir() }],
      [
        ['links', 'list'],
        { PAY_CONFIG_DIR: freshConfigDir(), PAY_API_KEY: KEY, PAY_BASE_URL: server.baseUrl },
      ],
      [['links', 'list'], { PAY_CONFIG_DIR: fileDir }],
      [['profiles', 'list'], { PAY_CONFIG_DIR: fileDir }],
      [['profiles', 'use', 'sandbox'], { PAY_CONFIG_DIR: fileDir }],
      // A keychain profile whose key PAY_API_KEY replaces.
      [['links', 'list', '--base-url', server.baseUrl], { PAY_CONFIG_DIR: keychainDir, PAY_API_KEY: KEY }],
      [['profiles', 'show'], { PAY_CONFIG_DIR: keychainDir, PAY_API_KEY: KEY }],
      [
        ['login', '--with-key', '--insecure-storage', '--base-url', server.baseUrl],
        { PAY_CONFIG_DIR: freshConfigDir() },
        KEY,
      ],
    ]
    for (const [args, env, input] of runs) {
      const result = await runCli(args, { input, env: { ...env, DBUS_SESSION_BUS_ADDRESS: deadBus.address } })
      expect([args, result.code]).toEqual([args, 0])
    }
    expect(deadBus.connections()).toBe(0)
    // The zero means something: a command that needs the keychain does connect.
    await runCli(['links', 'list'], {
      env: { PAY_CONFIG_DIR: keychainDir, DBUS_SESSION_BUS_ADDRESS: deadBus.address },
    })
    expect(deadBus.connections()).toBeGreaterThan(0)
  })
})

describe.concurrent('PAY_KEYCHAIN=0', () => {
  // A dead bus to count connections: with the keychain off, pay never even starts its helper.
  it('pay login stores the key in the file, with the same one line, asking no keychain', async ({
    expect,
    onTestFinished,
  }) => {
    const bus = await startDeadBus()
    onTestFinished(() => bus.close())
    const dir = freshConfigDir()
    const env = { PAY_CONFIG_DIR: dir, PAY_KEYCHAIN: '0', DBUS_SESSION_BUS_ADDRESS: bus.address }
    const args = ['login', '--with-key', '--no-verify', '--base-url', 'https://pay.example']
    expect(await runCli(args, { input: KEY, env })).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr:
        `no system keychain: key stored in plain text in ${configFile(dir)}\n` +
        `Saved profile "default" (key ${KEY_SHOWN} in the config file, https://pay.example). It is now the current profile.\n`,
    })
    expect(readJson(configFile(dir)).profiles.default).toEqual({
      api_key: KEY,
      base_url: 'https://pay.example',
    })
    const debug = await runCli([...args, '--debug'], { input: KEY, env })
    expect(debug.stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^\\[debug\\] keychain: store "default@${dir}": the system keychain is turned off \\(PAY_KEYCHAIN=0\\) \\(\\d+ ms, service "pay"\\)$`,
      ),
    )
    expect(bus.connections()).toBe(0)
  })

  it('a profile whose key is in the keychain: exit 4 saying the keychain is off; list and remove say so', async ({
    expect,
    onTestFinished,
  }) => {
    const bus = await startDeadBus()
    onTestFinished(() => bus.close())
    const dir = freshConfigDir()
    writeConfig(dir, KEYCHAIN_PROFILE(dir))
    const env = {
      PAY_CONFIG_DIR: dir,
      PAY_SANDBOX_DIR: SANDBOX.dir,
      PAY_KEYCHAIN: '0',
      DBUS_SESSION_BUS_ADDRESS: bus.address,
    }
    expect(await runCli(['links', 'list'], { env })).toEqual({
      code: 4,
      signal: null,
      stdout: '',
      stderr:
        'Error: The key of profile "live" is in the system keychain, which is turned off (PAY_KEYCHAIN=0).\n' +
        'Unset PAY_KEYCHAIN to use it, or set PAY_API_KEY.\n',
    })
    expect(await runCli(['profiles', 'list'], { env })).toEqual({
      code: 0,
      signal: null,
      stdout:
        `sandbox\tfalse\thttp://127.0.0.1:1\t${SANDBOX.shown}\tbuilt-in\n` +
        'live\ttrue\thttps://pay.example\t(keychain unavailable)\tkeychain\n',
      stderr:
        'The system keychain is turned off (PAY_KEYCHAIN=0): the key of profile "live" cannot be shown.\n',
    })
    expect(await runCli(['profiles', 'remove', 'live'], { env })).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr:
        'Warning: The key of profile "live" is still in the system keychain, which is turned off (PAY_KEYCHAIN=0); ' +
        `delete it there (service "pay", account "live@${dir}").\n` +
        'Removed profile "live". No profile is current now.\n',
    })
    expect(bus.connections()).toBe(0)
  })
})
