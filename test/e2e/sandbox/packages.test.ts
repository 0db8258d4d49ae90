import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/**
 * `pay sandbox packages`: the seeded packages with the ids `subs create --package-id` takes,
 * without starting a server (nothing listens, no store is opened); they are the very packages a
 * running sandbox holds for the same key.
 */

let sandbox: TestSandbox

beforeAll(async () => {
  // Its directory's own key first: `sandbox packages` on that directory lists that business's.
  sandbox = await startTestSandbox({ ownKey: true })
})
afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

describe('pay sandbox packages', () => {
  test('on a terminal at 80 columns: a table', async (context) => {
    const term = await startTestTerminal(context, ['sandbox', 'packages'], {
      env: { NO_COLOR: '1', PAY_SANDBOX_DIR: sandbox.dir },
    })
    expect(await term.exitCode()).toBe(0)
    const business = sandbox.sandbox.packages[sandbox.key][0].business_id
    expect((await term.screen()).trimEnd().split('\n')).toEqual([
      'ID                        NAME      AMOUNT       FREQUENCY  BUSINESS ID',
      `${sandbox.packageIds[0]}  Starter   120.00 USD   yearly     ${business}`,
      `${sandbox.packageIds[1]}  Business  1250.50 USD  yearly     ${business}`,
      `${sandbox.packageIds[2]}  Monthly   15.00 USD    monthly    ${business}`,
    ])
  })
})
