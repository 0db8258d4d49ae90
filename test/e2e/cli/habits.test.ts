import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BIN, cleanEnv, runCli } from '../../helpers/cli.js'
import { freshConfigDir, writeConfig } from '../../helpers/config-files.js'
import type { FakeServer } from '../../helpers/fake-server.js'
import { startKeyServer } from '../../helpers/key-server.js'
import { seedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/**
 * What people type out of habit, and what they see when something is off: -h everywhere,
 * `pay version`, the ls/rm aliases, "did you mean" for a mistyped command or flag (off a
 * terminal too, exit 2), a refused key explained, and output that cannot be written.
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const pay = (...args: string[]) => runCli(args, { env: sandbox.env })

describe.concurrent('habits', () => {
  test('links ls, links rm, subs ls and subs rm are the list and delete commands', async () => {
    const link = await seedLink(sandbox)
    const [ls, lsJson, rm, subsLs] = await Promise.all([
      pay('links', 'ls', '-q'),
      pay('links', 'list', '--json'),
      pay('links', 'rm', link._id, '--dry-run'),
      pay('subs', 'ls', '--json'),
    ])
    expect(ls.code).toBe(0)
    expect(ls.stdout.split('\n')).toContain(link._id)
    expect(JSON.parse(lsJson.stdout).map((l: { _id: string }) => l._id)).toEqual(ls.stdout.trim().split('\n'))
    expect(rm).toMatchObject({ code: 0, stdout: '' })
    expect(rm.stderr).toContain('Dry run: nothing was changed.\n')
    expect(subsLs).toMatchObject({ code: 0, stdout: '[]\n' })
    expect((await pay('subs', 'rm', '0123456789abcdef01234567', '--yes')).code).toBe(5)
  })

  test('a mistyped command: pay’s own error naming the likely one, exit 2, also with --json', async () => {
    const [lst, lnks, nothing] = await Promise.all([
      runCli(['links', 'lst']),
      runCli(['lnks', 'list', '--json']),
      runCli(['frobnicate']),
    ])
    expect(lst).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr:
        'Error: "links lst" is not a pay command. Did you mean "links list"?\n' +
        'See `pay links --help` for the commands there are.\n',
    })
    expect(lnks).toMatchObject({ code: 2, stdout: '' })
    expect(JSON.parse(lnks.stderr)).toEqual({
      error: {
        status: null,
        kind: 'usage',
        exit_code: 2,
        message: '"lnks list" is not a pay command. Did you mean "links list"?',
        hint: 'See `pay --help` for the commands there are.',
      },
    })
    expect(nothing).toMatchObject({
      code: 2,
      stderr: 'Error: "frobnicate" is not a pay command.\nSee `pay --help` for the commands there are.\n',
    })
  })

  test('a mistyped flag: the flag it most likely meant, exit 2, nothing sent', async () => {
    const result = await pay('links', 'create', '--ammount', '3', '--email', 'a@b.co')
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'Error: Nonexistent flag: --ammount\nDid you mean --amount? See `pay links create --help`.\n',
    })
  })

  test('-p is taken by every command; a one-letter flag a command does not take is never taken for a typo of a long one', async () => {
    const profile = await pay('-p', 'sandbox', 'sandbox', 'packages', '-q')
    // As every -p sandbox command does, it says which key it sends and what it leaves aside.
    const key = sandbox.env.PAY_API_KEY ?? ''
    expect([profile.code, profile.stderr, profile.stdout.split('\n').length]).toEqual([
      0,
      `Using the API key from PAY_API_KEY (${key.slice(0, 4)}…${key.slice(-4)}) instead of profile "sandbox"'s.\n` +
        `PAY_BASE_URL (${sandbox.baseUrl}) is left aside for the sandbox profile, which talks only to your own sandbox (--base-url points it at one on another port).\n`,
      4,
    ])
    const unknown = await pay('links', 'list', '-x')
    expect(unknown.stderr).toBe('Error: Nonexistent flag: -x\nSee `pay links list --help`.\n')
    const notHere = await pay('links', 'get', 'x', '-y')
    expect(notHere.stderr).toBe('Error: Nonexistent flag: -y\nSee `pay links get --help`.\n')
  })
})

describe.concurrent('a refused key says whose it was, where it went, and what to do', () => {
  let service: FakeServer
  beforeAll(async () => {
    service = await startKeyServer(['sk_live_the_right_one'])
  })
  afterAll(() => service.close())

  test('a stored profile: run pay login -p NAME', async () => {
    const dir = freshConfigDir()
    writeConfig(dir, {
      current: 'live',
      profiles: { live: { api_key: 'sk_live_revoked_one', base_url: service.baseUrl } },
    })
    const result = await runCli(['links', 'list'], { env: { PAY_CONFIG_DIR: dir } })
    expect(result).toEqual({
      code: 4,
      signal: null,
      stdout: '',
      stderr:
        `Error: ${service.baseUrl} did not accept the key of profile "live" (401: Unauthenticated.)\n` +
        'Run `pay login -p live` to store a key this service accepts.\n',
    })
  })

  test('the sandbox profile, served by a sandbox started with its own --key values', async () => {
    const other = await startTestSandbox({ keys: ['sk_test_shop_only'] })
    try {
      // Its own PAY_SANDBOX_DIR: pay trusts only the sandbox of its directory.
      const result = await runCli(['-p', 'sandbox', 'links', 'list'], {
        env: { PAY_SANDBOX_PORT: new URL(other.baseUrl).port, PAY_SANDBOX_DIR: other.dir },
      })
      expect(result).toMatchObject({
        code: 4,
        stdout: '',
        stderr:
          `Error: ${other.baseUrl} did not accept the key of profile "sandbox" (401: Unauthenticated.)\n` +
          'The sandbox running there was started with its own keys (--key, --key-file or PAY_SANDBOX_KEYS): ' +
          "send one of them with PAY_API_KEY, or restart it without any to serve its directory's own key.\n",
      })
    } finally {
      await other.close()
    }
  })
})

describe('output that cannot be written', () => {
  test.each([
    [
      '--json',
      `${JSON.stringify({ error: { status: null, kind: 'general', exit_code: 1, message: 'could not write the output: no space left on device (ENOSPC).' } })}\n`,
    ],
    ['--columns=_id', 'Error: could not write the output: no space left on device (ENOSPC).\n'],
  ])(
    'links list %s > /dev/full: one clean line on stderr (JSON under --json), exit 1, no stack trace',
    async (flag, said) => {
      await seedLink(sandbox)
      const full = fs.openSync('/dev/full', 'w')
      const child = spawn(process.execPath, [BIN, 'links', 'list', flag], {
        env: cleanEnv(sandbox.env),
        stdio: ['ignore', full, 'pipe'],
      })
      let stderr = ''
      child.stderr?.setEncoding('utf8').on('data', (chunk) => {
        stderr += chunk
      })
      const code = await new Promise((resolve) => child.on('close', resolve))
      fs.closeSync(full)
      expect({ code, stderr }).toEqual({ code: 1, stderr: said })
    },
  )
})
