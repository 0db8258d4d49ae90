import { afterEach, describe, expect, it } from 'vitest'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { killStarted, startSandboxProcess } from '../../helpers/processes.js'
import { startReceiver } from '../../helpers/receiver.js'

afterEach(killStarted)

/**
 * What a shop plugin does, end to end through the built pay and a `pay sandbox start` process, the
 * base URL with the service's /api: sign in and store a business (`pay login --email`), set the
 * webhook (`pay webhooks add`), a checkout sent with the plugins' JSON types, a payment left
 * pending and then paid (`pay sandbox pay`, through the sandbox, proved at /api), each
 * notification checked (`pay webhooks verify`), and the return carrying the attempt.
 */
describe('a shop plugin’s flow through pay and the sandbox, at <base>/api', () => {
  it('signs in, sets the webhook, takes a checkout of numbers, notifies pending then paid, verified', async () => {
    const dir = tempDir('pay-flow-')
    const account = 'merchant@example.com:a pass: word'
    const sandbox = await startSandboxProcess(
      [BIN, 'sandbox', 'start', '--json', '--port', '0', '--quiet'],
      cleanEnv({ PAY_SANDBOX_DIR: dir, PAY_SANDBOX_ACCOUNT: account }),
    )
    expect(sandbox.line.account).toEqual({ email: 'merchant@example.com', password: 'a pass: word' })
    const api = `${sandbox.line.base_url}/api`
    const config = tempDir('pay-flow-config-')
    const env = { PAY_CONFIG_DIR: config, PAY_SANDBOX_DIR: dir }
    const pay = (args: string[], input?: string) => runCli(args, { env, input })
    const hook = await startReceiver()
    try {
      const login = await pay(
        ['login', '--email', 'merchant@example.com', '--password-stdin', '-p', 'shop', '--base-url', api],
        'a pass: word\n',
      )
      expect(login.code).toBe(0)
      // The directory's own key (sandbox start's JSON line), redacted.
      const key = sandbox.line.keys[0]
      expect(login.stderr).toContain(
        `Saved profile "shop" (key ${key.slice(0, 4)}…${key.slice(-4)} in the config file, ${api}), key verified.`,
      )
      const [business] = JSON.parse((await pay(['businesses', 'list', '--json'])).stdout)
      expect(business).toMatchObject({ name: 'Sandbox business', chosen: true })
      expect((await pay(['webhooks', 'add', hook.url])).code).toBe(0)
      // The event set is the sandbox's endpoint, which `pay sandbox webhooks` shows through the sandbox at /api.
      const webhooks = await pay([
        'sandbox',
        'webhooks',
        'list',
        '-p',
        'sandbox',
        '--base-url',
        api,
        '--json',
      ])
      expect(JSON.parse(webhooks.stdout).endpoints.map((e: { url: string }) => e.url)).toEqual([hook.url])

      // The checkout as GiveWP sends it: the amount a float, the reference an integer, its own payment_id.
      const checkout = await fetch(`${api}/payment-links`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${sandbox.line.keys[0]}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          email: 'donor@example.com',
          currency: 'MYR',
          amount: 25.5,
          title: 'Fund',
          redirect_url: 'http://127.0.0.1:8090/?swipego_gwp_gateway=x&payment_id=501',
          reference: 501,
          reference_2: 'givewp',
          send_email: true,
        }),
      })
      const link = ((await checkout.json()) as { data: { _id: string; amount: number; reference: string } })
        .data
      expect([checkout.status, link.amount, link.reference]).toEqual([200, 25.5, '501'])

      const through = ['-p', 'sandbox', '--base-url', api, '--json']
      const pending = JSON.parse(
        (await pay(['sandbox', 'pay', link._id, '--outcome', 'pending', ...through])).stdout,
      )
      expect(pending).toMatchObject({ outcome: 'pending', link: { paid: false } })
      const paid = JSON.parse((await pay(['sandbox', 'pay', link._id, ...through])).stdout)
      expect(paid).toMatchObject({ outcome: 'paid', link: { paid: true } })
      // The return: the donation's own payment_id kept; the attempt's fields GiveWP reads beside it.
      const back = new URL(paid.redirect_to)
      expect(back.searchParams.getAll('payment_id')).toEqual(['501'])
      expect([back.searchParams.get('payment_link_id'), back.searchParams.get('payment_status')]).toEqual([
        link._id,
        '1',
      ])

      for (let i = 0; i < 400 && hook.received.length < 2; i++) await new Promise((r) => setTimeout(r, 25))
      expect(hook.notifications().map((n) => n.data.payment_status)).toEqual([2, 1])
      expect(hook.notifications()[1].data.attempt_id).toBe(back.searchParams.get('attempt_id'))
      for (const received of hook.received)
        expect((await pay(['webhooks', 'verify'], received.body)).code).toBe(0)
      const forged = hook.received[0].body.replace('"payment_status":2', '"payment_status":1')
      const refused = await pay(['webhooks', 'verify'], forged)
      expect([refused.code, refused.stderr.split('\n')[0]]).toEqual([
        3,
        'Error: The notification does not hold: the hash does not match: it was not signed with this signature key, or it was changed.',
      ])
    } finally {
      await hook.close()
    }
  })
})
