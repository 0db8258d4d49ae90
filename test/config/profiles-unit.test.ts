import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  type ConfigFile,
  configDir,
  configPath,
  readConfig,
  redactKey,
  resolveCredentials,
  storedProfile,
  updateConfig,
} from '../../src/config/profiles.js'
import { PayError } from '../../src/errors.js'
import { SANDBOX_KEY } from '../../src/sandbox/constants.js'
import { configFile, freshConfigDir, writeConfig } from '../helpers/config-files.js'

describe('configDir', () => {
  it('is $PAY_CONFIG_DIR when set, resolved to an absolute path', () => {
    expect(configDir({ PAY_CONFIG_DIR: '/srv/pay-conf', XDG_CONFIG_HOME: '/x', HOME: '/home/u' })).toBe(
      '/srv/pay-conf',
    )
    expect(configDir({ PAY_CONFIG_DIR: 'rel/dir', HOME: '/home/u' })).toBe(path.resolve('rel/dir'))
  })

  it('is $XDG_CONFIG_HOME/pay without PAY_CONFIG_DIR (no -nodejs suffix)', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/xdg/conf', HOME: '/home/u' })).toBe('/xdg/conf/pay')
    expect(configDir({ PAY_CONFIG_DIR: '', XDG_CONFIG_HOME: '/xdg/conf', HOME: '/home/u' })).toBe(
      '/xdg/conf/pay',
    )
  })

  it('is ~/.config/pay otherwise, and ignores a relative XDG_CONFIG_HOME as the XDG spec says', () => {
    expect(configDir({ HOME: '/home/u' })).toBe('/home/u/.config/pay')
    expect(configDir({ HOME: '/home/u', XDG_CONFIG_HOME: 'relative/conf' })).toBe('/home/u/.config/pay')
    expect(configDir({})).toBe(path.join(os.homedir(), '.config', 'pay'))
  })

  it('names the file config.json', () => {
    expect(configPath('/home/u/.config/pay')).toBe('/home/u/.config/pay/config.json')
  })
})

describe('redactKey', () => {
  it('shows the first 4 and last 4 characters of a long key', () => {
    expect(redactKey('sk_live_1234567890abcdef')).toBe('sk_l…cdef')
    expect(redactKey('abcdefghijklmnop')).toBe('abcd…mnop')
    expect(redactKey(SANDBOX_KEY)).toBe('sk_s…9e1d')
  })

  it('shows less of a short key', () => {
    expect(redactKey('abcdefghijklmno')).toBe('abc…mno')
    expect(redactKey('abcdefgh')).toBe('ab…gh')
    expect(redactKey('abcd')).toBe('a…d')
    expect(redactKey('abc')).toBe('…')
    expect(redactKey('a')).toBe('…')
    expect(redactKey('')).toBe('…')
  })

  it('never shows a whole key, nor more than half of it, nor more than 8 characters', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
    for (let length = 1; length <= 80; length += 1) {
      const key = alphabet.repeat(2).slice(0, length)
      const shown = redactKey(key)
      expect(shown).not.toBe(key)
      expect(shown).not.toContain(key)
      const visible = shown.replace('…', '').length
      expect(visible).toBeLessThanOrEqual(Math.min(8, Math.floor(length / 2)))
      expect(shown).toContain('…')
    }
  })
})

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

function thrown(run: () => unknown): PayError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(PayError)
    return error as PayError
  }
  throw new Error('expected an error')
}

describe('resolveCredentials', () => {
  it('picks --profile over PAY_PROFILE over the current profile', () => {
    const env = { PAY_CONFIG_DIR: twoProfiles() }
    expect(resolveCredentials({ env })).toEqual({
      profile: 'one',
      apiKey: 'key_one_1111111111',
      baseUrl: 'https://one.example',
      sandbox: false,
      keyFromEnv: false,
    })
    expect(resolveCredentials({ env: { ...env, PAY_PROFILE: 'two' } }).profile).toBe('two')
    expect(resolveCredentials({ profile: 'one', env: { ...env, PAY_PROFILE: 'two' } }).apiKey).toBe(
      'key_one_1111111111',
    )
  })

  it('takes the key from PAY_API_KEY and the base URL from --base-url > PAY_BASE_URL > profile', () => {
    const env = { PAY_CONFIG_DIR: twoProfiles(), PAY_API_KEY: 'env_key_999999999' }
    expect(resolveCredentials({ env })).toEqual({
      profile: 'one',
      apiKey: 'env_key_999999999',
      baseUrl: 'https://one.example',
      sandbox: false,
      keyFromEnv: true,
    })
    const withBase = { ...env, PAY_BASE_URL: 'https://env.example' }
    expect(resolveCredentials({ profile: 'two', env: withBase }).baseUrl).toBe('https://env.example')
    expect(
      resolveCredentials({ profile: 'two', baseUrl: 'https://flag.example', env: withBase }).baseUrl,
    ).toBe('https://flag.example')
  })

  it('needs no config at all with PAY_API_KEY and PAY_BASE_URL', () => {
    const dir = path.join(freshConfigDir(), 'never-created')
    const env = { PAY_CONFIG_DIR: dir, PAY_API_KEY: 'env_key_999999999', PAY_BASE_URL: 'https://env.example' }
    expect(resolveCredentials({ env })).toEqual({
      apiKey: 'env_key_999999999',
      baseUrl: 'https://env.example',
      sandbox: false,
      keyFromEnv: false,
    })
    expect(fs.existsSync(dir)).toBe(false)
  })

  it('serves the built-in sandbox profile without any config', () => {
    const env = { PAY_CONFIG_DIR: freshConfigDir(), PAY_SANDBOX_PORT: '4999' }
    expect(resolveCredentials({ profile: 'sandbox', env })).toEqual({
      profile: 'sandbox',
      apiKey: SANDBOX_KEY,
      baseUrl: 'http://127.0.0.1:4999',
      sandbox: true,
      keyFromEnv: false,
    })
  })

  it('fails with an auth error (exit 4) naming pay login and -p sandbox when nothing is configured', () => {
    const error = thrown(() => resolveCredentials({ env: { PAY_CONFIG_DIR: freshConfigDir() } }))
    expect([error.message, error.hint, error.exitCode]).toEqual([
      'No profile is selected and no API key is set.',
      'Run `pay login`, set PAY_API_KEY and PAY_BASE_URL, or try the built-in sandbox with `-p sandbox`.',
      4,
    ])
  })

  it('fails with a usage error (exit 2) for PAY_API_KEY without any base URL', () => {
    const error = thrown(() =>
      resolveCredentials({ env: { PAY_CONFIG_DIR: freshConfigDir(), PAY_API_KEY: 'env_key_999999999' } }),
    )
    expect([error.message, error.exitCode]).toEqual([
      'PAY_API_KEY is set, but there is no base URL to send it to.',
      2,
    ])
  })

  it('fails with a usage error (exit 2) naming where an unknown profile name came from', () => {
    const dir = twoProfiles()
    const fromFlag = thrown(() => resolveCredentials({ profile: 'nope', env: { PAY_CONFIG_DIR: dir } }))
    expect([fromFlag.message, fromFlag.exitCode]).toEqual([
      'There is no profile named "nope" (given with --profile).',
      2,
    ])
    const fromEnv = thrown(() => resolveCredentials({ env: { PAY_CONFIG_DIR: dir, PAY_PROFILE: 'nope' } }))
    expect(fromEnv.message).toBe('There is no profile named "nope" (from PAY_PROFILE).')
    // Names of Object.prototype members are not profiles.
    const inherited = thrown(() => resolveCredentials({ profile: 'toString', env: { PAY_CONFIG_DIR: dir } }))
    expect(inherited.message).toBe('There is no profile named "toString" (given with --profile).')
  })

  it('names the config file when the current profile it records does not exist', () => {
    const dir = freshConfigDir()
    writeConfig(dir, { current: 'gone', profiles: {} })
    const error = thrown(() => resolveCredentials({ env: { PAY_CONFIG_DIR: dir } }))
    expect([error.message, error.exitCode]).toEqual([
      `There is no profile named "gone" (current in ${configFile(dir)}).`,
      2,
    ])
  })
})

describe('readConfig', () => {
  it('reads an absent file as an empty config without creating anything', () => {
    const dir = freshConfigDir()
    expect(readConfig(dir)).toEqual({ profiles: {} })
    expect(fs.existsSync(dir)).toBe(false)
  })

  it('keeps fields it does not know', () => {
    const dir = freshConfigDir()
    writeConfig(dir, { current: 'a', extra: { x: 1 }, profiles: { a: { api_key: 'k', base_url: 'u' } } })
    expect(readConfig(dir)).toEqual({
      current: 'a',
      extra: { x: 1 },
      profiles: { a: { api_key: 'k', base_url: 'u' } },
    })
  })

  it.each([
    ['{"profiles": nope}', "it is not valid JSON (Unexpected token 'o')."],
    [
      '{"profiles":{"a":{"api_key":sk_live_SECRETKEYVALUE123}}}',
      "it is not valid JSON (Unexpected token 's').",
    ],
    [
      '{\n  "profiles": {\n    "a": {"api_key": "sk_live_SECRETKEYVALUE123" "base_url": "x"}',
      "it is not valid JSON (Expected ',' or '}' after property value at line 3, column 50).",
    ],
    ['{"current":"a","profiles":{"a":', 'it is not valid JSON (Unexpected end of JSON input).'],
    [
      '{"profiles":{"a":{"api_key":"sk_live_SECRETKEYVAL',
      'it is not valid JSON (Unterminated string at line 1, column 50).',
    ],
    ['', 'it is empty.'],
    [' \n', 'it is empty.'],
    ['[]', 'it is not a JSON object.'],
    ['null', 'it is not a JSON object.'],
    ['{"current": 3, "profiles": {}}', '"current" is not a string.'],
    ['{"profiles": []}', '"profiles" is not an object.'],
    [
      '{"profiles": {"a": {"base_url": "https://a.example"}}}',
      'profile "a" needs a string api_key and base_url.',
    ],
    ['{"profiles": {"a": null}}', 'profile "a" needs a string api_key and base_url.'],
  ])('reports %j as corrupt without quoting the file', (content, reason) => {
    const dir = freshConfigDir()
    const file = writeConfig(dir, content)
    const error = thrown(() => readConfig(dir))
    expect(error.message).toBe(`The config file ${file} is corrupt: ${reason}`)
    expect(error.message).not.toContain('SECRET')
    expect(error.exitCode).toBe(1)
    expect(fs.readFileSync(file, 'utf8')).toBe(content)
  })
})

describe('updateConfig', () => {
  it('leaves a corrupt file alone and never calls the change', async () => {
    const dir = freshConfigDir()
    const file = writeConfig(dir, '{"profiles": {')
    let called = false
    await expect(
      updateConfig(dir, () => {
        called = true
      }),
    ).rejects.toThrow(
      `The config file ${file} is corrupt: it is not valid JSON (Expected property name or '}' at line 1, column 15).`,
    )
    expect(called).toBe(false)
    expect(fs.readFileSync(file, 'utf8')).toBe('{"profiles": {')
  })

  it('writes nothing when the change throws', async () => {
    const dir = freshConfigDir()
    const before = JSON.stringify({ profiles: { a: { api_key: 'k', base_url: 'u' } } }, null, 2)
    const file = writeConfig(dir, before)
    await expect(
      updateConfig(dir, (config: ConfigFile) => {
        config.profiles = {}
        throw new Error('no')
      }),
    ).rejects.toThrow('no')
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
    expect(fs.readdirSync(dir)).toEqual(['config.json'])
  })

  it('returns what the change returns and stores the changed config', async () => {
    const dir = freshConfigDir()
    const result = await updateConfig(dir, (config) => {
      config.profiles.a = { api_key: 'key_a_123456789', base_url: 'https://a.example' }
      config.current = 'a'
      return 'done'
    })
    expect(result).toBe('done')
    expect(JSON.parse(fs.readFileSync(configFile(dir), 'utf8'))).toEqual({
      profiles: { a: { api_key: 'key_a_123456789', base_url: 'https://a.example' } },
      current: 'a',
    })
    expect(fs.readdirSync(dir)).toEqual(['config.json'])
  })
})

describe('storedProfile', () => {
  it('finds only the profiles the file holds', () => {
    const config: ConfigFile = { profiles: { a: { api_key: 'k', base_url: 'u' } } }
    expect(storedProfile(config, 'a')).toEqual({ api_key: 'k', base_url: 'u' })
    expect(storedProfile(config, 'b')).toBeUndefined()
    expect(storedProfile(config, 'constructor')).toBeUndefined()
    expect(storedProfile(config, '__proto__')).toBeUndefined()
  })
})
