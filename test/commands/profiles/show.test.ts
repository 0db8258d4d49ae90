import { describe, it } from 'vitest'
import { freshConfigDir } from '../../helpers/config-files.js'
import { runInProcess } from '../../helpers/in-process.js'
import { keysHidden, threeProfiles } from '../../helpers/profiles.js'

const pay = (dir: string, args: string[], env: Record<string, string> = {}) =>
  runInProcess(args, { env: { PAY_CONFIG_DIR: dir, ...env } })

describe.concurrent('pay profiles show', () => {
  it('shows the current profile by default, as key<TAB>value lines when piped', async ({ expect }) => {
    expect(await pay(threeProfiles(), ['profiles', 'show'])).toEqual({
      code: 0,
      signal: null,
      stdout:
        'name\tmid\ncurrent\ttrue\nbase_url\thttps://mid.example\napi_key\tsk_t…0003\n' +
        'key_storage\tfile\nbuilt_in\tfalse\n',
      stderr: '',
    })
  })

  it('shows a named profile as JSON with --json, key redacted', async ({ expect }) => {
    const result = await pay(threeProfiles(), ['profiles', 'show', 'zeta', '--json'])
    expect([result.code, result.stderr]).toEqual([0, ''])
    expect(JSON.parse(result.stdout)).toEqual({
      name: 'zeta',
      current: false,
      base_url: 'https://zeta.example',
      api_key: 'sk_l…0001',
      key_storage: 'file',
      built_in: false,
    })
    expect(keysHidden(result.stdout)).toBe(true)
  })

  it('shows the profile chosen by -p or PAY_PROFILE, and the key of PAY_API_KEY, which overrides its own', async ({
    expect,
  }) => {
    const dir = threeProfiles()
    const byFlag = await pay(dir, ['profiles', 'show', '-p', 'alpha', '--json'], { PAY_PROFILE: 'zeta' })
    expect(JSON.parse(byFlag.stdout).name).toBe('alpha')
    const byEnv = await pay(dir, ['profiles', 'show', '--json'], {
      PAY_PROFILE: 'zeta',
      PAY_API_KEY: 'sk_env_OverrideKey777',
    })
    expect(JSON.parse(byEnv.stdout)).toEqual({
      name: 'zeta',
      current: false,
      base_url: 'https://zeta.example',
      api_key: 'sk_e…y777',
      key_storage: 'env',
      built_in: false,
    })
    expect(byEnv.stdout + byEnv.stderr).not.toContain('OverrideKey')
  })

  it('fails with exit 2 for an unknown profile or when none is selected', async ({ expect }) => {
    expect(await pay(threeProfiles(), ['profiles', 'show', 'nope'])).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'Error: There is no profile named "nope".\nSee `pay profiles list`.\n',
    })
    expect(await pay(freshConfigDir(), ['profiles', 'show'])).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'Error: No profile is selected.\nName one, or run `pay login` / `pay profiles use NAME`.\n',
    })
  })
})
