import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { cleanEnv, ROOT, tempDir } from '../../helpers/cli.js'
import { RUN_KEYRING_TESTS, startKeyring } from '../../helpers/keyring.js'
import { COMMAND_IDS } from '../../helpers/manifest.js'

/**
 * The packed tarball installs with `npm install -g` into an empty prefix (registry only) and
 * the installed `pay` works. Uses the dist/ that `npm test` built.
 */
describe('npm pack, then npm install -g', () => {
  test('the installed pay runs --version, --help, links create against the sandbox, and its keychain helper', async () => {
    const work = tempDir('pay-pack-')
    const npm = (args: string[], cwd = ROOT) =>
      execFileSync('npm', args, {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, npm_config_loglevel: 'error' },
      })
    const tarball = npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', work])
      .trim()
      .split('\n')
      .pop()
    expect(tarball).toMatch(/^pay-cli-\d+\.\d+\.\d+\.tgz$/)
    const prefix = path.join(work, 'prefix')
    npm(
      ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', path.join(work, tarball as string)],
      work,
    )

    const pay = path.join(prefix, 'bin', 'pay')
    const env = cleanEnv({ XDG_CACHE_HOME: tempDir('pay-cache-') })
    const run = (args: string[]) => spawnSync(pay, args, { cwd: work, env, encoding: 'utf8' })

    const version = run(['--version'])
    expect(version.status).toBe(0)
    const { version: expected } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
    expect(version.stdout).toMatch(new RegExp(`^pay-cli/${expected.replace(/\./g, '\\.')} `))

    const help = run(['--help'])
    expect(help.status).toBe(0)
    // Every topic and command of pay (the manifest's), and the autocomplete plugin's.
    for (const word of [...new Set(COMMAND_IDS.map((id) => id.split(':')[0])), 'autocomplete']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${word} `, 'm'))
    }

    const created = run([
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
      'Packed',
      '--json',
    ])
    // The sandbox ran in-process: the payment_url printed is served by nothing, said on stderr.
    expect(created.stderr).toMatch(
      /^Warning: No sandbox is running at http:\/\/127\.0\.0\.1:1, so the page addresses printed will not open/,
    )
    expect(created.status).toBe(0)
    const link = JSON.parse(created.stdout)
    expect(link).toMatchObject({
      amount: 25.5,
      currency: 'EUR',
      title: 'Packed',
      status: 'Active',
      paid: false,
    })

    const listed = run(['-p', 'sandbox', 'links', 'list', '-q'])
    expect(listed.status).toBe(0)
    expect(listed.stdout).toBe(`${link._id}\n`)

    // Nothing of the development tree leaks into the package.
    const files = execFileSync('tar', ['-tzf', path.join(work, tarball as string)], { encoding: 'utf8' })
    expect(files).not.toMatch(/package\/(src|test|scripts)\//)
    expect(files).toContain('package/dist/pay.cjs')
    expect(files).toContain('package/dist/keychain-helper.cjs')

    // The keychain helper loads @napi-rs/keyring's prebuilt binary from the installed package:
    // with no D-Bus it is the native module that answers there is no Secret Service.
    if (process.platform !== 'linux') return
    const key = 'sk_live_PackedKey_00aa11bb'
    const login = (extra: Record<string, string>) =>
      spawnSync(pay, ['login', '--with-key', '--no-verify', '--base-url', 'https://pay.example', '--debug'], {
        cwd: work,
        env: { ...env, PAY_CONFIG_DIR: tempDir('pay-config-'), ...extra },
        input: key,
        encoding: 'utf8',
      })
    const headless = login({})
    expect(headless.status).toBe(0)
    expect(headless.stderr).toMatch(
      /^\[debug\] keychain: store "default@.+": the system keychain is not available \(no D-Bus session or Secret Service\) \(\d+ ms, service "pay"\)$/m,
    )
    if (!RUN_KEYRING_TESTS) return
    const keyring = await startKeyring()
    try {
      const stored = login(keyring.env)
      expect(stored.status).toBe(0)
      expect(stored.stderr).toContain('(key sk_l…11bb in the system keychain, https://pay.example)')
      expect(keyring.accounts()).toHaveLength(1)
      expect(keyring.lookup(keyring.accounts()[0])).toBe(key)
    } finally {
      await keyring.close()
    }
  }, 240_000)
})
