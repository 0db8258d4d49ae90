import fs from 'node:fs'
import path from 'node:path'
import { describe, it } from 'vitest'
import type { CliResult } from '../../helpers/cli.js'
import { freshConfigDir, writeConfig } from '../../helpers/config-files.js'
import type { FakeServer } from '../../helpers/fake-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import { startKeyServer } from '../../helpers/key-server.js'

const ONE_KEY = 'key_one_Pr3cEd1111'
const TWO_KEY = 'key_two_Pr3cEd2222'
const ENV_KEY = 'key_env_Pr3cEd9999'

interface Setup {
  a: FakeServer
  b: FakeServer
  dir: string
  /** `pay links list --json` with this config dir, plus env. */
  list(args?: string[], env?: Record<string, string>): Promise<CliResult>
  /** Which server got the one request, and with which key. */
  reached(): { server: string; auth: string | undefined }[]
}

/**
 * Two fake services, A and B, each accepting every key and answering with its own list, and a
 * config where profile `one` (A) is current and `two` points at B.
 */
async function setup(onTestFinished: (fn: () => Promise<void>) => void): Promise<Setup> {
  const keys = [ONE_KEY, TWO_KEY, ENV_KEY]
  const a = await startKeyServer(keys, [{ _id: 'link_from_a' }])
  const b = await startKeyServer(keys, [{ _id: 'link_from_b' }])
  onTestFinished(async () => {
    await a.close()
    await b.close()
  })
  const dir = freshConfigDir()
  writeConfig(dir, {
    current: 'one',
    profiles: {
      one: { api_key: ONE_KEY, base_url: a.baseUrl },
      two: { api_key: TWO_KEY, base_url: b.baseUrl },
    },
  })
  return {
    a,
    b,
    dir,
    list: (args = [], env = {}) =>
      runInProcess(['links', 'list', '--json', ...args], { env: { PAY_CONFIG_DIR: dir, ...env } }),
    reached: () => [
      ...a.requests.map((r) => ({ server: 'A', auth: r.headers.authorization })),
      ...b.requests.map((r) => ({ server: 'B', auth: r.headers.authorization })),
    ],
  }
}

const A_LIST = `${JSON.stringify([{ _id: 'link_from_a' }], null, 2)}\n`
const B_LIST = `${JSON.stringify([{ _id: 'link_from_b' }], null, 2)}\n`

describe.concurrent('which profile, key and base URL a command uses', () => {
  it('uses the current profile by default', async ({ expect, onTestFinished }) => {
    const s = await setup(onTestFinished)
    expect(await s.list()).toEqual({ code: 0, signal: null, stdout: A_LIST, stderr: '' })
    expect(s.reached()).toEqual([{ server: 'A', auth: `Bearer ${ONE_KEY}` }])
  })

  it('takes PAY_PROFILE over the current profile', async ({ expect, onTestFinished }) => {
    const s = await setup(onTestFinished)
    expect(await s.list([], { PAY_PROFILE: 'two' })).toEqual({
      code: 0,
      signal: null,
      stdout: B_LIST,
      stderr: '',
    })
    expect(s.reached()).toEqual([{ server: 'B', auth: `Bearer ${TWO_KEY}` }])
  })

  it('takes --profile / -p over PAY_PROFILE', async ({ expect, onTestFinished }) => {
    const s = await setup(onTestFinished)
    expect((await s.list(['--profile', 'one'], { PAY_PROFILE: 'two' })).stdout).toBe(A_LIST)
    expect((await s.list(['-p', 'two'], { PAY_PROFILE: 'one' })).stdout).toBe(B_LIST)
    expect(s.reached()).toEqual([
      { server: 'A', auth: `Bearer ${ONE_KEY}` },
      { server: 'B', auth: `Bearer ${TWO_KEY}` },
    ])
  })

  it("sends PAY_API_KEY instead of the profile's key, and says so with the key redacted", async ({
    expect,
    onTestFinished,
  }) => {
    const s = await setup(onTestFinished)
    expect(await s.list(['-p', 'two'], { PAY_API_KEY: ENV_KEY })).toEqual({
      code: 0,
      signal: null,
      stdout: B_LIST,
      stderr: `Using the API key from PAY_API_KEY (key_…9999) instead of profile "two"'s.\n`,
    })
    expect(s.reached()).toEqual([{ server: 'B', auth: `Bearer ${ENV_KEY}` }])
  })

  it("takes PAY_BASE_URL over the profile's base URL", async ({ expect, onTestFinished }) => {
    const s = await setup(onTestFinished)
    expect(await s.list([], { PAY_BASE_URL: s.b.baseUrl })).toEqual({
      code: 0,
      signal: null,
      stdout: B_LIST,
      stderr: '',
    })
    expect(s.reached()).toEqual([{ server: 'B', auth: `Bearer ${ONE_KEY}` }])
  })

  it('takes --base-url over PAY_BASE_URL', async ({ expect, onTestFinished }) => {
    const s = await setup(onTestFinished)
    expect(
      (await s.list(['-p', 'two', '--base-url', s.a.baseUrl], { PAY_BASE_URL: s.b.baseUrl })).stdout,
    ).toBe(A_LIST)
    expect(s.reached()).toEqual([{ server: 'A', auth: `Bearer ${TWO_KEY}` }])
  })

  it('needs no profile nor config file with PAY_API_KEY and PAY_BASE_URL', async ({
    expect,
    onTestFinished,
  }) => {
    const s = await setup(onTestFinished)
    const empty = path.join(freshConfigDir(), 'absent')
    const result = await runInProcess(['links', 'list', '--json'], {
      env: { PAY_CONFIG_DIR: empty, PAY_API_KEY: ENV_KEY, PAY_BASE_URL: s.b.baseUrl },
    })
    expect(result).toEqual({ code: 0, signal: null, stdout: B_LIST, stderr: '' })
    expect(s.reached()).toEqual([{ server: 'B', auth: `Bearer ${ENV_KEY}` }])
    expect(fs.existsSync(empty)).toBe(false)
  })

  it('ignores even a corrupt config file with PAY_API_KEY and PAY_BASE_URL', async ({
    expect,
    onTestFinished,
  }) => {
    const s = await setup(onTestFinished)
    fs.writeFileSync(path.join(s.dir, 'config.json'), '{oops')
    const result = await s.list([], { PAY_API_KEY: ENV_KEY, PAY_BASE_URL: s.a.baseUrl })
    expect(result).toEqual({ code: 0, signal: null, stdout: A_LIST, stderr: '' })
    expect(s.reached()).toEqual([{ server: 'A', auth: `Bearer ${ENV_KEY}` }])
  })

  it('fails with exit 4 and a hint when there is no profile and no key', async ({ expect }) => {
    const result = await runInProcess(['links', 'list', '--json'], {
      env: { PAY_CONFIG_DIR: freshConfigDir() },
    })
    expect([result.code, result.stdout]).toEqual([4, ''])
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        status: null,
        kind: 'auth',
        exit_code: 4,
        message: 'No profile is selected and no API key is set.',
        hint: 'Run `pay login`, set PAY_API_KEY and PAY_BASE_URL, or try the built-in sandbox with `-p sandbox`.',
      },
    })
    const plain = await runInProcess(['links', 'list'], { env: { PAY_CONFIG_DIR: freshConfigDir() } })
    expect(plain).toEqual({
      code: 4,
      signal: null,
      stdout: '',
      stderr:
        'Error: No profile is selected and no API key is set.\n' +
        'Run `pay login`, set PAY_API_KEY and PAY_BASE_URL, or try the built-in sandbox with `-p sandbox`.\n',
    })
  })

  it('fails with exit 2 for PAY_API_KEY without a base URL, sending nothing', async ({ expect }) => {
    const result = await runInProcess(['links', 'list'], {
      env: { PAY_CONFIG_DIR: freshConfigDir(), PAY_API_KEY: ENV_KEY },
    })
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr:
        'Error: PAY_API_KEY is set, but there is no base URL to send it to.\n' +
        'Set PAY_BASE_URL or give --base-url, or select a profile with --profile.\n',
    })
  })

  it('fails with exit 2 for an unknown profile, from -p or PAY_PROFILE, sending nothing', async ({
    expect,
    onTestFinished,
  }) => {
    const s = await setup(onTestFinished)
    const hint = 'See `pay profiles list`, or create it with `pay login --profile NAME`.'
    expect(await s.list(['-p', 'nope'], { PAY_API_KEY: ENV_KEY, PAY_BASE_URL: s.a.baseUrl })).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: `{"error":{"status":null,"kind":"usage","exit_code":2,"message":"There is no profile named \\"nope\\" (given with --profile).","hint":"${hint}"}}\n`,
    })
    const fromEnv = await runInProcess(['links', 'list'], {
      env: { PAY_CONFIG_DIR: s.dir, PAY_PROFILE: 'nope' },
    })
    expect(fromEnv).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: `Error: There is no profile named "nope" (from PAY_PROFILE).\n${hint}\n`,
    })
    expect(s.reached()).toEqual([])
  })
})
