import { describe, expect, it } from 'vitest'
import { sandboxProfile } from '../../../src/cli/sandbox-profile.js'
import { resolveCredentials } from '../../../src/config/credentials.js'
import { SANDBOX_KEY } from '../../../src/sandbox/constants.js'
import { freshConfigDir } from '../../helpers/config-files.js'

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
      keyFromEnv: false,
    })
  })
})
