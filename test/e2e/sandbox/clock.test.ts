import fs from 'node:fs'
import { afterEach, describe, expect, test } from 'vitest'
import { DURATION_FORMS } from '../../../src/sandbox/duration.js'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { killStarted, type SandboxProcess, startSandboxProcess } from '../../helpers/processes.js'
import { type Client, clientFor, KEY_A, trustSandbox } from '../../helpers/sandbox.js'

/**
 * `pay sandbox clock [advance DURATION | set DATE]` (issue 22): through the sandbox that serves the
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
  return { ...server, dir, api: clientFor(server.baseUrl, KEY_A) }
}

const offsetOf = async (api: Client) => (await api.call('GET', '/_sandbox/clock')).json.data.offset_seconds

describe('on the local store (no sandbox running)', () => {
  test('shows real time, moves forward, survives, and goes back to real time with a reset', async () => {
    const env = LOCAL_ENV()
    const dir = env.PAY_SANDBOX_DIR
    const start = await runCli(['sandbox', 'clock'], { env })
    expect(start.code).toBe(0)
    expect(start.stdout).toMatch(/^now\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\noffset_seconds\t0\n$/)
    expect(start.stderr).toBe(`Sandbox time is real time (the local sandbox store ${dir}).\n`)

    const advanced = await runCli(['sandbox', 'clock', 'advance', '30d', '--json'], { env })
    expect(advanced).toMatchObject({ code: 0, stderr: '' })
    const moved = JSON.parse(advanced.stdout)
    expect(Object.keys(moved)).toEqual(['now', 'charges_created'])
    expect(moved.charges_created).toBe(0)
    expect(Date.parse(moved.now) - Date.now()).toBeGreaterThan(29 * DAY * 1000)

    const shown = await runCli(['sandbox', 'clock', '--json'], { env })
    expect(JSON.parse(shown.stdout)).toEqual({ now: expect.any(String), offset_seconds: 30 * DAY })
    const piped = await runCli(['sandbox', 'clock'], { env })
    expect(piped.stderr).toBe(`Sandbox time is 30d ahead of real time (the local sandbox store ${dir}).\n`)

    const set = await runCli(['sandbox', 'clock', 'set', '2099-01-01'], { env })
    expect(set.code).toBe(0)
    expect(set.stdout).toBe('now\t2099-01-01T00:00:00.000Z\ncharges_created\t0\n')
    expect(set.stderr).toBe(
      `Sandbox time is now 2099-01-01T00:00:00.000Z (the local sandbox store ${dir}): no charge created.\n`,
    )

    const reset = await runCli(['sandbox', 'reset', '--json'], { env })
    expect(reset.code).toBe(0)
    expect(JSON.parse((await runCli(['sandbox', 'clock', '--json'], { env })).stdout).offset_seconds).toBe(0)
  })

  test('refuses, exit 2 and nothing changed: a duration that means nothing, a date that is none, a time gone by', async () => {
    const env = LOCAL_ENV()
    await runCli(['sandbox', 'clock', 'set', '2090-06-15T12:00:00Z'], { env })
    const before = JSON.parse((await runCli(['sandbox', 'clock', '--json'], { env })).stdout).offset_seconds

    const duration = await runCli(['sandbox', 'clock', 'advance', '30 days'], { env })
    expect(duration).toMatchObject({ code: 2, stdout: '' })
    expect(duration.stderr).toBe(`Error: "30 days" is not a duration.\nDurations: ${DURATION_FORMS}.\n`)

    const date = await runCli(['sandbox', 'clock', 'set', '2091-02-29'], { env })
    expect(date).toMatchObject({ code: 2, stdout: '' })
    expect(date.stderr).toBe(
      'Error: "2091-02-29" is not a date or time.\nGive a date, 2027-01-01 (midnight UTC), or a date and time, 2027-01-01T09:30:00Z.\n',
    )

    const past = await runCli(['sandbox', 'clock', 'set', '2090-06-14', '--json'], { env })
    expect(past).toMatchObject({ code: 2, stdout: '' })
    expect(JSON.parse(past.stderr)).toEqual({
      error: {
        status: null,
        kind: 'usage',
        exit_code: 2,
        message: expect.stringMatching(
          /^2090-06-14T00:00:00\.000Z is before the sandbox's time, 2090-06-15T12:00:\d\d\.\d{3}Z: the clock only goes forward\.$/,
        ),
      },
    })
    // The same day again changes nothing and is no error.
    const same = await runCli(['sandbox', 'clock', 'set', '2090-06-15', '--json'], { env })
    expect(same.code).toBe(0)
    expect(JSON.parse(same.stdout)).toEqual({
      now: expect.stringMatching(/^2090-06-15T12:00:/),
      charges_created: 0,
    })

    const missing = await runCli(['sandbox', 'clock', 'advance'], { env })
    expect(missing.code).toBe(2)
    const after = JSON.parse((await runCli(['sandbox', 'clock', '--json'], { env })).stdout).offset_seconds
    expect(Math.abs(after - before)).toBeLessThanOrEqual(1)
  })
})

describe('through a running sandbox', () => {
  test('the server’s clock moves and bills, its store only; the local store is never opened', async () => {
    const server = await startServer()
    const local = LOCAL_ENV()
    // The command's own store is another directory: it holds the server's secret, so the server
    // can prove it is the user's sandbox (issue 21).
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
    expect(fs.readdirSync(local.PAY_SANDBOX_DIR)).toEqual(['proof.secret']) // the copy trustSandbox made: no store.db
  })

  test('--jq shapes what it prints', async () => {
    const env = LOCAL_ENV()
    const result = await runCli(['sandbox', 'clock', 'advance', 'P1D', '--jq', '.charges_created'], { env })
    expect(result).toMatchObject({ code: 0, stdout: '0\n', stderr: '' })
  })
})
