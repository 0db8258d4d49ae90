import { afterEach, describe, expect, it } from 'vitest'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { exited, killStarted, startSandboxProcess } from '../../helpers/processes.js'

afterEach(killStarted)

const start = (args: string[]) =>
  startSandboxProcess([BIN, 'sandbox', 'start', '--json', ...args], cleanEnv({ PAY_SANDBOX_DIR: tempDir() }))

describe('pay sandbox start', () => {
  it('serves one business per --key, prints them in its JSON line, and stops cleanly on SIGTERM', async () => {
    const { child, line } = await start(['--port', '0', '--key', 'k1', '--key', 'k2'])
    expect(Object.keys(line)).toEqual(['base_url', 'keys', 'packages'])
    expect(line.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(line.keys).toEqual(['k1', 'k2'])
    expect(line.packages).toHaveLength(6)
    expect(new Set(line.packages.map((pkg: { business_id: number }) => pkg.business_id)).size).toBe(2)
    const health = await fetch(`${line.base_url}/_sandbox/health`)
    expect(health.headers.get('x-pay-sandbox')).toBe('1')
    child.kill('SIGTERM')
    await exited(child)
    expect(child.exitCode).toBe(0)
  })

  it('exits 2 on a bad --port or an unknown flag, and 1 when the port is taken', async () => {
    const badPort = await runCli(['sandbox', 'start', '--port', 'http'])
    expect(badPort.code).toBe(2)
    expect(badPort.stderr).toBe(
      'Error: --port: Expected an integer but received: http\nSee `pay sandbox start --help`.\n',
    )
    const unknown = await runCli(['sandbox', 'start', '--bogus'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Nonexistent flag: --bogus')
    const { baseUrl } = await start(['--port', '0'])
    const taken = await runCli(['sandbox', 'start', '--port', new URL(baseUrl).port])
    expect(taken.code).toBe(1)
    expect(taken.stderr).toContain('EADDRINUSE')
  })
})
