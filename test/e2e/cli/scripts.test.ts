import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BIN, cleanEnv, runCli } from '../../helpers/cli.js'
import { seedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/**
 * What scripts and their authors trip on: a stderr note that cannot
 * be written, flags that contradict each other, `pay -v`, and the help text at 80 columns.
 */

let sandbox: TestSandbox
let ids: string[]

beforeAll(async () => {
  sandbox = await startTestSandbox()
  ids = []
  for (let i = 0; i < 3; i += 1) ids.push((await seedLink(sandbox, { title: `Note ${i}` }))._id)
  ids.reverse()
})
afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

const pay = (...args: string[]) => runCli(args, { env: sandbox.env })

/** Runs pay with stdout collected and stderr going to `stderr` (a file descriptor, or a closed pipe). */
function payWithStderr(
  args: string[],
  stderr: number | 'closed',
): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv(sandbox.env),
    stdio: ['ignore', 'pipe', stderr === 'closed' ? 'pipe' : stderr],
  })
  // Nobody reads stderr: every note pay writes there meets a closed pipe (EPIPE).
  if (stderr === 'closed') child.stderr?.destroy()
  let stdout = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk
  })
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })))
}

describe('a note on stderr that cannot be written is dropped, never an error', () => {
  // `--limit 1` of three links writes "Showing the first payment link: …" on stderr after the data.
  const ARGS = ['links', 'list', '--limit', '1', '--columns', '_id']

  test('2>/dev/full: all the data on stdout, exit 0', async () => {
    const full = fs.openSync('/dev/full', 'w')
    try {
      expect(await payWithStderr(ARGS, full)).toEqual({ code: 0, stdout: `${ids[0]}\n` })
    } finally {
      fs.closeSync(full)
    }
  })

  test('stderr a pipe nobody reads (`2>&1 | head -1`): exit 0', async () => {
    expect(await payWithStderr(ARGS, 'closed')).toEqual({ code: 0, stdout: `${ids[0]}\n` })
  })

  test('an error keeps its own exit code when it cannot be said', async () => {
    const full = fs.openSync('/dev/full', 'w')
    try {
      expect(await payWithStderr(['links', 'get', '0123456789abcdef01234567'], full)).toEqual({
        code: 5,
        stdout: '',
      })
    } finally {
      fs.closeSync(full)
    }
  })
})

describe('flags that contradict each other', () => {
  test.each([
    [['links', 'list', '--paid', '--no-paid'], 'paid'],
    [['links', 'list', '--no-paid', '--paid'], 'paid'],
    [['links', 'create', '--send-email', '--no-send-email'], 'send-email'],
    [['links', 'open', '0123456789abcdef01234567', '--browser', '--no-browser'], 'browser'],
  ])('%j: a usage error, nothing sent', async (args, flag) => {
    const result = await pay(...args)
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `Error: --${flag} and --no-${flag} cannot be given together.\n`,
    })
  })

  test('one of them alone is as before', async () => {
    const result = await pay('links', 'list', '--no-paid', '-q')
    expect(result).toMatchObject({ code: 0, stdout: `${ids.join('\n')}\n` })
  })
})

describe('pay -v, pay --help', () => {
  test('pay --help at 80 columns: no line runs past the edge, nothing cut mid-word', async (context) => {
    const term = await startTestTerminal(context, ['--help'])
    expect(await term.exitCode()).toBe(0)
    const rows = await term.rows()
    expect((await term.screen()).trimEnd().split('\n')).toEqual(rows)
    expect(rows[0]).toBe('Payment links, subscriptions and tokens from the terminal.')
    expect(rows).toContain('DESCRIPTION')
  })
})
