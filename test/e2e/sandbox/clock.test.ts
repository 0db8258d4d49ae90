import fs from 'node:fs'
import { afterEach, describe, expect, test } from 'vitest'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { killStarted, type SandboxProcess, startSandboxProcess } from '../../helpers/processes.js'
import { type Client, clientFor, trustSandbox } from '../../helpers/sandbox.js'

/**
 * `pay sandbox clock [advance DURATION | set DATE]`: through the sandbox that serves the
 * profile (`GET/POST /_sandbox/clock`), else on the local store, like `sandbox pay`; what each
 * prints; the forms refused (exit 2, nothing changed); `pay sandbox reset` back to real time.
 */

afterEach(killStarted)

const DAY = 86_400
const LOCAL_ENV = () => ({ PAY_SANDBOX_DIR: tempDir('pay-clock-local-'), PAY_SANDBOX_PORT: '1' })

/** `pay sandbox start --port 0 --json` on a store of its own. */
async function startServer(): Promise<SandboxProcess & { api: Client; dir: string }> {
  const dir = tempDir('pay-clock-server-')
  const server = await startSandboxProcess(
    [BIN, 'sandbox', 'start', '--port', '0', '--json', '--quiet'],
    cleanEnv({ PAY_SANDBOX_DIR: dir }),
  )
  return { ...server, dir, api: clientFor(server.baseUrl, server.key) }
}

const offsetOf = async (api: Client) => (await api.call('GET', '/_sandbox/clock')).json.data.offset_seconds

describe('through a running sandbox', () => {
  test('the server’s clock moves and bills, its store only; the local store is never opened', async () => {
    const server = await startServer()
    const local = LOCAL_ENV()
    // The command's own store is another directory: it holds the server's secret, so the server
    // can prove it is the user's sandbox.
    trustSandbox(server.dir, local.PAY_SANDBOX_DIR)
    const env = { ...local, PAY_SANDBOX_PORT: new URL(server.baseUrl).port }
    const monthly = server.line.packages[2]._id
    const sub = (
      await server.api.call('POST', '/subscriptions', { package_id: monthly, email: 'a@example.com' })
    ).json.data

    const advanced = await runCli(['sandbox', 'clock', 'advance', '2mo'], { env })
    expect(advanced.code).toBe(0)
    const [nowLine, chargesLine] = advanced.stdout.trimEnd().split('\n')
    expect(chargesLine).toMatch(/^charges_created\t[12]$/)
    const now = nowLine.split('\t')[1]
    expect(advanced.stderr).toBe(
      `Sandbox time is now ${now} (the sandbox at ${server.baseUrl}): ${chargesLine.endsWith('1') ? '1 charge' : '2 charges'} created.\n`,
    )
    const billed = (await server.api.call('GET', `/subscriptions/${sub._id}`)).json.data.payment_links
    expect(billed).toHaveLength(Number(chargesLine.split('\t')[1]))
    expect(await offsetOf(server.api)).toBeGreaterThanOrEqual(59 * DAY)

    const shown = await runCli(['sandbox', 'clock', '--json'], { env })
    expect(JSON.parse(shown.stdout).offset_seconds).toBe(await offsetOf(server.api))

    const refused = await runCli(['sandbox', 'clock', 'set', '2020-01-01'], { env })
    expect(refused).toMatchObject({ code: 2, stdout: '' })
    expect(refused.stderr).toMatch(
      /^Error: 2020-01-01T00:00:00\.000Z is before the sandbox's time, .*: the clock only goes forward\.\n$/,
    )

    const reset = await runCli(['sandbox', 'reset'], { env })
    expect(reset.code).toBe(0)
    expect(await offsetOf(server.api)).toBe(0)
    // The copies trustSandbox made: no store.db.
    expect(fs.readdirSync(local.PAY_SANDBOX_DIR).sort()).toEqual(['proof.secret', 'sandbox.key'])
  })
})
