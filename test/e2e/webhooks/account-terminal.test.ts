import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli, tempDir } from '../../helpers/cli.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/**
 * The account's commands as a person types them, in a real terminal 80 columns wide: `pay login
 * --email` asks the password masked (never on the screen) and saves the business; `pay webhooks
 * remove` shows the plan and asks, "n" cancels (exit 130, nothing removed), "y" removes.
 */

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox({ keys: ['sk_test_terminal_account_1'] })
})

afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

/** A config directory of its own, signed in (or not) to the sandbox's account as profile "shop". */
async function profile(signedIn: boolean) {
  const env = { PAY_CONFIG_DIR: tempDir('pay-account-term-'), PAY_SANDBOX_DIR: sandbox.dir }
  if (signedIn) {
    const { email, password } = sandbox.sandbox.account
    const login = await runCli(
      ['login', '--email', email, '--password-stdin', '-p', 'shop', '--base-url', `${sandbox.baseUrl}/api`],
      { env, input: `${password}\n` },
    )
    expect(login.code).toBe(0)
  }
  return env
}

// One after the other: both sign in to the same business, whose webhook events the second changes.
describe('the account on a terminal', () => {
  test('login --email: the password asked masked, never shown; the business saved', async (context) => {
    const env = await profile(false)
    const { email, password } = sandbox.sandbox.account
    const term = await startTestTerminal(
      context,
      ['login', '--email', email, '-p', 'shop', '--base-url', `${sandbox.baseUrl}/api`],
      { env },
    )
    await term.waitFor(`Password of ${email}`)
    await term.type(password, 'Enter')
    expect(await term.exitCode()).toBe(0)
    const screen = await term.screen()
    expect(screen).toContain(`✔ Password of ${email} ${'*'.repeat(password.length)}\n`)
    // Wrapped at 80 columns, at spaces.
    expect(screen.replace(/\n/g, ' ')).toContain(`Signed in as ${email}; business Sandbox business (`)
    expect(screen).not.toContain(password)
    expect((await runCli(['webhooks', 'list', '--json'], { env })).stdout).toBe('[]\n')
  })

  test('webhooks remove: the plan and the question; n cancels (exit 130), y removes', async (context) => {
    const env = await profile(true)
    const added = JSON.parse(
      (await runCli(['webhooks', 'add', 'https://shop.example/hook', '--json'], { env })).stdout,
    )
    const plan =
      'About to remove 1 webhook event:\n' +
      '  profile:  shop\n' +
      `  base URL: ${sandbox.baseUrl}/api\n` +
      `  ${added._id}  payment.created → https://shop.example/hook\n` +
      '                            [enabled]\n'
    const declined = await startTestTerminal(context, ['webhooks', 'remove', added._id], { env })
    expect(await declined.waitFor('Remove 1 webhook event?')).toContain(plan)
    await declined.type('n', 'Enter')
    expect(await declined.exitCode()).toBe(130)
    expect(await declined.screen()).toMatch(/^Cancelled\.\nNothing was removed\.$/m)
    expect(JSON.parse((await runCli(['webhooks', 'list', '--json'], { env })).stdout)).toHaveLength(1)

    const agreed = await startTestTerminal(context, ['webhooks', 'rm', added._id], { env })
    await agreed.waitFor('Remove 1 webhook event?')
    await agreed.type('y', 'Enter')
    expect(await agreed.exitCode()).toBe(0)
    expect(JSON.parse((await runCli(['webhooks', 'list', '--json'], { env })).stdout)).toEqual([])
  })
})
