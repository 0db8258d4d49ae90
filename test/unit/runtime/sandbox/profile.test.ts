import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveCredentials } from '../../../../src/config/credentials.js'
import { sandboxProfile } from '../../../../src/runtime/sandbox/profile.js'
import { SANDBOX_KEY } from '../../../../src/sandbox/constants.js'
import { SANDBOX_KEY_FILE } from '../../../../src/shared/sandbox-key.js'
import { tempDir } from '../../../helpers/cli.js'
import { freshConfigDir } from '../../../helpers/config-files.js'

describe('the built-in sandbox profile', () => {
  it('is the key of its sandbox directory (made on first use, 0600, then the same), on loopback, at PAY_SANDBOX_PORT or 4010', () => {
    const dir = path.join(tempDir(), 'sandbox')
    const profile = sandboxProfile({}, dir)
    // Nothing is made until the key is asked for.
    expect([profile.name, profile.baseUrl, fs.existsSync(dir)]).toEqual([
      'sandbox',
      'http://127.0.0.1:4010',
      false,
    ])
    const key = profile.apiKey
    expect(key).toMatch(/^sk_sandbox_[0-9a-f]{32}$/)
    expect(key).not.toBe(SANDBOX_KEY)
    expect(fs.readFileSync(path.join(dir, SANDBOX_KEY_FILE), 'utf8')).toBe(`${key}\n`)
    expect(fs.statSync(path.join(dir, SANDBOX_KEY_FILE)).mode & 0o777).toBe(0o600)
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    expect(sandboxProfile({ PAY_SANDBOX_PORT: '4999' }, dir)).toEqual({
      name: 'sandbox',
      apiKey: key,
      baseUrl: 'http://127.0.0.1:4999',
      keyMadeOverStore: false,
    })
    // Made now over a store kept before (an earlier pay's): said so, for pay to look at its records.
    const old = tempDir()
    fs.writeFileSync(path.join(old, 'store.db'), '')
    const upgraded = sandboxProfile({}, old)
    expect([upgraded.keyMadeOverStore, upgraded.apiKey, upgraded.keyMadeOverStore]).toEqual([
      false,
      fs.readFileSync(path.join(old, SANDBOX_KEY_FILE), 'utf8').trim(),
      true,
    ])
    // Another directory, another key.
    expect(sandboxProfile({}, tempDir()).apiKey).not.toBe(key)
  })

  it('resolves without any config, and may be served in-process', async () => {
    const env = { PAY_CONFIG_DIR: freshConfigDir(), PAY_SANDBOX_PORT: '4999' }
    const builtIn = sandboxProfile(env, tempDir())
    expect(await resolveCredentials({ profile: 'sandbox', builtIn, env })).toEqual({
      profile: 'sandbox',
      apiKey: builtIn.apiKey,
      baseUrl: 'http://127.0.0.1:4999',
      builtIn: true,
      sandbox: true,
      keyFromEnv: false,
    })
  })

  it('never takes PAY_BASE_URL: it is left aside, said by the command; --base-url is taken', async () => {
    const env = {
      PAY_CONFIG_DIR: freshConfigDir(),
      PAY_SANDBOX_PORT: '4999',
      PAY_BASE_URL: 'https://api.pay.example',
      PAY_API_KEY: 'sk_live_from_env_0000',
    }
    const resolve = (input: { profile?: string; baseUrl?: string }, more: Record<string, string> = {}) =>
      resolveCredentials({ ...input, builtIn: sandboxProfile(env, tempDir()), env: { ...env, ...more } })
    for (const selected of [{ profile: 'sandbox' }, {}] as const) {
      const more: Record<string, string> = selected.profile ? {} : { PAY_PROFILE: 'sandbox' }
      expect(await resolve(selected, more)).toEqual({
        profile: 'sandbox',
        apiKey: 'sk_live_from_env_0000',
        baseUrl: 'http://127.0.0.1:4999',
        builtIn: true,
        sandbox: true,
        baseUrlSetAside: 'https://api.pay.example',
        keyFromEnv: true,
      })
    }
    // A sandbox on another port, given on the command line: taken, once it proves itself (base-command).
    expect(await resolve({ profile: 'sandbox', baseUrl: 'http://127.0.0.1:4011' })).toEqual({
      profile: 'sandbox',
      apiKey: 'sk_live_from_env_0000',
      baseUrl: 'http://127.0.0.1:4011',
      builtIn: false,
      sandbox: true,
      keyFromEnv: true,
    })
  })
})
