import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { BIN } from '../../helpers/cli.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { seedSubscriptions, serverStatuses } from '../../helpers/subs.js'
import { closeTerminals, startTerminal } from '../../helpers/terminal.js'

/**
 * Confirmations when stdin carries the ids (`cat ids.txt | pay subs cancel -`) with a person at
 * the terminal: asked on the terminal itself, as gh does; and what `subs delete` (which cannot be
 * undone) shows before it asks.
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterEach(closeTerminals)
afterAll(() => sandbox.close())

/** `printf ids | pay ...args` in a terminal: stdin is the pipe, stdout and stderr the terminal. */
const piped = (ids: string[], args: string[]) =>
  startTerminal([], {
    env: sandbox.env,
    command: ['/bin/sh', '-c', `printf '%s\\n' ${ids.join(' ')} | "$0" "$@"`, process.execPath, BIN, ...args],
  })

describe('ids piped in at a terminal', () => {
  test('subs cancel - asks on the terminal; "y" cancels them', async () => {
    const ids = await seedSubscriptions(sandbox, 2, { prefix: 'piped' })
    const term = await piped(ids, ['subs', 'cancel', '-'])
    await term.waitFor('Cancel 2 subscriptions? (y/N)')
    await term.type('y', 'Enter')
    expect(await term.exitCode()).toBe(0)
    expect(await term.screen()).toContain(
      'Of 2 subscriptions: 2 cancelled, 0 already cancelled, 0 not cancelled.',
    )
    const statuses = await serverStatuses(sandbox)
    expect(ids.map((id) => statuses.get(id))).toEqual(['cancel', 'cancel'])
  })

  test('subs cancel - with "n": exit 130, nothing cancelled', async () => {
    const ids = await seedSubscriptions(sandbox, 1, { prefix: 'piped-no' })
    const term = await piped(ids, ['subs', 'cancel', '-'])
    await term.waitFor('Cancel 1 subscription? (y/N)')
    await term.type('n', 'Enter')
    expect(await term.exitCode()).toBe(130)
    expect(await term.screen()).toMatch(/^Cancelled\.\nNothing was cancelled\.$/m)
    expect((await serverStatuses(sandbox)).get(ids[0])).toBe('created')
  })
})

describe('subs delete on a terminal', () => {
  test('shows what each subscription is, says it cannot be undone, and leaves out one that does not exist', async () => {
    const [id] = await seedSubscriptions(sandbox, 1, { prefix: 'delete' })
    const gone = '0123456789abcdef01234567'
    const term = await startTerminal(['subs', 'rm', id, gone], { env: sandbox.env })
    const screen = await term.waitFor('Delete 1 subscription? (y/N)')
    expect(screen).toContain(
      `Warning: Not found, left out: ${gone}.\n` +
        'About to delete 1 subscription:\n' +
        '  profile:  (environment)\n' +
        `  base URL: ${sandbox.baseUrl}\n` +
        // 81 columns: wrapped at a space, under the text after the id, never mid-word.
        `  ${id}  delete0@example.com · Starter · 120.00 USD\n` +
        `${' '.repeat(28)}[created]\n` +
        '  looked up 2: 1 to delete, 1 not found\n' +
        "  total:    120.00 USD (the packages' prices)\n" +
        'This cannot be undone.\n',
    )
    await term.type('y', 'Enter')
    expect(await term.exitCode()).toBe(7)
    expect(await term.screen()).toMatch(new RegExp(`^${gone} +not_found +Subscription not found\\.$`, 'm'))
    expect((await serverStatuses(sandbox)).has(id)).toBe(false)
  })
})
