import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { runInProcess } from '../../helpers/in-process.js'

/** A port some other program listens on. */
async function takenPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((socket) => socket.destroy())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

describe('pay sandbox start', () => {
  it('on a port another program holds: says which, and how to pick another; exit 2, nothing raw', async () => {
    const other = await takenPort()
    try {
      const taken = await runInProcess(['sandbox', 'start', '--port', String(other.port)])
      expect(taken).toMatchObject({ code: 2, stdout: '' })
      expect(taken.stderr).toBe(
        `Error: Port ${other.port} on 127.0.0.1 is taken by another program.\n` +
          'Pick another port with --port PORT, or --port 0 for any free one.\n',
      )
      // The port came from PAY_SANDBOX_PORT (the sandbox profile's): how to move both.
      const profilePort = await runInProcess(['sandbox', 'start'], {
        env: { PAY_SANDBOX_PORT: String(other.port) },
      })
      expect(profilePort.code).toBe(2)
      expect(profilePort.stderr).toBe(
        `Error: Port ${other.port} on 127.0.0.1 is taken by another program.\n` +
          'Pick another port with --port PORT, or --port 0 for any free one.\n' +
          'For `pay -p sandbox` to find it there, set PAY_SANDBOX_PORT to that port instead.\n',
      )
      const json = await runInProcess(['sandbox', 'start', '--port', String(other.port), '--json'])
      expect(json).toMatchObject({ code: 2, stdout: '' })
      expect(JSON.parse(json.stderr)).toEqual({
        error: {
          status: null,
          kind: 'usage',
          exit_code: 2,
          message: `Port ${other.port} on 127.0.0.1 is taken by another program.`,
          hint: 'Pick another port with --port PORT, or --port 0 for any free one.',
        },
      })
      // -p sandbox and --timeout are taken: the run goes on to the port.
      const flagged = await runInProcess([
        '-p',
        'sandbox',
        'sandbox',
        'start',
        '--port',
        String(other.port),
        '--timeout',
        '2',
      ])
      expect(flagged).toEqual(taken)
      for (const run of [taken, profilePort, json]) expect(run.stderr).not.toMatch(/EADDRINUSE|\n\s+at /)
    } finally {
      await other.close()
    }
  })

  it('exits 2 on a bad --port, an unknown or client flag, or a --host that is not this machine', async () => {
    const badPort = await runInProcess(['sandbox', 'start', '--port', 'http'])
    expect(badPort.code).toBe(2)
    expect(badPort.stderr).toBe(
      'Error: --port: Expected an integer but received: http\nSee `pay sandbox start --help`.\n',
    )
    const unknown = await runInProcess(['sandbox', 'start', '--bogus'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Nonexistent flag: --bogus')
    // The global flags are taken, as on every command; a profile must be the user's own sandbox.
    const help = await runInProcess(['sandbox', 'start', '--help'])
    expect(help.stdout).toMatch(
      /-p, --profile=<value>\s+Only `sandbox` \(the built-in profile\) or a profile of/,
    )
    const live = await runInProcess(['-p', 'live', 'sandbox', 'start', '--port', '0', '--timeout', '2'], {
      env: { PAY_API_KEY: undefined },
    })
    expect(live).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: There is no profile named "live" (given with --profile).\n' +
        'See `pay profiles list`; the built-in `sandbox` profile needs no set-up.\n',
    })
    // 192.0.2.1 is TEST-NET-1: documentation only, no machine's address.
    const elsewhere = await runInProcess(['sandbox', 'start', '--port', '0', '--host', '192.0.2.1'])
    expect(elsewhere).toMatchObject({ code: 2, stdout: '' })
    expect(elsewhere.stderr).toBe(
      'Error: Cannot listen on 192.0.2.1: it is not an address of this machine.\n' +
        'Give --host an address of this machine (127.0.0.1 unless others must reach it).\n',
    )
  })
})
