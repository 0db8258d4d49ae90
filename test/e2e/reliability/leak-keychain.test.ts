import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CliResult } from '../../helpers/cli.js'
import { type KeyringSession, RUN_KEYRING_TESTS, startDeadBus, startKeyring } from '../../helpers/keyring.js'
import { CANARY, findCanary, inModes, type LeakCase, leakEnvironment } from '../../helpers/leak.js'
import { mapConcurrent } from '../../helpers/subs.js'

/**
 * The key never leaks through the keychain paths: `pay login` storing it in a real Secret Service
 * (gnome-keyring, test/helpers/keyring.ts), the commands reading it from there, profiles list,
 * show and remove, an entry that vanished, no D-Bus at all, a bus that never answers, the
 * keychain turned off. Every byte pay wrote is scanned as in leak.test.ts, and the config dir of
 * the keychain profiles is scanned too: with the key in the keychain, no file may hold it. The
 * keychain helper's command line and environment (/proc/PID/cmdline, environ) are scanned while it
 * runs: the key goes to it on stdin only.
 */

const { root, dirs, configFiles, state, scan, problems, pay, scanFiles, summary } = leakEnvironment()

/** The keychain profiles' config dir: scanned like every other file (not a config file allowed the key). */
const keychainConfig = path.join(root, 'keychain-config')
/** Config dirs where the key lands in the file by design (no keychain): allowed to hold it. */
const fileConfig = (name: string) => {
  const dir = path.join(root, `file-config-${name}`)
  configFiles.add(path.join(dir, 'config.json'))
  return dir
}

/** The helper processes seen while runs were in flight, and what their argv and environment held. */
const helpers = { seen: new Set<number>(), hits: [] as string[] }

/** Every process running dist/keychain-helper.cjs now: argv and environment scanned for the key. */
function scanHelpers(): void {
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let cmdline: Buffer
    let environ: Buffer
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`)
      if (!cmdline.includes('keychain-helper.cjs')) continue
      environ = fs.readFileSync(`/proc/${pid}/environ`)
    } catch {
      continue // gone meanwhile, or not ours
    }
    helpers.seen.add(Number(pid))
    for (const hit of findCanary(cmdline)) helpers.hits.push(`helper ${pid} argv: ${hit}`)
    for (const hit of findCanary(environ)) helpers.hits.push(`helper ${pid} environment: ${hit}`)
  }
}

describe.runIf(RUN_KEYRING_TESTS && process.platform === 'linux')(
  'the key never leaks (keychain paths)',
  () => {
    let keyring: KeyringSession
    let deadBus: Awaited<ReturnType<typeof startDeadBus>>
    beforeAll(async () => {
      keyring = await startKeyring()
      deadBus = await startDeadBus()
    })
    afterAll(async () => {
      await Promise.all([keyring?.close(), deadBus?.close()])
    })

    it('login into the keychain, commands, profiles, a vanished entry, no D-Bus, a dead bus, the keychain off', async ({
      onTestFinished,
    }) => {
      // The helpers are watched all along.
      const watcher = setInterval(scanHelpers, 25)
      onTestFinished(() => clearInterval(watcher))
      const watched = pay
      const base = state.sandbox.baseUrl
      const inKeychain = () => ({
        DBUS_SESSION_BUS_ADDRESS: keyring.env.DBUS_SESSION_BUS_ADDRESS,
        XDG_RUNTIME_DIR: keyring.env.XDG_RUNTIME_DIR,
        PAY_CONFIG_DIR: keychainConfig,
      })
      const stored = (result: CliResult) => expect(result.stderr).toContain('in the system keychain')
      const login = (profile: string, flags: string[]): LeakCase => ({
        label: `login --with-key into the keychain ${flags.join(' ') || 'piped'}`,
        args: ['login', '-p', profile, '--base-url', base, '--with-key', ...flags],
        input: `${CANARY}\n`,
        env: inKeychain(),
        code: 0,
        check: flags.includes('--json')
          ? (result) => expect(JSON.parse(result.stdout).key_storage).toBe('keychain')
          : stored,
      })
      for (const c of [
        login('live', []),
        login('live2', ['--json']),
        login('live3', ['--debug']),
        login('gone', ['--no-verify']),
      ])
        await watched(c)
      const accounts = ['live', 'live2', 'live3', 'gone'].map((name) => `${name}@${keychainConfig}`)
      expect(accounts.map((account) => keyring.lookup(account))).toEqual(accounts.map(() => CANARY))

      // Commands with the key from the keychain, and what profiles show of it.
      const cases: LeakCase[] = [
        ...inModes({
          label: 'links list, key in the keychain',
          args: ['links', 'list', '-p', 'live'],
          code: 0,
        }),
        ...inModes({
          label: 'subs list, key in the keychain',
          args: ['subs', 'list', '-p', 'live2'],
          code: 0,
        }),
        ...inModes({ label: 'profiles list, keychain', args: ['profiles', 'list'], code: 0 }),
        ...inModes({ label: 'profiles show, keychain', args: ['profiles', 'show', 'live'], code: 0 }),
        { label: 'profiles show, keychain (piped)', args: ['profiles', 'show', 'live3'], code: 0 },
        // Logging in again: the entry is replaced.
        { ...login('live3', ['--no-verify', '--debug']), label: 'login again into the keychain --debug' },
      ].map((c) => ({ ...c, env: { ...inKeychain(), ...c.env } }))
      await mapConcurrent(cases, 4, watched)

      // An entry that vanished behind pay's back: exit 4 naming the profile.
      keyring.clear(`gone@${keychainConfig}`)
      for (const c of [
        ...inModes({ label: 'links list, entry vanished', args: ['links', 'list', '-p', 'gone'], code: 4 }),
        { label: 'links list, entry vanished (piped)', args: ['links', 'list', '-p', 'gone'], code: 4 },
        ...inModes({ label: 'profiles list, entry vanished', args: ['profiles', 'list'], code: 0 }),
      ])
        await watched({ ...c, env: inKeychain() })

      // No D-Bus at all (no address, an XDG_RUNTIME_DIR without a bus), a bus that never answers,
      // the keychain turned off: logins fall back to the file (allowed to hold the key); keychain
      // profiles cannot be used, shown or cleaned up.
      const noBus = { DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: dirs.tmp }
      const onDeadBus = { DBUS_SESSION_BUS_ADDRESS: deadBus.address }
      const off = { PAY_KEYCHAIN: '0', DBUS_SESSION_BUS_ADDRESS: deadBus.address }
      const fallbackLogin = (
        label: string,
        env: Record<string, string | undefined>,
        flags: string[],
      ): LeakCase => ({
        label: `login --with-key, ${label} ${flags.join(' ') || 'piped'}`,
        args: ['login', '--base-url', base, '--with-key', ...flags],
        input: CANARY,
        env: { ...env, PAY_CONFIG_DIR: fileConfig(`${label.replace(/\W+/g, '-')}${flags.join('')}`) },
        code: 0,
        check: (result) => expect(result.stderr).toContain('no system keychain: key stored in plain text in'),
      })
      const unreachable: LeakCase[] = [
        fallbackLogin('no D-Bus', noBus, []),
        fallbackLogin('no D-Bus', noBus, ['--json']),
        fallbackLogin('no D-Bus', noBus, ['--debug']),
        fallbackLogin('dead bus', onDeadBus, ['--debug']),
        fallbackLogin('dead bus', onDeadBus, ['--json']),
        fallbackLogin('keychain off', off, ['--debug']),
        ...[
          ['no D-Bus', noBus],
          ['dead bus', onDeadBus],
          ['keychain off', off],
        ].flatMap(([label, env]) =>
          [
            ...inModes({
              label: `links list, keychain profile, ${label}`,
              args: ['links', 'list', '-p', 'live'],
              code: 4,
            }),
            ...inModes({ label: `profiles list, ${label}`, args: ['profiles', 'list'], code: 0 }),
            {
              label: `profiles show, ${label} --debug`,
              args: ['profiles', 'show', 'live', '--debug'],
              code: 0,
            },
          ].map((c) => ({ ...c, env: { ...inKeychain(), ...(env as Record<string, string>) } })),
        ),
        // PAY_API_KEY while the keychain is asked for something else: the helper must not carry it.
        {
          label: 'login into the keychain on a dead bus, PAY_API_KEY set --debug',
          args: ['login', '-p', 'other', '--base-url', base, '--with-key', '--no-verify', '--debug'],
          input: CANARY,
          env: { ...inKeychain(), ...onDeadBus, PAY_API_KEY: CANARY, PAY_CONFIG_DIR: fileConfig('api-key') },
          code: 0,
        },
      ]
      await mapConcurrent(unreachable, 6, watched)

      // Removal last: on a dead bus with PAY_API_KEY set (the entry is left, and named), then for real.
      for (const c of [
        {
          label: 'profiles remove on a dead bus, PAY_API_KEY set --debug',
          args: ['profiles', 'remove', 'live2', '--debug'],
          env: { ...inKeychain(), ...onDeadBus, PAY_API_KEY: CANARY },
          code: 0,
        },
        { label: 'profiles remove', args: ['profiles', 'remove', 'live'], env: inKeychain(), code: 0 },
        {
          label: 'profiles remove --json',
          args: ['profiles', 'remove', 'live3', '--json'],
          env: inKeychain(),
          code: 0,
        },
        {
          label: 'profiles remove, entry vanished --debug',
          args: ['profiles', 'remove', 'gone', '--debug'],
          env: inKeychain(),
          code: 0,
        },
      ])
        await watched(c)
      expect(keyring.accounts()).toEqual([`live2@${keychainConfig}`])

      expect(problems).toEqual([])
      clearInterval(watcher)
      // The helpers were seen (each dead-bus run keeps one waiting for 3 s), and held no key.
      expect(helpers.seen.size).toBeGreaterThan(0)
      expect(helpers.hits).toEqual([])
    })

    it('leaves no trace in any file, the keychain profiles config file included', () => {
      const scanned = scanFiles()
      expect(scanned).toContain(path.join(keychainConfig, 'config.json'))
      expect(scan.hits).toEqual([])
      console.log(`leak scan (keychain paths): ${summary()}; ${helpers.seen.size} keychain helpers watched`)
    })
  },
)
