import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { DURATION_FORMS } from '../../../src/sandbox/duration.js'
import { startCli } from '../../helpers/child.js'
import { runCli, tempDir } from '../../helpers/cli.js'
import { json, reset, runPay, serve } from '../../helpers/fault-server.js'
import { seedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTerminal } from '../../helpers/terminal.js'

/**
 * `pay links wait ID` end to end (issue 22): paid while it waits, already paid, timeout (exit 8),
 * unknown id (exit 5), a refused key (exit 4), a service failing for a while, Ctrl-C (exit 130),
 * in a real terminal (one line redrawn) and with NO_COLOR or in accessible mode (plain lines,
 * none redrawn).
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox?.close())
afterEach(closeTerminals)

const pay = (args: string[]) => runCli(args, { env: sandbox.env })
const waiting = (id: string, limit = '10m') =>
  `Waiting for payment link ${id} to be paid (at most ${limit}).\n`

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 20_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('links wait', () => {
  test('paid while it waits: exit 0, the link printed as links get prints it', async () => {
    const link = await seedLink(sandbox)
    const run = startCli(['links', 'wait', link._id], { env: sandbox.env })
    await until(() => run.stderr.includes('Waiting for'), 'the waiting line')
    await sandbox.markPaid(link._id)
    const result = await run.done
    expect(result.code).toBe(0)
    expect(result.stderr).toBe(waiting(link._id))
    const got = await pay(['links', 'get', link._id])
    expect(result.stdout).toBe(got.stdout)
    expect(result.stdout).toContain('paid\ttrue\n')
  })

  test('already paid: exit 0 at once, nothing said about waiting; --json prints the link', async () => {
    const link = await seedLink(sandbox)
    await sandbox.markPaid(link._id)
    const result = await pay(['links', 'wait', link._id, '--json'])
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(result.stdout)).toEqual(
      (await sandbox.request('GET', `/payment-links/${link._id}`)).body.data,
    )
  })

  test('--timeout runs out: exit 8, said plainly and as JSON', async () => {
    const link = await seedLink(sandbox)
    const [plain, asJson] = await Promise.all([
      pay(['links', 'wait', link._id, '--timeout', '2s']),
      pay(['links', 'wait', link._id, '--timeout', 'PT1S', '--json']),
    ])
    expect(plain).toMatchObject({
      code: 8,
      stdout: '',
      stderr: `${waiting(link._id, '2s')}Error: Still waiting for payment link ${link._id} to be paid after 2s.\nWait longer with --timeout DURATION (0: no limit).\n`,
    })
    expect(asJson).toMatchObject({ code: 8, stdout: '' })
    expect(JSON.parse(asJson.stderr)).toEqual({
      error: {
        status: null,
        kind: 'wait_timeout',
        exit_code: 8,
        message: `Still waiting for payment link ${link._id} to be paid after 1s.`,
        hint: 'Wait longer with --timeout DURATION (0: no limit).',
      },
    })
  })

  test('an unknown id: exit 5; a --timeout or --until that means nothing: exit 2', async () => {
    const [unknown, badTimeout, badUntil] = await Promise.all([
      pay(['links', 'wait', 'ffff00000000000000000042']),
      pay(['links', 'wait', 'ffff00000000000000000042', '--timeout', '10']),
      pay(['links', 'wait', 'ffff00000000000000000042', '--until', 'expired']),
    ])
    expect(unknown).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Payment link not found.\n' })
    expect(badTimeout).toMatchObject({
      code: 2,
      stderr: `Error: --timeout: Expected a duration, ${DURATION_FORMS}; received: 10\nSee \`pay links wait --help\`.\n`,
    })
    expect(badUntil.code).toBe(2)
    expect(badUntil.stderr).toContain('Expected --until=expired to be one of: paid')
  })

  test('Ctrl-C (SIGINT): exit 130 at once', async () => {
    const link = await seedLink(sandbox)
    const run = startCli(['links', 'wait', link._id, '--timeout', '0'], { env: sandbox.env })
    await until(() => run.stderr.includes('Waiting for'), 'the waiting line')
    run.child.kill('SIGINT')
    const result = await run.done
    expect(result).toMatchObject({
      code: 130,
      stdout: '',
      stderr: `Waiting for payment link ${link._id} to be paid.\nCancelled.\n`,
    })
  })

  test('on the built-in sandbox run in the command, paid by `pay sandbox pay` from another process', async () => {
    const env = { PAY_SANDBOX_DIR: tempDir('pay-wait-local-'), PAY_SANDBOX_PORT: '1' }
    const made = await runCli(
      [
        '-p',
        'sandbox',
        'links',
        'create',
        '--email',
        'a@b.co',
        '--currency',
        'EUR',
        '--amount',
        '5',
        '--title',
        'T',
        '-q',
      ],
      { env },
    )
    const id = made.stdout.trim()
    const run = startCli(['-p', 'sandbox', 'links', 'wait', id, '--columns', '_id,paid'], { env })
    await until(() => run.stderr.includes('Waiting for'), 'the waiting line')
    expect((await runCli(['sandbox', 'pay', id, '-q'], { env })).code).toBe(0)
    expect(await run.done).toMatchObject({ code: 0, stdout: `${id}\ttrue\n` })
  })
})

describe('links wait against a failing service', () => {
  const PAID = { success: true, data: { _id: 'L1', paid: true, status: 'Active' }, errors: null }
  const UNPAID = { success: true, data: { _id: 'L1', paid: false, status: 'Active' }, errors: null }

  test('5xx and reset connections keep it waiting, said once each way; then paid: exit 0', async (context) => {
    const fake = await serve(
      context,
      json(200, UNPAID),
      // One look: three attempts (two retries), all 503.
      json(503, { message: 'Down for maintenance' }),
      json(503, { message: 'Down for maintenance' }),
      json(503, { message: 'Down for maintenance' }),
      reset(),
      reset(),
      reset(),
      json(200, UNPAID),
      json(200, PAID),
    )
    const result = await runPay(['links', 'wait', 'L1', '--columns', 'paid'], fake.baseUrl)
    expect(result).toMatchObject({ code: 0, stdout: 'true\n' })
    expect(result.stderr).toBe(
      [
        'Waiting for payment link L1 to be paid (at most 10m).',
        'The service does not answer (Down for maintenance); still waiting.',
        'The service answers again; still waiting.',
        '',
      ].join('\n'),
    )
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(Array(9).fill('GET /payment-links/L1'))
  })

  test('a refused key stops it: exit 4', async (context) => {
    const fake = await serve(context, json(200, UNPAID), json(401, { message: 'Unauthenticated.' }))
    const result = await runPay(['links', 'wait', 'L1'], fake.baseUrl)
    expect(result.code).toBe(4)
    expect(result.stderr).toContain('did not accept the key in PAY_API_KEY (401: Unauthenticated.)')
    expect(fake.requests).toHaveLength(2)
  })
})

describe('links wait on a terminal', () => {
  test('one line, redrawn in place; Ctrl-C clears it and exits 130', async () => {
    const link = await seedLink(sandbox)
    const term = await startTerminal(['links', 'wait', link._id], { env: sandbox.env })
    const screen = await term.waitFor(/· [2-9]s · 9m 5\ds left/)
    expect(screen.trimEnd().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^Waiting for link ${link._id} to be paid · [2-9]s · 9m 5\\ds left$`)),
    ])
    await term.press('C-c')
    expect(await term.exitCode()).toBe(130)
    const raw = (await term.rawOutput()).toString('utf8')
    // Redrawn: each drawing starts with a carriage return and erases the line; never a new line.
    expect(raw.split('\r\u001b[2K').length).toBeGreaterThan(3)
    // The line (and the ^C the terminal echoed after it) is gone: only the word for what happened stays.
    expect(await term.screen()).toBe('Cancelled.\n')
  })

  test.each([
    ['NO_COLOR', { NO_COLOR: '1' }],
    ['PAY_ACCESSIBLE', { PAY_ACCESSIBLE: '1' }],
    ['ACCESSIBLE', { ACCESSIBLE: 'yes' }],
  ])('with %s: plain lines, none redrawn; paid: the link as a table', async (_name, extra) => {
    const link = await seedLink(sandbox)
    const term = await startTerminal(['links', 'wait', link._id], { env: { ...sandbox.env, ...extra } })
    await term.waitFor('Waiting for payment link')
    await new Promise((resolve) => setTimeout(resolve, 2500))
    await sandbox.markPaid(link._id)
    expect(await term.exitCode()).toBe(0)
    const raw = (await term.rawOutput()).toString('utf8')
    expect(raw).not.toContain('\u001b[2K')
    expect(raw.replace(/\r\n/g, '\n').split('\n')[0]).toBe(
      `Waiting for payment link ${link._id} to be paid (at most 10m).`,
    )
    // Colour is on unless NO_COLOR: it never carries the meaning alone, the words are there.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing colour codes is the point
    expect(raw.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/paid\s+true/)
  })
})
