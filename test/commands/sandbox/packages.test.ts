import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readSandboxKey, SANDBOX_KEY_FILE } from '../../../src/shared/sandbox-key.js'
import { tempDir } from '../../helpers/cli.js'
import { freshConfigDir, writeConfig } from '../../helpers/config-files.js'
import { startFakeServer } from '../../helpers/fake-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import { KEY_B, startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/**
 * `pay sandbox packages`: the seeded packages with the ids `subs create --package-id` takes,
 * without starting a server (nothing listens, no store is opened: the sandbox's directory gets
 * only its key, made as `sandbox start` makes it); they are the very packages a running sandbox
 * holds for the same key.
 */

let sandbox: TestSandbox

beforeAll(async () => {
  // Its directory's own key first, as `sandbox start` with no key serves it.
  sandbox = await startTestSandbox({ ownKey: true })
})
afterAll(() => sandbox.close())

/** A sandbox directory where nothing may be started or opened: it gets its key, nothing else. */
const untouched = () => tempDir('pay-packages-')

describe('pay sandbox packages', () => {
  test('--json: the package records a sandbox started on the directory holds for its own key; no store opened', async () => {
    const dir = untouched()
    const result = await runInProcess(['sandbox', 'packages', '--json'], { env: { PAY_SANDBOX_DIR: dir } })
    expect(result).toMatchObject({ code: 0, stderr: '' })
    // The directory's key, made as `sandbox start` would make it, and nothing else.
    expect(fs.readdirSync(dir)).toEqual([SANDBOX_KEY_FILE])
    const packages = JSON.parse(result.stdout)
    const started = await startTestSandbox({ dir, keys: [readSandboxKey(dir) as string] })
    try {
      expect(packages).toEqual(started.sandbox.packages[started.key])
      expect(packages.map((p: { _id: string }) => p._id)).toEqual(started.packageIds)
    } finally {
      await started.close()
    }
  })

  test('piped: id, name, amount, currency, frequency and business, tab-separated', async () => {
    const result = await runInProcess(['sandbox', 'packages'], { env: { PAY_SANDBOX_DIR: sandbox.dir } })
    const business = sandbox.sandbox.packages[sandbox.key][0].business_id
    expect(result).toMatchObject({
      code: 0,
      stderr: '',
      stdout: [
        `${sandbox.packageIds[0]}\tStarter\t120\tUSD\tyearly\t${business}`,
        `${sandbox.packageIds[1]}\tBusiness\t1250.5\tUSD\tyearly\t${business}`,
        `${sandbox.packageIds[2]}\tMonthly\t15\tUSD\tmonthly\t${business}`,
        '',
      ].join('\n'),
    })
  })

  test('--key: the packages of that business (each --key of `sandbox start` is one)', async () => {
    const result = await runInProcess(['sandbox', 'packages', '--key', KEY_B, '--jq', '.[]._id'])
    expect(result.stdout.trim().split('\n')).toEqual(sandbox.sandbox.packages[KEY_B].map((p) => p._id))
  })

  test('subs create --help points to it', async () => {
    const help = await runInProcess(['subs', 'create', '--help'])
    // Wrapped at 80 columns by the help: read as one line.
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'with the sandbox profile the package is picked from its seeded packages. `pay sandbox packages` lists them',
    )
  })
})

describe('the global flags, as on every command', () => {
  test('-p sandbox (before the command or after), --base-url of the built-in sandbox, --timeout, --debug: taken', async () => {
    const env = { PAY_SANDBOX_DIR: untouched() }
    const plain = await runInProcess(['sandbox', 'packages'], { env })
    const runs = await Promise.all([
      runInProcess(['-p', 'sandbox', 'sandbox', 'packages'], { env }),
      runInProcess(['--profile=sandbox', '--timeout', '5', 'sandbox', 'packages', '--debug'], { env }),
      // The built-in profile's own address (PAY_SANDBOX_PORT is 1 in the tests).
      runInProcess(['sandbox', 'packages', '--base-url', 'http://127.0.0.1:1'], { env }),
    ])
    for (const run of runs) expect(run).toEqual(plain)
    expect(plain).toMatchObject({ code: 0, stderr: '' })
    expect(fs.readdirSync(env.PAY_SANDBOX_DIR)).toEqual([SANDBOX_KEY_FILE])
  })

  test('a profile of your own sandbox is taken; any other profile or base URL: exit 2, naming it and why', async () => {
    const notASandbox = await startFakeServer()
    const config = freshConfigDir()
    writeConfig(config, {
      profiles: {
        live: { api_key: 'sk_live_PackagesNotHere01', base_url: 'https://live.example' },
        web: { api_key: 'sk_test_PackagesWebSrv002', base_url: notASandbox.baseUrl },
        mine: { api_key: sandbox.key, base_url: sandbox.baseUrl },
      },
    })
    const env = { PAY_CONFIG_DIR: config, PAY_SANDBOX_DIR: sandbox.dir }
    const run = (...args: string[]) => runInProcess(['sandbox', 'packages', ...args, '-q'], { env })
    try {
      expect(await run('-p', 'mine')).toMatchObject({
        code: 0,
        stderr: '',
        stdout: `${sandbox.packageIds.join('\n')}\n`,
      })
      const hint = `Use -p sandbox, or leave -p and --base-url out: your local sandbox keeps its store in ${sandbox.dir}.\n`
      const refused = async (args: string[], why: string) =>
        expect(await run(...args)).toEqual({
          code: 2,
          signal: null,
          stdout: '',
          stderr: `Error: \`pay sandbox packages\` acts on your local sandbox, and ${why}.\n${hint}`,
        })
      await refused(['-p', 'live'], 'profile "live" is not it: https://live.example is not on this machine')
      await refused(['-p', 'web'], `profile "web" is not it: ${notASandbox.baseUrl} is not a pay sandbox`)
      await refused(
        ['--base-url', 'http://127.0.0.1:9'],
        "--base-url http://127.0.0.1:9 is not it: nothing answers at http://127.0.0.1:9, which is not the built-in sandbox's address",
      )
      expect(await run('-p', 'nope')).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          'Error: There is no profile named "nope" (given with --profile).\n' +
          'See `pay profiles list`; the built-in `sandbox` profile needs no set-up.\n',
      })
      // PAY_PROFILE names the live profile for every other command: here it is left aside.
      const withEnv = await runInProcess(['sandbox', 'packages', '-q'], {
        env: { ...env, PAY_PROFILE: 'live' },
      })
      expect(withEnv).toMatchObject({ code: 0, stderr: '' })
    } finally {
      await notASandbox.close()
    }
  })
})
