import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import { KEY_B, startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/**
 * `pay sandbox packages`: the seeded packages with the ids `subs create --package-id` takes,
 * without starting a server (nothing listens, nothing is written to the sandbox's directory);
 * they are the very packages a running sandbox holds for the same key.
 */

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

/** A sandbox directory that must stay empty: nothing is started or opened. */
const untouched = () => tempDir('pay-packages-')

describe('pay sandbox packages', () => {
  test('--json: the package records a running sandbox holds for the built-in key; no store opened', async () => {
    const dir = untouched()
    const result = await runInProcess(['sandbox', 'packages', '--json'], { env: { PAY_SANDBOX_DIR: dir } })
    expect(result).toMatchObject({ code: 0, stderr: '' })
    const packages = JSON.parse(result.stdout)
    expect(packages.map((p: { _id: string }) => p._id)).toEqual(sandbox.packageIds)
    expect(packages).toEqual(sandbox.sandbox.packages[sandbox.key])
    expect(fs.readdirSync(dir)).toEqual([])
  })

  test('piped: id, name, amount, currency, frequency and business, tab-separated', async () => {
    const result = await runInProcess(['sandbox', 'packages'], { env: { PAY_SANDBOX_DIR: untouched() } })
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
