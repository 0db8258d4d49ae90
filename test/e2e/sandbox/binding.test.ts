import net from 'node:net'
import os from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { exited, killStarted } from '../../helpers/processes.js'
import { tempDir } from '../../helpers/sandbox.js'
import { startCliSandbox, startMain } from '../../helpers/sandbox-load.js'

/** The sandbox listens on loopback unless told otherwise. */

afterEach(killStarted)

const otherAddresses = Object.values(os.networkInterfaces())
  .flat()
  .filter((info) => info !== undefined && !info.internal && !info.address.startsWith('fe80:'))
  .map((info) => info!.address)
const otherIPv4 = otherAddresses.filter((address) => net.isIPv4(address))
const hasIPv6Loopback = Object.values(os.networkInterfaces())
  .flat()
  .some((info) => info?.address === '::1')

/** 'connected', or the error code of the attempt. */
function connect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 5000 })
    socket.once('connect', () => {
      socket.destroy()
      resolve('connected')
    })
    socket.once('timeout', () => {
      socket.destroy()
      resolve('timeout')
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
  })
}

describe.each([
  ['pay sandbox start --port 0', startCliSandbox],
  ['test/helpers/sandbox-main.ts --port 0', (extra: string[]) => startMain(tempDir('pay-bind-'), extra)],
])('%s', (_name, start) => {
  it('listens on 127.0.0.1 only: refused on ::1 and on every other address of this machine', async (context) => {
    const sandbox = await start([])
    expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const port = Number(new URL(sandbox.baseUrl).port)
    expect(await connect('127.0.0.1', port)).toBe('connected')
    if (hasIPv6Loopback) expect(await connect('::1', port)).toBe('ECONNREFUSED')
    if (otherAddresses.length === 0)
      context.skip('this machine has no address but loopback to connect through')
    for (const address of otherAddresses)
      expect([address, await connect(address, port)]).toEqual([address, 'ECONNREFUSED'])
  })

  it('--host 0.0.0.0 opens it to the other addresses', async (context) => {
    if (otherIPv4.length === 0)
      context.skip('this machine has no IPv4 address but loopback to connect through')
    const sandbox = await start(['--host', '0.0.0.0'])
    expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const port = Number(new URL(sandbox.baseUrl).port)
    for (const address of otherIPv4) {
      const answer = await fetch(`http://${address}:${port}/_sandbox/health`)
      expect([address, answer.status, await answer.json()]).toEqual([
        address,
        200,
        { service: 'pay-sandbox' },
      ])
    }
  })
})

it('pay sandbox start warns on stderr when bound beyond loopback, and only then', async () => {
  const quiet = await startCliSandbox([])
  const open = await startCliSandbox(['--host', '0.0.0.0'])
  const warning = 'Warning: The sandbox is bound to 0.0.0.0: other machines can reach it.\n'
  // Both run on a port of their own, not the profile's: how to reach them comes first (start.test.ts),
  // after the key each made for its new directory.
  const hint =
    /^Made an API key for this sandbox directory, kept in \S+\/sandbox\.key .*\nDatabase: \S+\/store\.db\npay -p sandbox looks for a sandbox on port 1, not \d+\. To use this one:\n.*\n.*\n/
  await expect.poll(() => open.stderr().replace(hint, ''), { timeout: 5000 }).toBe(warning)
  quiet.child.kill('SIGTERM')
  await exited(quiet.child)
  expect(quiet.stderr().replace(hint, '')).toBe('Sandbox stopped after 0 requests.\n')
})
