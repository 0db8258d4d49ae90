import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { startAccountSandbox } from '../../helpers/account.js'
import { runInProcess } from '../../helpers/in-process.js'
import { startReceiver } from '../../helpers/receiver.js'
import { KEY_A, tempDir, VALID_LINK } from '../../helpers/sandbox.js'

/**
 * `pay webhooks verify`: a notification an app received, checked with the signature key `pay login
 * --email` kept; exit 0 when it holds, else exit 3 saying which check failed.
 */

async function notified(count: number, received: () => unknown[]): Promise<void> {
  // Each delivery is attempted at once; the receiver has it once it answered.
  for (let i = 0; i < 400 && received().length < count; i++) await new Promise((r) => setTimeout(r, 25))
}

describe.concurrent('pay webhooks verify', () => {
  it('a notification the sandbox sent holds (file or stdin); a changed one, or one missing a key, is exit 3 saying why', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    const receiver = await startReceiver(200)
    onTestFinished(async () => {
      await s.close()
      await receiver.close()
    })
    expect((await s.signIn()).code).toBe(0)
    expect((await runInProcess(['webhooks', 'add', receiver.url], { env: s.env })).code).toBe(0)
    const link = (await s.t.a.call('POST', '/payment-links', { ...VALID_LINK, reference: 17 })).json.data
    await s.t.a.call('POST', `/_sandbox/payment-links/${link._id}/pending`)
    await notified(1, () => receiver.received)
    const body = receiver.received[0].body
    const { data } = JSON.parse(body)
    const file = path.join(tempDir('pay-verify-'), 'body.json')
    fs.writeFileSync(file, body)

    const held = await runInProcess(['webhooks', 'verify', '--file', file], { env: s.env })
    expect(held).toMatchObject({
      code: 0,
      stdout: '',
      stderr:
        `The notification holds: signed with profile "shop"'s signature key. Attempt ${data.attempt_id}, pending ` +
        `(payment_status 2), of payment link ${link._id} (reference "17"), 2550 cents NGN.\n`,
    })
    const json = await runInProcess(['webhooks', 'verify', '--json'], { env: s.env, input: body })
    expect(JSON.parse(json.stdout)).toEqual({
      valid: true,
      profile: 'shop',
      event: 'payment.created',
      data: Object.fromEntries(Object.entries(data).filter(([key]) => key !== 'hash')),
    })

    // A paid status moved in, as a forger would: the hash no longer holds.
    const forged = body.replace('"payment_status":2', '"payment_status":1')
    expect(await runInProcess(['webhooks', 'verify'], { env: s.env, input: forged })).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'Error: The notification does not hold: the hash does not match: it was not signed with this signature key, or it was changed.\n',
    })
    // A key the plugins require left out: named. The rest as the sandbox sent it.
    const { trigger_at, event, data: sent } = JSON.parse(body)
    const { hash: _, ...unsigned } = sent
    expect(
      await runInProcess(['webhooks', 'verify'], {
        env: s.env,
        input: JSON.stringify({ trigger_at, event, data: unsigned }),
      }),
    ).toMatchObject({
      code: 3,
      stdout: '',
      stderr: 'Error: The notification does not hold: data has no hash.\n',
    })
    const { payment_link_id: __, ...unlinked } = sent
    expect(
      await runInProcess(['webhooks', 'verify'], {
        env: s.env,
        input: JSON.stringify({ trigger_at, event, data: unlinked }),
      }),
    ).toMatchObject({
      code: 3,
      stdout: '',
      stderr: 'Error: The notification does not hold: data has no payment_link_id.\n',
    })
  })

  it('a profile with no signature key: exit 3, saying how to keep one; a terminal’s stdin and no --file: exit 2', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    expect(
      (
        await runInProcess(['login', '-p', 'keys', '--base-url', s.t.baseUrl, '--with-key'], {
          env: s.env,
          input: KEY_A,
        })
      ).code,
    ).toBe(0)
    expect(
      await runInProcess(['webhooks', 'verify', '-p', 'keys'], { env: s.env, input: '{"data":{}}' }),
    ).toMatchObject({
      code: 3,
      stderr:
        'Error: The notification does not hold: there is no signature key to check it with.\n' +
        'Profile "keys" keeps no signature key: sign in with `pay login --email` to keep one.\n',
    })
    expect(
      await runInProcess(['webhooks', 'verify', '-p', 'keys'], { env: s.env, stdinTerminal: true }),
    ).toMatchObject({
      code: 2,
      stderr:
        'Error: No notification given.\nGive it with --file FILE, or pipe it in: pay webhooks verify < body.json\n',
    })
  })
})
