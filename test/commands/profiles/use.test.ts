import fs from 'node:fs'
import { describe, it } from 'vitest'
import { configFile, freshConfigDir, readJson } from '../../helpers/config-files.js'
import { runInProcess } from '../../helpers/in-process.js'
import { threeProfiles } from '../../helpers/profiles.js'

const pay = (dir: string, args: string[], env: Record<string, string> = {}) =>
  runInProcess(args, { env: { PAY_CONFIG_DIR: dir, ...env } })

describe.concurrent('pay profiles use', () => {
  it('makes a stored profile current', async ({ expect }) => {
    const dir = threeProfiles()
    expect(await pay(dir, ['profiles', 'use', 'alpha'])).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: 'Current profile: alpha\n',
    })
    expect(readJson(configFile(dir)).current).toBe('alpha')
    expect(Object.keys(readJson(configFile(dir)).profiles).sort()).toEqual(['alpha', 'mid', 'zeta'])
  })

  it('makes the built-in sandbox current, and says so as JSON with --json', async ({ expect }) => {
    const dir = threeProfiles()
    const result = await pay(dir, ['profiles', 'use', 'sandbox', '--json'])
    expect([result.code, result.stderr, JSON.parse(result.stdout)]).toEqual([0, '', { current: 'sandbox' }])
    expect(readJson(configFile(dir)).current).toBe('sandbox')
  })

  it('fails with exit 2 for an unknown profile, changing nothing', async ({ expect }) => {
    const dir = threeProfiles()
    const before = fs.readFileSync(configFile(dir), 'utf8')
    expect(await pay(dir, ['profiles', 'use', 'nope'])).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'Error: There is no profile named "nope".\nSee `pay profiles list`.\n',
    })
    expect(fs.readFileSync(configFile(dir), 'utf8')).toBe(before)
    const fresh = freshConfigDir()
    expect((await pay(fresh, ['profiles', 'use', 'nope'])).code).toBe(2)
    expect(fs.existsSync(fresh)).toBe(false)
  })
})
