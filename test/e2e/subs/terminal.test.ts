import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../helpers/cli.js'
import { startProxy, type TestProxy } from '../../helpers/proxy.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { seedSubscriptions, serverStatuses } from '../../helpers/subs.js'
import { closeTerminals, startTerminal } from '../../helpers/terminal.js'

/**
 * `pay subs` in a real terminal (tmux): the confirmation of `subs cancel` with what each
 * subscription is, answering no and yes, the progress bar, Ctrl-C from the keyboard, and the
 * tables of `subs get` and `subs list`.
 */

let sandbox: TestSandbox
let slow: TestProxy
const dir = tempDir('pay-subs-terminal-')

beforeAll(async () => {
  sandbox = await startTestSandbox()
  slow = await startProxy(sandbox.baseUrl, () => ({ delayMs: 40 }))
})
afterEach(closeTerminals)
afterAll(async () => {
  await slow?.close()
  await sandbox?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** One subscription per seeded package (Starter, Business, Monthly), with its own e-mail. */
async function threeSubscriptions(tag: string) {
  const emails = ['ann', 'bob', 'cy'].map((name) => `${name}.${tag}@example.com`)
  const ids = await Promise.all(
    emails.map(async (email, i) => {
      const answer = await sandbox.request('POST', '/subscriptions', {
        package_id: sandbox.packageIds[i],
        email,
      })
      expect(answer.status).toBe(200)
      return answer.body.data._id as string
    }),
  )
  return { ids, emails }
}

const statusesOf = async (ids: string[]) => {
  const statuses = await serverStatuses(sandbox)
  return ids.map((id) => statuses.get(id))
}

describe('subs cancel ID1 ID2 ID3', () => {
  /** The plan and question as they must appear before anything is cancelled. */
  /** One line of the plan, or two when it is wider than the 80-column terminal: wrapped at the space before the status, under the text after the id. */
  const item = (id: string, what: string) =>
    `  ${id}  ${what}  [created]`.length <= 80
      ? [`  ${id}  ${what}  [created]`]
      : [`  ${id}  ${what}`, `${' '.repeat(id.length + 4)}[created]`]
  const planLines = (ids: string[], emails: string[]) => [
    'About to cancel 3 subscriptions:',
    '  profile:  (environment)',
    `  base URL: ${sandbox.baseUrl}`,
    ...item(ids[0], `${emails[0]} · Starter · 120.00 USD`),
    ...item(ids[1], `${emails[1]} · Business · 1250.50 USD`),
    ...item(ids[2], `${emails[2]} · Monthly · 15.00 USD`),
    '  looked up 3: 3 to cancel, 0 already cancelled, 0 not found',
    "  total:    1385.50 USD (the packages' prices)",
    '? Cancel 3 subscriptions? (y/N)',
  ]

  test('shows count, profile, base URL and what each one is, asks; "n": exit 130, nothing cancelled', async () => {
    const { ids, emails } = await threeSubscriptions('no')
    const term = await startTerminal(['subs', 'cancel', ...ids], { env: sandbox.env })
    const screen = await term.waitFor('Cancel 3 subscriptions?')
    expect(screen.split('\n').slice(0, planLines(ids, emails).length)).toEqual(planLines(ids, emails))
    await term.type('n', 'Enter')
    expect(await term.exitCode()).toBe(130)
    const after = await term.screen()
    expect(after.split('\n').slice(planLines(ids, emails).length - 1)).toEqual([
      '✔ Cancel 3 subscriptions? No',
      'Cancelled.',
      'Nothing was cancelled.',
      '',
    ])
    expect(await statusesOf(ids)).toEqual(['created', 'created', 'created'])
  })

  test('"y": cancelled, the progress bar drawn on stderr, the summary and the results table shown', async () => {
    const { ids, emails } = await threeSubscriptions('yes')
    const term = await startTerminal(['subs', 'cancel', ...ids], { env: sandbox.env })
    const screen = await term.waitFor('Cancel 3 subscriptions?')
    expect(screen.split('\n').slice(0, planLines(ids, emails).length)).toEqual(planLines(ids, emails))
    await term.type('y', 'Enter')
    expect(await term.exitCode()).toBe(0)
    const raw = (await term.rawOutput()).toString('utf8')
    // The bar's final state, then the line cleared before the results.
    expect(raw).toContain(`\r\u001b[2K[${'█'.repeat(20)}] 3/3  cancelled 3\r\u001b[2K`)
    const lines = (await term.screen()).split('\n')
    const summary = lines.indexOf('Of 3 subscriptions: 3 cancelled, 0 already cancelled, 0 not cancelled.')
    expect(summary).toBeGreaterThan(8)
    const table = lines.slice(lines.indexOf('✔ Cancel 3 subscriptions? Yes') + 1, summary)
    expect(table.map((line) => line.trimEnd().split(/\s{2,}/))).toEqual([
      ['ID', 'RESULT', 'ERROR'],
      [ids[0], 'cancelled'],
      [ids[1], 'cancelled'],
      [ids[2], 'cancelled'],
    ])
    expect(await statusesOf(ids)).toEqual(['cancel', 'cancel', 'cancel'])
  })

  test('Ctrl-C during a long run: exit 130, the done ones cancelled, the rest untouched and listed as not done', async () => {
    const ids = await seedSubscriptions(sandbox, 200, { prefix: 'ctrlc' })
    const file = path.join(dir, 'ids.txt')
    fs.writeFileSync(file, ids.join('\n'))
    const report = path.join(dir, 'ctrlc.csv')
    const term = await startTerminal(['subs', 'cancel', '--from-file', file, '--report', report, '--json'], {
      env: { ...sandbox.env, PAY_BASE_URL: slow.baseUrl },
    })
    await term.waitFor('Cancel 200 subscriptions?')
    await term.type('y', 'Enter')
    await term.waitFor(/\] \d+\/200 {2}cancelled \d+/)
    await term.press('C-c')
    expect(await term.exitCode({ timeoutMs: 20_000 })).toBe(130)
    await slow.idle()
    const raw = (await term.rawOutput()).toString('utf8')
    // Wrapped at a space at 80 columns.
    const stopping =
      'Stopping: no new cancellations; waiting for those in flight (Ctrl-C again to\r\nquit now).'
    expect(raw).toContain(stopping)
    const summary =
      /Of\s+200\s+subscriptions:\s+(\d+)\s+cancelled,\s+0\s+already\s+cancelled,\s+(\d+)\s+not\s+cancelled\s+\(\d+\s+not\s+done\)\./.exec(
        await term.screen(),
      )
    expect(summary).not.toBeNull()
    const [done, notDone] = [Number(summary![1]), Number(summary![2])]
    expect(done + notDone).toBe(200)
    expect(notDone).toBeGreaterThan(0)
    const rows = fs.readFileSync(report, 'utf8').trimEnd().split('\n').slice(1) // the header
    expect(rows.map((row) => row.split(',')[0])).toEqual(ids)
    const statuses = await serverStatuses(sandbox)
    const cancelled = ids.filter((id) => statuses.get(id) === 'cancel')
    expect(cancelled).toHaveLength(done)
    for (const row of rows) {
      const [id, ok, status] = row.split(',')
      expect([id, ok, status]).toEqual(
        cancelled.includes(id) ? [id, 'true', 'cancelled'] : [id, 'false', 'not_done'],
      )
    }
  })
})

describe('tables on a terminal', () => {
  test('subs get and subs list show the embedded package: name, amount with currency, frequency', async () => {
    const { ids, emails } = await threeSubscriptions('table')
    const [get, list] = await Promise.all([
      startTerminal(['subs', 'get', ids[1]], { env: sandbox.env }),
      startTerminal(['subs', 'list', '--all', '--email', emails[2]], { env: sandbox.env }),
    ])
    expect(await get.exitCode()).toBe(0)
    const record = new Map(
      (await get.screen())
        .trimEnd()
        .split('\n')
        .map((line) => line.trimEnd().split(/\s{2,}/) as [string, string]),
    )
    expect(record.get('_id')).toBe(ids[1])
    expect(record.get('status')).toBe('created')
    expect(record.get('email')).toBe(emails[1])
    expect(record.get('package.name')).toBe('Business')
    expect(record.get('package.amount')).toBe('1250.50 USD')
    expect(record.get('package.frequency')).toBe('yearly')

    expect(await list.exitCode()).toBe(0)
    const rows = (await list.screen())
      .trimEnd()
      .split('\n')
      .map((line) => line.trimEnd().split(/\s{2,}/))
    // 80 columns: the frequency and the date give way; ids and amounts stay whole.
    expect(rows[0]).toEqual(['ID', 'STATUS', 'EMAIL', 'PACKAGE', 'AMOUNT'])
    expect(rows.slice(1, -1)).toEqual([[ids[2], 'created', emails[2], 'Monthly', '15.00 USD']])
    expect(rows.at(-1)?.[0]).toMatch(/^Searched \d+ subscriptions on \d+ pages\.$/)
  })
})
