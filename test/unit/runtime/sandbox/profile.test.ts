import { describe, expect, it } from 'vitest'
import { resolveCredentials } from '../../../../src/config/credentials.js'
import { sandboxProfile } from '../../../../src/runtime/sandbox/profile.js'
import { SANDBOX_KEY } from '../../../../src/sandbox/constants.js'
import { freshConfigDir } from '../../../helpers/config-files.js'

describe('the built-in sandbox profile', () => {
  it('is the well-known key on loopback, at PAY_SANDBOX_PORT or 4010', () => {
    expect(sandboxProfile({})).toEqual({
      name: 'sandbox',
      apiKey: SANDBOX_KEY,
      baseUrl: 'http://127.0.0.1:4010',
    })
    expect(sandboxProfile({ PAY_SANDBOX_PORT: '4999' }).baseUrl).toBe('http://127.0.0.1:4999')
  })

  it('resolves without any config, and may be served in-process', async () => {
    const env = { PAY_CONFIG_DIR: freshConfigDir(), PAY_SANDBOX_PORT: '4999' }
    expect(await resolveCredentials({ profile: 'sandbox', builtIn: sandboxProfile(env), env })).toEqual({
      profile: 'sandbox',
      apiKey: SANDBOX_KEY,
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
      resolveCredentials({ ...input, builtIn: sandboxProfile(env), env: { ...env, ...more } })
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
