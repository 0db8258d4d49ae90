import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { startCli } from '../../helpers/child.js'
import { runCli, tempDir } from '../../helpers/cli.js'
import { startFakeServer } from '../../helpers/fake-server.js'
import { journalEntries, journalIn } from '../../helpers/journal.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTerminal } from '../../helpers/terminal.js'

/**
 * The journal: every change pay sends, intent before the request and outcome after, in a 0600
 * JSON lines file; never the key or a body. `pay history` shows it, newest first.
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
afterEach(closeTerminals)

const KEY = 'sk_live_journal_canary_7d1e'

describe('the journal', () => {
  test('kill -9 during a change leaves its intent: history shows it as unknown', async () => {
    const dir = tempDir('pay-journal-kill-')
    // A service that never answers the DELETE.
    const hanging = await startFakeServer(() => {})
    try {
      const env = { PAY_API_KEY: KEY, PAY_BASE_URL: hanging.baseUrl, PAY_JOURNAL_FILE: journalIn(dir) }
      const run = startCli(['links', 'delete', 'lnk_9', '--yes'], { env })
      while (hanging.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
      run.child.kill('SIGKILL')
      await run.done
      const all = journalEntries(journalIn(dir))
      expect(all.map((e) => [e.phase, e.method, e.id])).toEqual([['intent', 'DELETE', 'lnk_9']])
      const history = await runCli(['history'], { env })
      expect(history.stdout).toMatch(/^\S+Z\tdelete link\tlnk_9\tunknown\t\(environment\)\t\S+\n$/)
    } finally {
      await hanging.close()
    }
  })

  test('at 80 columns, history shows what kind of change each was', async () => {
    const dir = tempDir('pay-journal-80-')
    const env = { ...sandbox.env, PAY_JOURNAL_FILE: journalIn(dir) }
    const created = await runCli(
      [
        'links',
        'create',
        '--email',
        'k@example.com',
        '--currency',
        'EUR',
        '--amount',
        '2',
        '--title',
        'Kind',
        '-q',
      ],
      { env },
    )
    const id = created.stdout.trim()
    await runCli(['links', 'delete', id, '--yes'], { env })
    const term = await startTerminal(['history'], { env, width: 80 })
    expect(await term.exitCode()).toBe(0)
    const lines = (await term.screen()).trimEnd().split('\n')
    // The time to the minute leaves room for the profile; the user gives way.
    expect(lines[0].split(/\s{2,}/)).toEqual(['AT', 'KIND', 'ID', 'OUTCOME', 'PROFILE'])
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/).slice(1))).toEqual([
      ['delete link', id, 'done 200', '(environment)'],
      ['create link', id, 'done 200', '(environment)'],
    ])
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d {2}delete link/)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80)
  })

  test('a journal path that is a FIFO or a symbolic link: a warning, the command still runs, nothing hangs', async () => {
    const dir = tempDir('pay-journal-odd-')
    const fifo = path.join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    const victim = path.join(dir, 'victim')
    fs.writeFileSync(victim, 'precious\n')
    const link = path.join(dir, 'link.jsonl')
    fs.symlinkSync(victim, link)
    const create = [
      'links',
      'create',
      '--email',
      'f@example.com',
      '--currency',
      'EUR',
      '--amount',
      '1',
      '--title',
      'F',
      '-q',
    ]
    for (const [file, why] of [
      [fifo, 'it is not a regular file'],
      [link, 'it is a symbolic link'],
    ]) {
      const env = { ...sandbox.env, PAY_JOURNAL_FILE: file }
      const result = await runCli(create, { env, timeoutMs: 15_000 })
      expect(result).toMatchObject({
        code: 0,
        stderr:
          `Warning: Could not write the journal ${file} (${why}); the changes of this run go unrecorded. ` +
          'PAY_JOURNAL_FILE moves it, PAY_JOURNAL=0 turns it off.\n',
      })
      expect(result.stdout).toMatch(/^[0-9a-f]{24}\n$/)
      const history = await runCli(['history'], { env, timeoutMs: 15_000 })
      expect(history.code).toBe(1)
      expect(history.stderr.split('\n')[0]).toBe(
        `Error: Cannot read the journal: ${file} is ${why === 'it is a symbolic link' ? 'a symbolic link (pay does not follow one)' : 'not a regular file'}.`,
      )
    }
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n')
  })
})
