import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { type ConfigFile, configDir, configPath, readConfig, updateConfig } from '../../../src/config/file.js'
import { configFile, freshConfigDir, thrown, writeConfig } from '../../helpers/config-files.js'

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

  it('reads a profile whose key is in the keychain: the file names the entry, and holds no key', () => {
    const dir = freshConfigDir()
    const profile = { base_url: 'https://a.example', key_storage: 'keychain', keychain_account: `a@${dir}` }
    writeConfig(dir, { current: 'a', profiles: { a: profile } })
    expect(readConfig(dir)).toEqual({ current: 'a', profiles: { a: profile } })
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
    [
      '{"profiles": {"a": {"base_url": "u", "key_storage": "keychain"}}}',
      'profile "a" keeps its key in the keychain but names no keychain_account.',
    ],
    [
      '{"profiles": {"a": {"base_url": "u", "key_storage": "keychain", "keychain_account": ""}}}',
      'profile "a" keeps its key in the keychain but names no keychain_account.',
    ],
    [
      '{"profiles": {"a": {"base_url": "u", "key_storage": "keychain", "keychain_account": "a@/d", "api_key": "sk_live_SECRETKEYVALUE123"}}}',
      'profile "a" has an api_key although it keeps its key in the keychain.',
    ],
    [
      '{"profiles": {"a": {"key_storage": "keychain", "keychain_account": "a@/d"}}}',
      'profile "a" needs a string base_url.',
    ],
    [
      '{"profiles": {"a": {"base_url": "u", "api_key": "k", "key_storage": "vault"}}}',
      'profile "a" has a key_storage other than "keychain".',
    ],
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

describe("a keychain_account that is not the profile's own", () => {
  // Another config directory's entry, named by a config file that holds no key: pay would read
  // that key and send it to this file's base URL.
  const cases: [string, (dir: string) => string][] = [
    ['another config directory', () => 'live@/home/ann/.config/pay'],
    ['another profile of this directory', (dir: string) => `other@${dir}`],
    ['this directory spelled another way', (dir: string) => `live@${dir}/`],
  ]
  it.for(cases)('%s: refused as corrupt, naming the file and the field', ([, account]) => {
    const dir = freshConfigDir()
    const content = {
      current: 'live',
      profiles: {
        live: {
          base_url: 'https://attacker.example',
          key_storage: 'keychain',
          keychain_account: account(dir),
        },
      },
    }
    const file = writeConfig(dir, content)
    const error = thrown(() => readConfig(dir))
    expect(error.message).toBe(
      `The config file ${file} is corrupt: profile "live" has keychain_account ${JSON.stringify(account(dir))}, ` +
        `which is not its own entry (pay keeps the key of this profile under ${JSON.stringify(`live@${dir}`)}, and reads no other).`,
    )
    expect(error.exitCode).toBe(1)
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(content)
  })

  it('a keychain profile whose name pay would never give one (an "@" in it) is refused too', () => {
    const dir = freshConfigDir()
    const name = `x@${dir}`
    const file = writeConfig(dir, {
      profiles: {
        [name]: {
          base_url: 'https://a.example',
          key_storage: 'keychain',
          keychain_account: `${name}@${dir}`,
        },
      },
    })
    expect(thrown(() => readConfig(dir)).message).toBe(
      `The config file ${file} is corrupt: profile "${name}" keeps its key in the keychain under a name pay never gives a profile.`,
    )
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

describe('updateConfig and a hard link', () => {
  it('writes a new file renamed over config.json: another name linked to the old one keeps its bytes', async () => {
    const dir = freshConfigDir()
    await updateConfig(dir, (config) => {
      config.current = 'first'
    })
    const other = path.join(path.dirname(dir), `other-${path.basename(dir)}.json`)
    fs.linkSync(configPath(dir), other)
    const before = fs.readFileSync(other, 'utf8')
    await updateConfig(dir, (config) => {
      config.current = 'second'
    })
    expect(fs.readFileSync(other, 'utf8')).toBe(before)
    expect(readConfig(dir).current).toBe('second')
    expect(fs.statSync(configPath(dir)).nlink).toBe(1)
  })
})
