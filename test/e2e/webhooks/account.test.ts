import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, tempDir } from '../../helpers/cli.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/**
 * The account's commands through the built pay, against a sandbox at <base>/api: `pay webhooks
 * list|add|disable|enable|remove` on the profile's integration (the sandbox's endpoints of the
 * business), `pay businesses list`, and an access token past its end (exit 4, saying to run `pay
 * login --email` again). Each command's every case is in test/commands/{webhooks,businesses}.
 */

let sandbox: TestSandbox
let env: Record<string, string>
const pay = (args: string[]) => runCli([...args, '-p', 'shop'], { env })
const endpoints = async () => (await sandbox.a.call('GET', '/_sandbox/webhooks')).json.data.endpoints

beforeAll(async () => {
  sandbox = await startTestSandbox({ keys: ['sk_test_e2e_account_1'] })
  env = { PAY_CONFIG_DIR: tempDir('pay-e2e-account-'), PAY_SANDBOX_DIR: sandbox.dir }
  const { email, password } = sandbox.sandbox.account
  const login = await runCli(
    ['login', '--email', email, '--password-stdin', '-p', 'shop', '--base-url', `${sandbox.baseUrl}/api`],
    { env, input: `${password}\n` },
  )
  expect(login.code).toBe(0)
})
afterAll(() => sandbox?.close())

describe('the account’s commands, end to end', () => {
  it('webhooks add, list, disable, enable, remove: the sandbox’s endpoints of the business', async () => {
    const business = sandbox.sandbox.packages[sandbox.key][0].business_id
    const [listed] = JSON.parse((await pay(['businesses', 'list', '--json'])).stdout)
    expect(listed).toMatchObject({ id: business, name: 'Sandbox business', chosen: true })

    const added = await pay(['webhooks', 'add', 'https://shop.example/hook', '--json'])
    expect([added.code, added.stderr]).toEqual([0, ''])
    const event = JSON.parse(added.stdout)
    expect(await endpoints()).toEqual([
      expect.objectContaining({ _id: event._id, url: 'https://shop.example/hook', enabled: true }),
    ])
    const tsv = await pay(['webhooks', 'list'])
    expect(tsv).toMatchObject({
      code: 0,
      stderr: '',
      stdout: `${event._id}\tpayment.created\ttrue\thttps://shop.example/hook\t${event.updated_at}\n`,
    })

    expect((await pay(['webhooks', 'disable', event._id])).code).toBe(0)
    expect((await endpoints()).map((e: { enabled: boolean }) => e.enabled)).toEqual([false])
    expect((await pay(['webhooks', 'enable', event._id])).code).toBe(0)
    expect((await endpoints()).map((e: { enabled: boolean }) => e.enabled)).toEqual([true])

    // Off a terminal, remove needs --yes (exit 2, nothing removed).
    expect((await pay(['webhooks', 'remove', event._id])).code).toBe(2)
    expect(await endpoints()).toHaveLength(1)
    const removed = await pay(['webhooks', 'remove', event._id, '--yes'])
    expect(removed.code).toBe(0)
    expect(await endpoints()).toEqual([])
    expect(await pay(['webhooks', 'remove', event._id, '--yes'])).toMatchObject({
      code: 5,
      stdout: '',
      stderr: `Error: The integration has no webhook event ${event._id}.\nSee \`pay webhooks list\`.\n`,
    })
  })

  it('an access token past its end: exit 4, saying to sign in again with pay login --email', async () => {
    const { email } = sandbox.sandbox.account
    // Last of the file: the sandbox's clock moved past the token's 7 days.
    expect((await sandbox.a.call('POST', '/_sandbox/clock', { advance: '8d' })).status).toBe(200)
    for (const args of [
      ['webhooks', 'list'],
      ['businesses', 'list'],
    ])
      expect(await pay(args)).toMatchObject({
        code: 4,
        stdout: '',
        stderr:
          `Error: ${sandbox.baseUrl}/api refused the access token of profile "shop" (401): it has expired or was revoked.\n` +
          `Run \`pay login --email ${email} -p shop\` to sign in.\n`,
      })
  })
})
