import { describe, it } from 'vitest'
import { accountBusinesses } from '../../../src/sandbox/domain/account.js'
import { startAccountSandbox } from '../../helpers/account.js'
import { freshConfigDir } from '../../helpers/config-files.js'
import { runInProcess } from '../../helpers/in-process.js'
import { keysHidden, threeProfiles } from '../../helpers/profiles.js'
import { KEY_A } from '../../helpers/sandbox.js'

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

  it('a profile of pay login --email: its account, business and integration, the signature key redacted, never the token', async ({
    expect,
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    expect((await s.signIn()).code).toBe(0)
    const [business] = accountBusinesses([KEY_A])
    const signature = s.t.sandbox.webhooks.signatureKeys[0]
    const shown = `${signature.slice(0, 4)}…${signature.slice(-4)}`
    const result = await runInProcess(['profiles', 'show', 'shop'], { env: s.env })
    expect(result).toMatchObject({
      code: 0,
      stderr: '',
      stdout:
        `name\tshop\ncurrent\ttrue\nbase_url\t${s.t.baseUrl}/api\napi_key\tsk_s…9e1d\nkey_storage\tfile\n` +
        `built_in\tfalse\naccount\t${s.account.email}\nbusiness_id\t${business.businessId}\n` +
        `business_name\tSandbox business 1\nintegration_id\t${business.integrationId}\nsignature_key\t${shown}\n`,
    })
    const json = JSON.parse(
      (await runInProcess(['profiles', 'show', 'shop', '--json'], { env: s.env })).stdout,
    )
    expect(json).toMatchObject({ account: s.account.email, signature_key: shown })
    expect(Object.keys(json).filter((key) => /token|password/.test(key))).toEqual([])
    expect(result.stdout).not.toContain(signature)
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
