import { describe, expect, it } from 'vitest'
import { accountBusinesses } from '../../../src/sandbox/domain/account.js'
import { startAccountSandbox } from '../../helpers/account.js'
import { runInProcess } from '../../helpers/in-process.js'
import { KEY_A, KEY_B } from '../../helpers/sandbox.js'

/**
 * `pay businesses list`: the approved businesses of the account the profile signed in to, with the
 * access token `pay login --email` kept; their keys redacted; the profile's marked; a profile not
 * signed in, and a token past its end, said as such (exit 4) with how to sign in again.
 */

const redacted = (key: string) => `${key.slice(0, 4)}…${key.slice(-4)}`

describe.concurrent('pay businesses list', () => {
  it('lists each business with its integration, keys redacted, the chosen one marked; --json the same', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    expect((await s.signIn()).code).toBe(0)
    const [a, b] = accountBusinesses([KEY_A, KEY_B])
    const [sigA, sigB] = s.t.sandbox.webhooks.signatureKeys
    const tsv = await runInProcess(['businesses', 'list'], { env: s.env })
    expect(tsv).toMatchObject({
      code: 0,
      stderr: '',
      stdout:
        `${a.businessId}\tSandbox business 1\t${a.integrationId}\t${redacted(KEY_A)}\ttrue\n` +
        `${b.businessId}\tSandbox business 2\t${b.integrationId}\t${redacted(KEY_B)}\tfalse\n`,
    })
    // On a terminal at 80 columns: the integration's id headed INTEGRATION, beside the business's ID.
    const table = await runInProcess(['businesses', 'list'], {
      env: s.env,
      terminal: true,
      width: 80,
      colour: false,
    })
    expect(table.stdout).toBe(
      'ID       NAME                INTEGRATION               API KEY    CHOSEN\n' +
        `${a.businessId}  Sandbox business 1  ${a.integrationId}  ${redacted(KEY_A)}  true\n` +
        `${b.businessId}  Sandbox business 2  ${b.integrationId}  ${redacted(KEY_B)}  false\n`,
    )
    const json = await runInProcess(['businesses', 'ls', '--json'], { env: s.env })
    expect(JSON.parse(json.stdout)).toEqual([
      {
        id: a.businessId,
        name: 'Sandbox business 1',
        integration: {
          id: a.integrationId,
          api_key: redacted(KEY_A),
          signature_key: redacted(sigA),
          webhook_events: [],
        },
        chosen: true,
      },
      {
        id: b.businessId,
        name: 'Sandbox business 2',
        integration: {
          id: b.integrationId,
          api_key: redacted(KEY_B),
          signature_key: redacted(sigB),
          webhook_events: [],
        },
        chosen: false,
      },
    ])
    for (const secret of [KEY_A, KEY_B, sigA, sigB]) expect(tsv.stdout + json.stdout).not.toContain(secret)
  })

  it('a profile not signed in, the built-in sandbox, and an access token past its end: exit 4 or 2, saying how to sign in', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    const keyOnly = await runInProcess(['login', '-p', 'keys', '--base-url', s.t.baseUrl, '--with-key'], {
      env: s.env,
      input: KEY_A,
    })
    expect(keyOnly.code).toBe(0)
    expect(await runInProcess(['businesses', 'list', '-p', 'keys'], { env: s.env })).toMatchObject({
      code: 4,
      stdout: '',
      stderr:
        'Error: Profile "keys" is not signed in to an account.\nRun `pay login --email EMAIL -p keys` to sign in.\n',
    })
    expect(await runInProcess(['businesses', 'list', '-p', 'sandbox'], { env: s.env })).toMatchObject({
      code: 2,
      stderr:
        'Error: The sandbox profile has no account to sign in to.\n' +
        "Sign a profile of its own in to the sandbox's account (`pay sandbox start` shows it): `pay login --email EMAIL --profile NAME --base-url URL`.\n",
    })
    expect((await s.signIn()).code).toBe(0)
    // The token lasts 7 days of sandbox time.
    expect((await s.t.a.call('POST', '/_sandbox/clock', { advance: '8d' })).status).toBe(200)
    expect(await runInProcess(['businesses', 'list', '-p', 'shop'], { env: s.env })).toMatchObject({
      code: 4,
      stdout: '',
      stderr:
        `Error: ${s.t.baseUrl}/api refused the access token of profile "shop" (401): it has expired or was revoked.\n` +
        `Run \`pay login --email ${s.account.email} -p shop\` to sign in.\n`,
    })
    expect((await s.signIn()).code).toBe(0)
    expect((await runInProcess(['businesses', 'list', '-p', 'shop'], { env: s.env })).code).toBe(0)
  })
})
