import { afterEach, describe, expect, it, vi } from 'vitest'
import { startCli } from '../../helpers/child.js'
import { BIN, cleanEnv, tempDir } from '../../helpers/cli.js'
import { killStarted, type SandboxProcess, startSandboxProcess } from '../../helpers/processes.js'
import { type Receiver, startReceiver } from '../../helpers/receiver.js'
import { clientFor, VALID_LINK } from '../../helpers/sandbox.js'

/**
 * `pay sandbox listen` as a process: Ctrl-C (SIGINT) and SIGTERM end it and remove its endpoint;
 * the sandbox stopping ends it with exit 6. The sandbox is `pay sandbox start` in a process of
 * its own on the directory the listen's environment names, with a key of its own that listen is
 * given: neither its output (startCli checks) nor what it forwards ever holds it.
 */

const KEY = 'sk_test_listen_canary_6a7b8c9d0e1f'

afterEach(killStarted)
const receivers: Receiver[] = []
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close()
})

async function sandboxAndApp(): Promise<{
  sandbox: SandboxProcess
  app: Receiver
  env: Record<string, string>
}> {
  const dir = tempDir('pay-listen-')
  const sandbox = await startSandboxProcess(
    [BIN, 'sandbox', 'start', '--json', '--port', '0', '--quiet', '--key', KEY],
    cleanEnv({ PAY_SANDBOX_DIR: dir }),
  )
  const app = await startReceiver(204)
  receivers.push(app)
  return { sandbox, app, env: { PAY_SANDBOX_DIR: dir, PAY_API_KEY: KEY, PAY_BASE_URL: sandbox.baseUrl } }
}

const endpointsOf = async (sandbox: SandboxProcess) =>
  (await clientFor(sandbox.baseUrl, KEY).call('GET', '/_sandbox/webhooks')).json.data.endpoints

async function payNewLink(sandbox: SandboxProcess): Promise<string> {
  const client = clientFor(sandbox.baseUrl, KEY)
  const link = (await client.call('POST', '/payment-links', VALID_LINK)).json.data
  expect((await client.call('POST', `/_sandbox/payment-links/${link._id}/pay`)).status).toBe(200)
  return link._id
}

describe('pay sandbox listen, a process', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s ends it with exit 0, its endpoint removed', async (signal) => {
    const { sandbox, app, env } = await sandboxAndApp()
    const listen = startCli(['sandbox', 'listen', '--forward-to', app.url, '--json'], { env })
    await vi.waitFor(() => expect(listen.stderr).toContain('Ctrl-C stops.'), { timeout: 15_000 })
    expect(await endpointsOf(sandbox)).toHaveLength(1)
    const id = await payNewLink(sandbox)
    await vi.waitFor(() => expect(listen.stdout).toContain('\n'), { timeout: 15_000 })
    expect(JSON.parse(listen.stdout)).toEqual({
      event: 'payment.created',
      payment_link_id: id,
      url: app.url,
      status: 204,
      ms: expect.any(Number),
    })
    listen.child.kill(signal)
    const ended = await listen.done
    expect(ended.code).toBe(0)
    expect(ended.stderr.split('\n').slice(4)).toEqual([
      'Stopped listening after 1 notification; its endpoint was removed.',
      '',
    ])
    expect(await endpointsOf(sandbox)).toEqual([])
    expect(app.received).toHaveLength(1)
    expect(JSON.stringify(app.received)).not.toContain(KEY)
  })

  it('the sandbox stopping ends it: exit 6, saying so', async () => {
    const { sandbox, app, env } = await sandboxAndApp()
    const listen = startCli(['sandbox', 'listen', '--forward-to', app.url], { env })
    await vi.waitFor(() => expect(listen.stderr).toContain('Ctrl-C stops.'), { timeout: 15_000 })
    sandbox.child.kill('SIGTERM')
    const ended = await listen.done
    expect(ended.code).toBe(6)
    expect(ended.stderr.split('\n').slice(4)).toEqual([
      `Error: The sandbox at ${sandbox.baseUrl} stopped answering: stopped listening.`,
      'Its endpoint goes within 20 s. Start the sandbox again, then `pay sandbox listen`.',
      '',
    ])
  })
})
