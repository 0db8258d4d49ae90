import fs from 'node:fs'
import { describe, it } from 'vitest'
import { configFile, freshConfigDir, readJson } from '../../helpers/config-files.js'
import { runInProcess } from '../../helpers/in-process.js'
import { KEYS, threeProfiles } from '../../helpers/profiles.js'

const pay = (dir: string, args: string[], env: Record<string, string> = {}) =>
  runInProcess(args, { env: { PAY_CONFIG_DIR: dir, ...env } })

describe.concurrent('pay profiles remove', () => {
  it('removes a profile that is not current, keeping the current one', async ({ expect }) => {
    const dir = threeProfiles()
    expect(await pay(dir, ['profiles', 'remove', 'zeta'])).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: 'Removed profile "zeta".\n',
    })
    expect(readJson(configFile(dir))).toEqual({
      current: 'mid',
      profiles: {
        alpha: { api_key: KEYS.alpha, base_url: 'https://alpha.example' },
        mid: { api_key: KEYS.mid, base_url: 'https://mid.example' },
      },
    })
  })

  it('leaves no current profile when the current one is removed', async ({ expect }) => {
    const dir = threeProfiles()
    const result = await pay(dir, ['profiles', 'remove', 'mid', '--json'])
    expect([result.code, result.stderr, JSON.parse(result.stdout)]).toEqual([
      0,
      '',
      { removed: 'mid', was_current: true, key_storage: 'file', key_deleted: true },
    ])
    const config = readJson(configFile(dir))
    expect(config).toEqual({
      profiles: {
        alpha: { api_key: KEYS.alpha, base_url: 'https://alpha.example' },
        zeta: { api_key: KEYS.zeta, base_url: 'https://zeta.example' },
      },
    })
    expect(await pay(dir, ['links', 'list'])).toMatchObject({ code: 4, stdout: '' })
    const plain = await pay(threeProfiles(), ['profiles', 'remove', 'mid'])
    expect([plain.code, plain.stdout, plain.stderr]).toEqual([
      0,
      '',
      'Removed profile "mid". No profile is current now.\n',
    ])
  })

  it('refuses to remove the built-in sandbox (exit 2)', async ({ expect }) => {
    const dir = threeProfiles()
    const before = fs.readFileSync(configFile(dir), 'utf8')
    expect(await pay(dir, ['profiles', 'remove', 'sandbox'])).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'Error: The sandbox profile is built in and cannot be removed.\n',
    })
    expect(fs.readFileSync(configFile(dir), 'utf8')).toBe(before)
  })

  it('fails with exit 2 for an unknown profile, changing and creating nothing', async ({ expect }) => {
    const dir = threeProfiles()
    const before = fs.readFileSync(configFile(dir), 'utf8')
    expect(await pay(dir, ['profiles', 'remove', 'toString'])).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'Error: There is no profile named "toString".\nSee `pay profiles list`.\n',
    })
    expect(fs.readFileSync(configFile(dir), 'utf8')).toBe(before)
    const fresh = freshConfigDir()
    expect((await pay(fresh, ['profiles', 'remove', 'nope'])).code).toBe(2)
    expect(fs.existsSync(fresh)).toBe(false)
  })
})
