import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCli } from '../../helpers/child.js'
import { ROOT, runCli, tempDir } from '../../helpers/cli.js'
import { seedLink, storedLink } from '../../helpers/links.js'
import { startProxy, type TestProxy } from '../../helpers/proxy.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { type BulkJson, parseCsv, seedSubscriptions, serverStatuses, unknownId } from '../../helpers/subs.js'

/**
 * Reports that know their run, for the bulk commands by id (`subs cancel`, `links delete`,
 * `subs delete`): a run killed half-way is resumed only with its input; another command's
 * report, or one made against another target, is refused; a planted symbolic link is never
 * written through; reports of an earlier pay are still read; a service that went down stops the
 * run after 10 failures in a row.
 */

let sandbox: TestSandbox
let slow: TestProxy
const dir = tempDir('pay-resume-')
beforeAll(async () => {
  sandbox = await startTestSandbox()
  slow = await startProxy(sandbox.baseUrl, () => ({ delayMs: 30 }))
})
afterAll(async () => {
  await slow?.close()
  await sandbox?.close()
})

const write = (name: string, text: string) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, text)
  return file
}
const rowsOf = (report: string) =>
  fs.existsSync(report) ? fs.readFileSync(report, 'utf8').trimEnd().split('\n').length - 1 : 0

/** Starts `args` through the slow proxy and kills it (-9) once the report has `rows` rows. */
async function killHalfWay(args: string[], report: string, rows: number) {
  const run = startCli([...args, '--report', report, '--yes'], {
    env: { ...sandbox.env, PAY_BASE_URL: slow.baseUrl },
  })
  while (rowsOf(report) < rows) await new Promise((resolve) => setTimeout(resolve, 20))
  run.child.kill('SIGKILL')
  expect((await run.done).signal).toBe('SIGKILL')
  await slow.idle()
  return rowsOf(report)
}

describe('a run killed half-way', () => {
  const kinds = [
    {
      command: ['links', 'delete'],
      seed: async (n: number) =>
        Promise.all(Array.from({ length: n }, () => seedLink(sandbox).then((l) => l._id))),
      gone: async (ids: string[]) =>
        (await Promise.all(ids.map((id) => storedLink(sandbox, id)))).every((l) => !l),
    },
    {
      command: ['subs', 'delete'],
      seed: (n: number) => seedSubscriptions(sandbox, n, { prefix: 'killdel' }),
      gone: async (ids: string[]) => {
        const statuses = await serverStatuses(sandbox)
        return ids.every((id) => !statuses.has(id))
      },
    },
  ]
  for (const kind of kinds) {
    test(`${kind.command.join(' ')}: resumed without its input it is refused, saying how far it got; with it, every id ends done`, async () => {
      const ids = await kind.seed(120)
      const file = write(`${kind.command.join('-')}.txt`, `id\n${ids.join('\n')}\n`)
      const report = path.join(dir, `${kind.command.join('-')}.csv`)
      const recorded = await killHalfWay([...kind.command, '--from-file', file], report, 10)
      expect(recorded).toBeLessThan(120)

      // The same target as the killed run: the slow proxy in front of the sandbox.
      const env = { ...sandbox.env, PAY_BASE_URL: slow.baseUrl }
      const bare = await runCli([...kind.command, '--resume', report, '--yes'], { env })
      expect(bare).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          `Error: The run in ${report} did not end (it was stopped before it could close its report), and the report names ${recorded} of its 120 ids; give the input again: --from-file ${file} --resume ${report}\n` +
          'Without them pay cannot tell which ids that run never reached.\n',
      })
      // A report of another command is no report to resume here.
      const other = kind.command[0] === 'links' ? ['subs', 'cancel'] : ['links', 'delete']
      const wrong = await runCli([...other, '--from-file', file, '--resume', report, '--yes'], {
        env: sandbox.env,
      })
      expect(wrong).toMatchObject({ code: 2, stdout: '' })
      expect(wrong.stderr).toBe(
        `Error: --resume: ${report} is a report of \`pay ${kind.command.join(' ')}\`, not of \`pay ${other.join(' ')}\`.\n`,
      )

      const resumed = await runCli(
        [...kind.command, '--from-file', file, '--resume', report, '--yes', '--json'],
        { env },
      )
      const results = JSON.parse(resumed.stdout) as BulkJson[]
      // Ids in flight at the kill were deleted but not recorded: they are not found now.
      const inFlight = results.filter((r) => r.status === 'not_found').length
      expect(inFlight).toBeLessThanOrEqual(4)
      expect(resumed.code).toBe(inFlight === 0 ? 0 : inFlight === 1 && results.length === 1 ? 5 : 7)
      expect(results.length).toBe(120 - recorded)
      expect(await kind.gone(ids)).toBe(true)
      const csv = parseCsv(fs.readFileSync(report, 'utf8'))
      expect(csv.rows.map((row) => row.id).sort()).toEqual([...ids].sort())
      expect(JSON.parse(fs.readFileSync(`${report}.meta.json`, 'utf8'))).toMatchObject({
        command: `pay ${kind.command.join(' ')}`,
        input: { source: `--from-file ${file}`, count: 120 },
        finished_at: expect.stringMatching(/Z$/),
      })
    })
  }
})

describe('a resumed run killed half-way', () => {
  test('Ctrl-C, then its resume killed (-9): resumed again from the report alone, which names every id; each id cancelled once', async () => {
    const ids = await seedSubscriptions(sandbox, 120, { prefix: 'rekill' })
    const file = write('rekill.txt', `${ids.join('\n')}\n`)
    const report = path.join(dir, 'rekill.csv')
    const env = { ...sandbox.env, PAY_BASE_URL: slow.baseUrl }
    const first = startCli(['subs', 'cancel', '--from-file', file, '--report', report, '--yes'], { env })
    while (rowsOf(report) < 10) await new Promise((resolve) => setTimeout(resolve, 20))
    first.child.kill('SIGINT')
    expect((await first.done).code).toBe(130)
    await slow.idle()
    expect(rowsOf(report)).toBe(120)

    const resumed = startCli(['subs', 'cancel', '--resume', report, '--yes'], { env })
    while (rowsOf(report) < 140) await new Promise((resolve) => setTimeout(resolve, 20))
    resumed.child.kill('SIGKILL')
    expect((await resumed.done).signal).toBe('SIGKILL')
    await slow.idle()
    expect(JSON.parse(fs.readFileSync(`${report}.meta.json`, 'utf8')).finished_at).toBeUndefined()

    const again = await runCli(['subs', 'cancel', '--resume', report, '--yes', '--json'], { env })
    expect(again.code).toBe(0)
    expect(again.stderr).toContain(
      `The run in ${report} did not end (it was stopped before it could close its report), but the report names every one of its 120 ids: resuming from the report alone.\n`,
    )
    const statuses = await serverStatuses(sandbox)
    expect(ids.filter((id) => statuses.get(id) !== 'cancel')).toEqual([])
    const puts = (id: string) =>
      slow.requests.filter((r) => r.method === 'PUT' && r.path === `/subscriptions/${id}`).length
    expect(ids.filter((id) => puts(id) !== 1)).toEqual([])
    expect(parseCsv(fs.readFileSync(report, 'utf8')).rows.map((row) => row.id)).toEqual(ids)
  })
})

describe('reports that cannot be trusted', () => {
  test('a symbolic link at --report or --resume: exit 2, nothing sent, the file it points to untouched', async () => {
    const [id] = await seedSubscriptions(sandbox, 1, { prefix: 'symlink' })
    const victim = write('victim-bashrc', 'export PATH=/usr/bin\n')
    const report = path.join(dir, 'shared-report.csv')
    fs.symlinkSync(victim, report)
    const proxy = await startProxy(sandbox.baseUrl)
    try {
      const env = { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl }
      for (const flags of [
        ['--report', report, '--force'],
        ['--report', report, '--append'],
        ['--report', report],
        ['--resume', report],
      ]) {
        const result = await runCli(['subs', 'cancel', id, '--yes', ...flags], { env })
        expect(result).toMatchObject({
          code: 2,
          stdout: '',
          stderr: `Error: ${flags[0]}: ${report} is a symbolic link (pay does not follow one).\nNothing was written. Give the path of the file itself.\n`,
        })
      }
      expect(proxy.requests).toEqual([])
      expect(fs.readFileSync(victim, 'utf8')).toBe('export PATH=/usr/bin\n')
      expect((await serverStatuses(sandbox)).get(id)).toBe('created')
    } finally {
      await proxy.close()
    }
  })

  test('a report of an earlier pay is resumed (after --force: it names another target) and rewritten with formula cells prefixed', async () => {
    const report = path.join(tempDir('pay-resume-old-'), 'cancel.csv')
    fs.copyFileSync(path.join(ROOT, 'test/fixtures/report-0.1-cancel.csv'), report)
    const refused = await runCli(['subs', 'cancel', '--resume', report, '--yes'], { env: sandbox.env })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`was written against profile sandbox at http://127.0.0.1:4023;`)
    const resumed = await runCli(['subs', 'cancel', '--resume', report, '--yes', '--force'], {
      env: sandbox.env,
    })
    // The two recorded cancelled get no request; the one not found is tried again (still not found).
    expect(resumed).toMatchObject({
      code: 5,
      stdout: 'ffffffffffffffffffffff01\tnot_found\tSubscription not found.\n',
    })
    expect(resumed.stderr).toContain(
      `Warning: ${report} has no .meta.json beside it (an earlier pay wrote none)`,
    )
    expect(resumed.stderr).toContain(`Skipping 2 subscriptions recorded done in ${report}.\n`)
    expect(fs.readFileSync(report, 'utf8')).toBe(
      'id,ok,status,error,at,email,package,amount,currency\n' +
        `6b0592fedcb6df10059bb424,true,cancelled,,2026-11-24 13:37:03,"'=HYPERLINK(""http://x"")@example.com",Starter,,\n` +
        `ffffffffffffffffffffff01,false,not_found,Subscription not found.,${parseCsv(fs.readFileSync(report, 'utf8')).rows[1].at},,,,\n` +
        `6b0592fedcb6df10059bb425,true,cancelled,,2026-11-24 13:37:03,"'=HYPERLINK(""http://x"")@example.com",Starter,,\n`,
    )
  })
})

describe('ids as people paste them, in bulk', () => {
  test('a header line, payment-style URLs, capitals and spaces; a report of another kind is named, not planned', async () => {
    const ids = await seedSubscriptions(sandbox, 3, { prefix: 'pasted' })
    const file = write(
      'pasted.txt',
      `subscription_id\n  ${ids[0].toUpperCase()}  \nhttp://127.0.0.1:4010/checkout/pay?id=${ids[1]}\n`,
    )
    const result = await runCli(['subs', 'cancel', '--from-file', file, '-', '--yes', '--json'], {
      env: sandbox.env,
      input: `_id\n${ids[2]}\n`,
    })
    expect(result.code).toBe(0)
    expect((JSON.parse(result.stdout) as BulkJson[]).map((r) => [r.id, r.status])).toEqual(
      ids.map((id) => [id, 'cancelled']),
    )
    const create = write(
      'create-report.csv',
      'line,ok,status,error,_id\n2,true,created,,65a1f0c2e4b0a1b2c3d4e5f6\n',
    )
    const wrong = await runCli(['subs', 'cancel', '--from-file', create, '--yes'], { env: sandbox.env })
    expect(wrong).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `Error: --from-file: ${create} is a report of \`pay links create --from-csv\` (one row per CSV line); it holds no subscription ids.\n`,
    })
  })
})

describe('a service that goes down', () => {
  test('stops after 10 failures in a row to reach it: the rest reported not done, exit 6, the report complete', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => unknownId(500 + i))
    const report = path.join(dir, 'down.csv')
    // Nothing listens on port 9 of the loopback: every request is refused.
    const result = await runCli(
      ['subs', 'cancel', '-', '--yes', '--json', '--report', report, '--concurrency', '1'],
      {
        env: { ...sandbox.env, PAY_BASE_URL: 'http://127.0.0.1:9' },
        input: ids.join('\n'),
        timeoutMs: 60_000,
      },
    )
    expect(result.code).toBe(6)
    const results = JSON.parse(result.stdout) as BulkJson[]
    expect(results.map((r) => r.status)).toEqual([...Array(10).fill('failed'), ...Array(30).fill('not_done')])
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines.at(-3)).toBe(
      'Of 40 subscriptions: 0 cancelled, 0 already cancelled, 40 not cancelled (10 failed, 30 not done).',
    )
    expect(JSON.parse(lines.at(-1) ?? '').error).toMatchObject({
      kind: 'unavailable',
      exit_code: 6,
      message: expect.stringMatching(
        /^Stopped after 10 failures in a row to reach the service \(last: .+\); 30 of 40 subscriptions were not tried\.$/,
      ),
    })
    expect(parseCsv(fs.readFileSync(report, 'utf8')).rows.map((row) => row.status)).toEqual(
      results.map((r) => r.status),
    )
    expect(JSON.parse(fs.readFileSync(`${report}.meta.json`, 'utf8')).outcome).toBe('stopped')
  })
})
