import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveCredentials } from '../../../src/config/credentials.js'
import type { BuiltInProfile } from '../../../src/config/profiles.js'
import { SANDBOX_KEY } from '../../../src/sandbox/constants.js'
import { configFile, freshConfigDir, rejected, writeConfig } from '../../helpers/config-files.js'

/** The built-in profile as the cli describes it (cli/sandbox/profile.ts), with port 4999. */
const SANDBOX: BuiltInProfile = { name: 'sandbox', apiKey: SANDBOX_KEY, baseUrl: 'http://127.0.0.1:4999' }

/** A config dir holding two profiles, `one` current. */
function twoProfiles(): string {
  const dir = freshConfigDir()
  writeConfig(dir, {
    current: 'one',
    profiles: {
      one: { api_key: 'key_one_1111111111', base_url: 'https://one.example' },
      two: { api_key: 'key_two_2222222222', base_url: 'https://two.example' },
    },
  })
  return dir
}

describe('resolveCredentials', () => {
  it('picks --profile over PAY_PROFILE over the current profile', async () => {
    const env = { PAY_CONFIG_DIR: twoProfiles() }
    expect(await resolveCredentials({ builtIn: SANDBOX, env })).toEqual({
      profile: 'one',
      apiKey: 'key_one_1111111111',
      baseUrl: 'https://one.example',
      builtIn: false,
      keyFromEnv: false,
    })
    expect(
      (await resolveCredentials({ builtIn: SANDBOX, env: { ...env, PAY_PROFILE: 'two' } })).profile,
    ).toBe('two')
    expect(
      (await resolveCredentials({ builtIn: SANDBOX, profile: 'one', env: { ...env, PAY_PROFILE: 'two' } }))
        .apiKey,
    ).toBe('key_one_1111111111')
  })

  it('takes the key from PAY_API_KEY and the base URL from --base-url > PAY_BASE_URL > profile', async () => {
    const env = { PAY_CONFIG_DIR: twoProfiles(), PAY_API_KEY: 'env_key_999999999' }
    expect(await resolveCredentials({ builtIn: SANDBOX, env })).toEqual({
      profile: 'one',
      apiKey: 'env_key_999999999',
      baseUrl: 'https://one.example',
      builtIn: false,
      keyFromEnv: true,
    })
    const withBase = { ...env, PAY_BASE_URL: 'https://env.example' }
    expect((await resolveCredentials({ builtIn: SANDBOX, profile: 'two', env: withBase })).baseUrl).toBe(
      'https://env.example',
    )
    expect(
      (
        await resolveCredentials({
          builtIn: SANDBOX,
          profile: 'two',
          baseUrl: 'https://flag.example',
          env: withBase,
        })
      ).baseUrl,
    ).toBe('https://flag.example')
  })

  it('needs no config at all with PAY_API_KEY and PAY_BASE_URL', async () => {
    const dir = path.join(freshConfigDir(), 'never-created')
    const env = { PAY_CONFIG_DIR: dir, PAY_API_KEY: 'env_key_999999999', PAY_BASE_URL: 'https://env.example' }
    expect(await resolveCredentials({ builtIn: SANDBOX, env })).toEqual({
      apiKey: 'env_key_999999999',
      baseUrl: 'https://env.example',
      builtIn: false,
      keyFromEnv: false,
    })
    expect(fs.existsSync(dir)).toBe(false)
  })

  it('serves the built-in profile without any config', async () => {
    const env = { PAY_CONFIG_DIR: freshConfigDir() }
    expect(await resolveCredentials({ builtIn: SANDBOX, profile: 'sandbox', env })).toEqual({
      profile: 'sandbox',
      apiKey: SANDBOX_KEY,
      baseUrl: 'http://127.0.0.1:4999',
      builtIn: true,
      sandbox: true,
      keyFromEnv: false,
    })
  })

  it('fails with an auth error (exit 4) naming pay login and -p sandbox when nothing is configured', async () => {
    const error = await rejected(
      resolveCredentials({ builtIn: SANDBOX, env: { PAY_CONFIG_DIR: freshConfigDir() } }),
    )
    expect([error.message, error.hint, error.exitCode]).toEqual([
      'No profile is selected and no API key is set.',
      'Run `pay login`, set PAY_API_KEY and PAY_BASE_URL, or try the built-in sandbox with `-p sandbox`.',
      4,
    ])
  })

  it('fails with a usage error (exit 2) for PAY_API_KEY without any base URL', async () => {
    const error = await rejected(
      resolveCredentials({
        builtIn: SANDBOX,
        env: { PAY_CONFIG_DIR: freshConfigDir(), PAY_API_KEY: 'env_key_999999999' },
      }),
    )
    expect([error.message, error.exitCode]).toEqual([
      'PAY_API_KEY is set, but there is no base URL to send it to.',
      2,
    ])
  })

  it('fails with a usage error (exit 2) naming where an unknown profile name came from', async () => {
    const dir = twoProfiles()
    const fromFlag = await rejected(
      resolveCredentials({ builtIn: SANDBOX, profile: 'nope', env: { PAY_CONFIG_DIR: dir } }),
    )
    expect([fromFlag.message, fromFlag.exitCode]).toEqual([
      'There is no profile named "nope" (given with --profile).',
      2,
    ])
    const fromEnv = await rejected(
      resolveCredentials({ builtIn: SANDBOX, env: { PAY_CONFIG_DIR: dir, PAY_PROFILE: 'nope' } }),
    )
    expect(fromEnv.message).toBe('There is no profile named "nope" (from PAY_PROFILE).')
    // Names of Object.prototype members are not profiles.
    const inherited = await rejected(
      resolveCredentials({ builtIn: SANDBOX, profile: 'toString', env: { PAY_CONFIG_DIR: dir } }),
    )
    expect(inherited.message).toBe('There is no profile named "toString" (given with --profile).')
  })

  it('names the config file when the current profile it records does not exist', async () => {
    const dir = freshConfigDir()
    writeConfig(dir, { current: 'gone', profiles: {} })
    const error = await rejected(resolveCredentials({ builtIn: SANDBOX, env: { PAY_CONFIG_DIR: dir } }))
    expect([error.message, error.exitCode]).toEqual([
      `There is no profile named "gone" (current in ${configFile(dir)}).`,
      2,
    ])
  })
})
