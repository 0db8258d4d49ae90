import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { seedSubscriptions, serverStatuses } from '../../helpers/subs.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/**
 * Accessible mode (PAY_ACCESSIBLE=1, or ACCESSIBLE=1) in a real terminal, as a screen reader
 * user meets it: progress as plain lines, never a line redrawn in place; questions that say
 * their answers in words; paid or not in words (colour only helps).
 */

let sandbox: TestSandbox

beforeAll(async () => {
  // Its first business is its directory's own, the one `-p sandbox` sends there.
  sandbox = await startTestSandbox({ ownKey: true })
})
afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

/** Lines as the terminal received them (pay's \n arrive as \r\n through the tty). */
const rawLines = (raw: Buffer) => raw.toString('utf8').split('\r\n')

describe.concurrent('accessible mode', () => {
  test.for(['PAY_ACCESSIBLE', 'ACCESSIBLE'])(
    '%s=1: the progress of subs cancel is a plain line at each tenth, never redrawn',
    async (variable, context) => {
      const ids = await seedSubscriptions(sandbox, 20, { prefix: `${variable.toLowerCase()}-` })
      const term = await startTestTerminal(context, ['subs', 'cancel', ...ids, '--yes'], {
        env: { ...sandbox.env, [variable]: '1' },
      })
      expect(await term.exitCode()).toBe(0)
      const raw = await term.rawOutput()
      // Nothing is drawn over: no carriage return but those of line ends, no erase-line.
      const text = raw.toString('utf8').replace(/\r\n/g, '\n')
      expect(text).not.toContain('\r')
      expect(text).not.toContain('\u001b[2K')
      const progress = rawLines(raw).filter((line) => line.startsWith('Progress: '))
      for (let done = 2; done <= 20; done += 2) {
        expect(progress).toContain(`Progress: ${done} of 20 (${done * 5}%): cancelled ${done}.`)
      }
      for (const line of progress) expect(line).toMatch(/^Progress: \d+ of 20 \(\d+%\): cancelled \d+\.$/)
      expect(progress.at(-1)).toBe('Progress: 20 of 20 (100%): cancelled 20.')
      const statuses = await serverStatuses(sandbox)
      expect(ids.map((id) => statuses.get(id))).toEqual(ids.map(() => 'cancel'))
    },
  )

  test('without it: the usual bar, redrawn in place', async (context) => {
    const ids = await seedSubscriptions(sandbox, 3, { prefix: 'bar-' })
    const term = await startTestTerminal(context, ['subs', 'cancel', ...ids, '--yes'], { env: sandbox.env })
    expect(await term.exitCode()).toBe(0)
    const raw = (await term.rawOutput()).toString('utf8')
    expect(raw).toContain('\r\u001b[2K[████████████████████] 3/3  cancelled 3')
    expect(raw).not.toContain('Progress: ')
  })

  test('the confirmation says its answers in words; "yes" typed out is a yes', async (context) => {
    const ids = await seedSubscriptions(sandbox, 2, { prefix: 'words-' })
    const term = await startTestTerminal(context, ['subs', 'cancel', ...ids], {
      env: { ...sandbox.env, PAY_ACCESSIBLE: '1' },
    })
    await term.waitFor('Cancel 2 subscriptions?')
    expect(await term.screen()).toMatch(/^\? Cancel 2 subscriptions\? \(type yes or no; Enter means no\)/m)
    expect(await term.screen()).not.toContain('y/N')
    await term.type('yes', 'Enter')
    expect(await term.exitCode()).toBe(0)
    const statuses = await serverStatuses(sandbox)
    expect(ids.map((id) => statuses.get(id))).toEqual(['cancel', 'cancel'])
  })

  test('the package question lists the choices as numbered lines; a number is the answer', async (context) => {
    const term = await startTestTerminal(
      context,
      ['subs', 'create', '-p', 'sandbox', '--email', 'reader@example.com', '--json'],
      { env: { PAY_SANDBOX_DIR: sandbox.dir, PAY_ACCESSIBLE: '1' } },
    )
    await term.waitFor('(type a number from 1 to 3, or the id)')
    const [starter, business, monthly] = sandbox.packageIds
    expect((await term.screen()).split('\n').slice(0, 5)).toEqual([
      'Package id, one of:',
      `  1. Starter · 120.00 USD yearly · ${starter}`,
      `  2. Business · 1250.50 USD yearly · ${business}`,
      `  3. Monthly · 15.00 USD monthly · ${monthly}`,
      '? Package id (type a number from 1 to 3, or the id)',
    ])
    await term.type('4', 'Enter')
    await term.waitFor('Type a number from 1 to 3, or one of the ids listed.')
    await term.press('C-u')
    await term.type('2', 'Enter')
    expect(await term.exitCode()).toBe(0)
    expect(await term.screen()).toContain(`"package_id": "${business}"`)
  })
})
