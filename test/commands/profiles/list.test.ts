import fs from 'node:fs'
import { describe, it } from 'vitest'
import { tempDir } from '../../helpers/cli.js'
import { freshConfigDir } from '../../helpers/config-files.js'
import { runInProcess } from '../../helpers/in-process.js'
import { keyedSandboxDir, keysHidden, threeProfiles } from '../../helpers/profiles.js'

/** The sandbox directory of these runs, its key made: the built-in profile shows it redacted. */
const { dir: SANDBOX_DIR, shown: SANDBOX_KEY_SHOWN } = keyedSandboxDir()
const SANDBOX_ROW = `sandbox\tfalse\thttp://127.0.0.1:1\t${SANDBOX_KEY_SHOWN}\tbuilt-in\n`

const pay = (dir: string, args: string[], env: Record<string, string> = {}) =>
  runInProcess(args, { env: { PAY_CONFIG_DIR: dir, PAY_SANDBOX_DIR: SANDBOX_DIR, ...env } })

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
        api_key: SANDBOX_KEY_SHOWN,
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
        api_key: SANDBOX_KEY_SHOWN,
        key_storage: 'built-in',
        built_in: true,
      },
    ])
    expect(fs.existsSync(dir)).toBe(false)
  })

  it('says `env` for every profile when PAY_API_KEY overrides their keys, showing that key redacted', async ({
    expect,
  }) => {
    // The sandbox's own key is not read, nor made: a directory without one stays empty.
    const empty = tempDir('pay-sandbox-')
    const result = await pay(threeProfiles(), ['profiles', 'list'], {
      PAY_API_KEY: 'sk_env_OverrideKey777',
      PAY_SANDBOX_DIR: empty,
    })
    expect(fs.readdirSync(empty)).toEqual([])
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
})
