import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { startCli } from '../../helpers/child.js'
import { runCli, tempDir } from '../../helpers/cli.js'
import { seedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTerminal } from '../../helpers/terminal.js'

/**
 * `pay links wait ID` end to end: paid while it waits, already paid, timeout (exit 8),
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

/** The requests for link `id` the sandbox has answered. */
const looks = (id: string) =>
  sandbox.sandbox.requests().filter((request) => request.path.startsWith(`/payment-links/${id}`)).length

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

  test('a pending payment, then a failed one, leave it waiting (the link unpaid); paid after: exit 0, nothing more said', async () => {
    const link = await seedLink(sandbox)
    const run = startCli(['links', 'wait', link._id], { env: sandbox.env })
    await until(() => run.stderr.includes('Waiting for'), 'the waiting line')
    for (const outcome of ['pending', 'fail']) {
      expect((await sandbox.a.call('POST', `/_sandbox/payment-links/${link._id}/${outcome}`)).status).toBe(
        200,
      )
      // Two more looks at the link after the outcome: the wait read it unpaid, and went on.
      const seen = looks(link._id)
      await until(() => looks(link._id) >= seen + 2, `two looks after ${outcome}`)
      expect(run.child.exitCode).toBe(null)
    }
    await sandbox.markPaid(link._id)
    const result = await run.done
    expect(result).toMatchObject({ code: 0, stderr: waiting(link._id) })
    expect(result.stdout).toContain('paid\ttrue\n')
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
    // Three looks at the link, the pauses between them past: a line redrawn would be by then.
    await until(() => looks(link._id) >= 3, 'three looks at the link')
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
