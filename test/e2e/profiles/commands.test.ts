import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { describe, it } from 'vitest'
import { BIN, cleanEnv, runCli } from '../../helpers/cli.js'
import { configFile, freshConfigDir, readJson, writeConfig } from '../../helpers/config-files.js'

const KEYS = {
  zeta: 'sk_live_ZetaZetaZeta0001',
  alpha: 'sk_live_AlphaAlphaAl0002',
  mid: 'sk_test_MidMidMidMid0003',
}
const SANDBOX_ROW = 'sandbox\tfalse\thttp://127.0.0.1:1\tsk_s…9e1d\tbuilt-in\n'

/** A config with three stored profiles (written out of order), `mid` current. */
function threeProfiles(): string {
  const dir = freshConfigDir()
  writeConfig(dir, {
    current: 'mid',
    profiles: {
      zeta: { api_key: KEYS.zeta, base_url: 'https://zeta.example' },
      alpha: { api_key: KEYS.alpha, base_url: 'https://alpha.example' },
      mid: { api_key: KEYS.mid, base_url: 'https://mid.example' },
    },
  })
  return dir
}

const pay = (dir: string, args: string[], env: Record<string, string> = {}) =>
  runCli(args, { env: { PAY_CONFIG_DIR: dir, ...env } })

/** No full key, nor 6 characters of one in a row, in what a command printed. */
function keysHidden(output: string): boolean {
  return Object.values(KEYS).every((key) =>
    Array.from({ length: key.length - 5 }, (_, i) => key.slice(i, i + 6)).every(
      (part) => !output.includes(part),
    ),
  )
}

describe.concurrent('pay profiles list', () => {
  it('prints sandbox first, then stored profiles sorted, as TSV without header when piped', async ({
    expect,
  }) => {
    const result = await pay(threeProfiles(), ['profiles', 'list'])
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout:
        SANDBOX_ROW +
        'alpha\tfalse\thttps://alpha.example\tsk_l…0002\tfile\n' +
        'mid\ttrue\thttps://mid.example\tsk_t…0003\tfile\n' +
        'zeta\tfalse\thttps://zeta.example\tsk_l…0001\tfile\n',
      stderr: '',
    })
  })

  it('prints a JSON array with --json, keys redacted', async ({ expect }) => {
    const result = await pay(threeProfiles(), ['profiles', 'list', '--json'])
    expect([result.code, result.stderr]).toEqual([0, ''])
    expect(JSON.parse(result.stdout)).toEqual([
      {
        name: 'sandbox',
        current: false,
        base_url: 'http://127.0.0.1:1',
        api_key: 'sk_s…9e1d',
        key_storage: 'built-in',
        built_in: true,
      },
      {
        name: 'alpha',
        current: false,
        base_url: 'https://alpha.example',
        api_key: 'sk_l…0002',
        key_storage: 'file',
        built_in: false,
      },
      {
        name: 'mid',
        current: true,
        base_url: 'https://mid.example',
        api_key: 'sk_t…0003',
        key_storage: 'file',
        built_in: false,
      },
      {
        name: 'zeta',
        current: false,
        base_url: 'https://zeta.example',
        api_key: 'sk_l…0001',
        key_storage: 'file',
        built_in: false,
      },
    ])
    expect(keysHidden(result.stdout)).toBe(true)
  })

  it('lists only the built-in sandbox without a config file, creating none', async ({ expect }) => {
    const dir = freshConfigDir()
    expect(await pay(dir, ['profiles', 'list'])).toEqual({
      code: 0,
      signal: null,
      stdout: SANDBOX_ROW,
      stderr: '',
    })
    expect(JSON.parse((await pay(dir, ['profiles', 'list', '--json'])).stdout)).toEqual([
      {
        name: 'sandbox',
        current: false,
        base_url: 'http://127.0.0.1:1',
        api_key: 'sk_s…9e1d',
        key_storage: 'built-in',
        built_in: true,
      },
    ])
    expect(fs.existsSync(dir)).toBe(false)
  })

  it('says `env` for every profile when PAY_API_KEY overrides their keys, showing that key redacted', async ({
    expect,
  }) => {
    const result = await pay(threeProfiles(), ['profiles', 'list'], { PAY_API_KEY: 'sk_env_OverrideKey777' })
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout:
        'sandbox\tfalse\thttp://127.0.0.1:1\tsk_e…y777\tenv\n' +
        'alpha\tfalse\thttps://alpha.example\tsk_e…y777\tenv\n' +
        'mid\ttrue\thttps://mid.example\tsk_e…y777\tenv\n' +
        'zeta\tfalse\thttps://zeta.example\tsk_e…y777\tenv\n',
      stderr: '',
    })
  })

  it('prints only names with -q', async ({ expect }) => {
    expect((await pay(threeProfiles(), ['profiles', 'list', '-q'])).stdout).toBe(
      'sandbox\nalpha\nmid\nzeta\n',
    )
  })

  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'draws a table with a header on a terminal',
    async ({ expect }) => {
      const dir = threeProfiles()
      // `script` gives pay a real pty; its size is set first (a fresh pty reports 0 columns).
      const run = spawnSync(
        'script',
        ['-qec', `stty cols 120; ${process.execPath} ${BIN} profiles list`, '/dev/null'],
        {
          env: cleanEnv({ PAY_CONFIG_DIR: dir, NO_COLOR: '1' }),
          encoding: 'utf8',
          input: '',
        },
      )
      expect(run.status).toBe(0)
      const lines = run.stdout.split('\r\n').map((line) => line.trimEnd())
      expect(lines).toEqual([
        'NAME     CURRENT  BASE URL               KEY        STORAGE',
        'sandbox  false    http://127.0.0.1:1     sk_s…9e1d  built-in',
        'alpha    false    https://alpha.example  sk_l…0002  file',
        'mid      true     https://mid.example    sk_t…0003  file',
        'zeta     false    https://zeta.example   sk_l…0001  file',
        '',
      ])
    },
  )
})

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
