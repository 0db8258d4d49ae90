import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { idsInput } from '../../src/bulk/meta.js'
import { Journal } from '../../src/config/journal.js'
import { tempDir } from '../helpers/cli.js'
import { runInProcess } from '../helpers/in-process.js'
import { journalEntries, journalIn } from '../helpers/journal.js'
import type { Json } from '../helpers/links.js'
import { startProxy } from '../helpers/proxy.js'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { cancelDirectly, seedSubscriptions } from '../helpers/subs.js'

/**
 * The journal: every change pay sends, intent before the request and outcome after, in a 0600
 * JSON lines file; never the key or a body. `pay history` shows it, newest first.
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const KEY = 'sk_live_journal_canary_7d1e'

describe('the journal', () => {
  test('a mixed session: one intent and one outcome per change, in order, no key, no body, mode 0600', async () => {
    const dir = tempDir('pay-journal-')
    const keyed = await startTestSandbox({ keys: [KEY] })
    try {
      const env = { PAY_API_KEY: KEY, PAY_BASE_URL: keyed.baseUrl, PAY_JOURNAL_FILE: journalIn(dir) }
      const pay = (...args: string[]) => runInProcess(args, { env })
      const link = JSON.parse(
        (
          await pay(
            'links',
            'create',
            '--email',
            'j@example.com',
            '--currency',
            'EUR',
            '--amount',
            '5',
            '--title',
            'Journal',
            '--json',
          )
        ).stdout,
      )
      await pay('links', 'list')
      await pay('links', 'update', link._id, '--title', 'Journal 2')
      const sub = JSON.parse(
        (
          await pay(
            'subs',
            'create',
            '--package-id',
            keyed.sandbox.packages[KEY][0]._id,
            '--email',
            's@example.com',
            '--json',
          )
        ).stdout,
      )
      await pay('subs', 'cancel', sub._id, '--yes')
      await pay('links', 'delete', link._id, '0123456789abcdef01234567', '--yes', '--concurrency', '1')
      const token = JSON.parse(
        (
          await pay(
            'token',
            'create',
            '--email',
            't@example.com',
            '--title',
            'T',
            '--description',
            'D',
            '--json',
          )
        ).stdout,
      )

      const file = journalIn(dir)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      const text = fs.readFileSync(file, 'utf8')
      expect(text).not.toContain(KEY)
      expect(text).not.toContain('journal_canary')
      expect(text).not.toContain('j@example.com') // no request body
      const all = journalEntries(file)
      const shape = all.map((e) => [e.phase, e.method, e.path, e.id ?? '-', e.status ?? e.error ?? '-'])
      expect(shape).toEqual([
        ['intent', 'POST', '/payment-links', '-', '-'],
        ['outcome', 'POST', '/payment-links', link._id, 200],
        ['intent', 'PUT', `/payment-links/${link._id}`, link._id, '-'],
        ['outcome', 'PUT', `/payment-links/${link._id}`, link._id, 200],
        ['intent', 'POST', '/subscriptions', '-', '-'],
        ['outcome', 'POST', '/subscriptions', sub._id, 200],
        ['intent', 'PUT', `/subscriptions/${sub._id}`, sub._id, '-'],
        ['outcome', 'PUT', `/subscriptions/${sub._id}`, sub._id, 200],
        ['intent', 'DELETE', `/payment-links/${link._id}`, link._id, '-'],
        ['outcome', 'DELETE', `/payment-links/${link._id}`, link._id, 200],
        ['intent', 'DELETE', '/payment-links/0123456789abcdef01234567', '0123456789abcdef01234567', '-'],
        ['outcome', 'DELETE', '/payment-links/0123456789abcdef01234567', '0123456789abcdef01234567', 404],
        ['intent', 'POST', '/tokenizations/create-token', '-', '-'],
        ['outcome', 'POST', '/tokenizations/create-token', token._id, 200],
      ])
      expect(all.find((e) => e.status === 404)).toMatchObject({
        error: 'not_found',
        resource: 'payment link',
      })
      for (const [intent, outcome] of [
        [all[0], all[1]],
        [all[2], all[3]],
      ])
        expect(outcome.change).toBe(intent.change)
      expect(all[0]).toMatchObject({
        command: 'pay links create',
        profile: '(environment)',
        base_url: keyed.baseUrl,
        resource: 'payment link',
        user: os.userInfo().username,
        terminal: false,
      })
      expect(all[0].idempotency_key).toMatch(/^[0-9a-f-]{36}$/)

      const history = await pay('history', '--json')
      const changes = JSON.parse(history.stdout) as Json[]
      expect(changes.map((c) => [c.method, c.id, c.outcome])).toEqual([
        ['POST', token._id, 'done 200'],
        ['DELETE', '0123456789abcdef01234567', 'failed not_found 404'],
        ['DELETE', link._id, 'done 200'],
        ['PUT', sub._id, 'done 200'],
        ['POST', sub._id, 'done 200'],
        ['PUT', link._id, 'done 200'],
        ['POST', link._id, 'done 200'],
      ])
      const ofLink = JSON.parse((await pay('history', '--id', link._id, '--json')).stdout) as Json[]
      expect(ofLink.map((c) => c.method)).toEqual(['DELETE', 'PUT', 'POST'])
      expect(JSON.parse((await pay('history', '--since', '1m', '--json')).stdout)).toHaveLength(7)
      expect(JSON.parse((await pay('history', '--since', '2999-01-01', '--json')).stdout)).toEqual([])
    } finally {
      await keyed.close()
    }
  })

  test('PAY_JOURNAL=0 writes nothing; history then says the journal is off', async () => {
    const dir = tempDir('pay-journal-off-')
    const env = { ...sandbox.env, PAY_JOURNAL: '0', PAY_JOURNAL_FILE: journalIn(dir) }
    const created = await runInProcess(
      ['links', 'create', '--email', 'o@example.com', '--currency', 'EUR', '--amount', '1', '--title', 'Off'],
      { env },
    )
    expect(created.code).toBe(0)
    expect(fs.existsSync(journalIn(dir))).toBe(false)
    expect(await runInProcess(['history'], { env })).toMatchObject({
      code: 2,
      stderr: 'Error: The journal is off (PAY_JOURNAL=0).\n',
    })
  })

  test('a create left unknown and settled by --retry-unknown shows as settled, with the id the retry got', async () => {
    const dir = tempDir('pay-journal-settled-')
    const csv = path.join(dir, 'one.csv')
    fs.writeFileSync(csv, 'email,currency,amount,title\nsettle@example.com,EUR,3.00,Settled\n')
    const report = path.join(dir, 'report.csv')
    let posts = 0
    // The first POST reaches the sandbox (the link is made) but its answer comes too late.
    const proxy = await startProxy(sandbox.baseUrl, ({ method }) =>
      method === 'POST' && ++posts === 1 ? { answerDelayMs: 2500 } : {},
    )
    try {
      const env = { ...sandbox.env, PAY_BASE_URL: proxy.baseUrl, PAY_JOURNAL_FILE: journalIn(dir) }
      const create = ['links', 'create', '--from-csv', csv, '--yes']
      const first = await runInProcess([...create, '--timeout', '1', '--report', report], { env })
      // A run of one row exits with that row's own error: the service did not answer in time.
      expect(first.code).toBe(6)
      await proxy.idle()
      const before = JSON.parse((await runInProcess(['history', '--json'], { env })).stdout) as Json[]
      expect(before.map((c) => [c.kind, c.outcome])).toEqual([['create link', 'failed unavailable']])
      const retried = await runInProcess([...create, '--resume', report, '--retry-unknown', '--json'], {
        env,
      })
      expect(retried.code).toBe(0)
      const linkId = JSON.parse(retried.stdout)[0]._id
      const after = JSON.parse((await runInProcess(['history', '--json'], { env })).stdout) as Json[]
      expect(after.map((c) => [c.kind, c.id, c.outcome])).toEqual([
        ['create link', linkId, 'done 200'],
        ['create link', linkId, 'settled 200'],
      ])
      expect(after[1].settled_by).toBe(after[0].change)
      expect(after[1].idempotency_key).toBe(after[0].idempotency_key)
    } finally {
      await proxy.close()
    }
  })

  test('a cancel a kill left with no outcome, found cancelled by the resume: shown found, not unknown', async () => {
    const dir = tempDir('pay-journal-found-')
    const [inFlight, notReached, other] = await seedSubscriptions(sandbox, 3, { prefix: 'found' })
    const env = { ...sandbox.env, PAY_JOURNAL_FILE: journalIn(dir) }
    const report = path.join(dir, 'cancel.csv')
    // A run that wrote its report whole, then a killed resume of it: `inFlight`'s PUT was sent (its
    // intent written) and reached the service, and the kill came before its outcome.
    fs.writeFileSync(
      report,
      `id,ok,status,error,at,email,package,amount,currency\n${[inFlight, notReached]
        .map(
          (id) => `${id},false,not_done,Not attempted: the run stopped before it.,2026-11-23 09:00:00,,,,\n`,
        )
        .join('')}`,
      { mode: 0o600 },
    )
    const ids = [inFlight, notReached]
    fs.writeFileSync(
      `${report}.meta.json`,
      JSON.stringify({
        format: 'pay-report/2',
        command: 'pay subs cancel',
        profile: '(environment)',
        base_url: sandbox.baseUrl,
        input: idsInput('ID…', ids),
        started_at: '2026-11-23T09:00:00.000Z',
      }),
      { mode: 0o600 },
    )
    const context = {
      command: 'pay subs cancel',
      profile: '(environment)',
      baseUrl: sandbox.baseUrl,
      terminal: false,
    }
    const journal = new Journal(journalIn(dir), context, () => {})
    for (const id of [inFlight, other]) {
      journal.intent({ method: 'PUT', path: `/subscriptions/${id}`, resource: 'subscription', id })
    }
    journal.close()
    await cancelDirectly(sandbox, [inFlight, other])

    const resumed = await runInProcess(['subs', 'cancel', '--resume', report, '--yes', '--json'], { env })
    expect(resumed.code).toBe(0)
    expect((JSON.parse(resumed.stdout) as Json[]).map((r) => [r.id, r.status])).toEqual([
      [inFlight, 'already_cancelled'],
      [notReached, 'cancelled'],
    ])
    const changes = JSON.parse((await runInProcess(['history', '--json'], { env })).stdout) as Json[]
    // Newest first: the resume's own cancel, then the two the kill left. `other` was not resumed:
    // nothing found it, so it stays unknown.
    expect(changes.map((c) => [c.kind, c.id, c.outcome])).toEqual([
      ['cancel sub', notReached, 'done 200'],
      ['cancel sub', other, 'unknown'],
      ['cancel sub', inFlight, 'found cancelled'],
    ])
    const found = journalEntries(journalIn(dir)).find((entry) => entry.phase === 'found')
    expect(found).toMatchObject({
      command: 'pay subs cancel',
      method: 'PUT',
      id: inFlight,
      found: 'cancelled',
    })
    expect(changes[2]).toMatchObject({ settled_by: found?.change, found_at: found?.at })
    expect(changes[2]).not.toHaveProperty('finished_at')
  })

  test('--format csv: a header row and a row per change, newest first, cells a spreadsheet will not run', async () => {
    const file = journalIn(tempDir('pay-journal-csv-'))
    const entry = (phase: string, change: string, at: string, more: Record<string, unknown>) =>
      JSON.stringify({
        phase,
        change,
        at,
        command: 'pay api',
        method: 'POST',
        path: '/x',
        resource: 'x',
        ...more,
      })
    const common = { profile: 'live', base_url: 'https://pay.example', user: 'ann', terminal: true }
    fs.writeFileSync(
      file,
      [
        entry('intent', 'c1', '2026-11-01T09:00:00.000Z', { ...common, id: '=1+1' }),
        entry('outcome', 'c1', '2026-11-01T09:00:01.000Z', { status: 200 }),
        entry('intent', 'c2', '2026-11-02T09:00:00.000Z', { ...common, id: 'plain, with a comma' }),
        '',
      ].join('\n'),
      { mode: 0o600 },
    )
    const result = await runInProcess(['history', '--format', 'csv'], { env: { PAY_JOURNAL_FILE: file } })
    expect(result).toMatchObject({
      code: 0,
      stderr: '',
      stdout:
        'at,kind,id,outcome,profile,user\n' +
        '2026-11-02 09:00:00,POST x,"plain, with a comma",unknown,live,ann\n' +
        "2026-11-01 09:00:00,POST x,'=1+1,done 200,live,ann\n",
    })
    const picked = await runInProcess(
      ['history', '--format', 'csv', '--columns', 'id,outcome', '--limit', '1'],
      {
        env: { PAY_JOURNAL_FILE: file },
      },
    )
    expect(picked).toMatchObject({ code: 0, stdout: 'id,outcome\n"plain, with a comma",unknown\n' })
    // --bom: the same CSV behind a UTF-8 byte-order mark, for Excel.
    const marked = await runInProcess(
      ['history', '--format', 'csv', '--bom', '--columns', 'id', '--limit', '1'],
      {
        env: { PAY_JOURNAL_FILE: file },
      },
    )
    expect(marked).toMatchObject({ code: 0, stdout: '\uFEFFid\n"plain, with a comma"\n' })
  })

  test('--since takes real dates only, and history has no --all (the journal has no pages)', async () => {
    const env = { PAY_JOURNAL_FILE: journalIn(tempDir('pay-journal-since-')) }
    const [february, help, all] = await Promise.all([
      runInProcess(['history', '--since', '2026-02-30'], { env }),
      runInProcess(['history', '--help'], { env }),
      runInProcess(['history', '--all'], { env }),
    ])
    expect(february).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: --since: "2026-02-30" is neither a date nor a span.\nGive 2026-11-01, 2026-11-01T09:00:00Z, 30m, 24h or 7d.\n',
    })
    expect(help.code).toBe(0)
    expect(help.stdout).not.toContain('--all')
    expect(all.code).toBe(2)
    expect((await runInProcess(['history', '--since', '2028-02-29', '--json'], { env })).code).toBe(0)
  })

  describe('at a terminal', () => {
    /** A journal of changes written by pay: each an intent, and an outcome unless `outcome` is null. */
    const journalOf = (
      changes: {
        at: string
        command: string
        method: string
        path: string
        resource: string
        outcome: Json | null
      }[],
    ) => {
      const file = journalIn(tempDir('pay-journal-terminal-'))
      const lines = changes.flatMap((change, i) => {
        const { outcome, ...intent } = change
        const base = { change: `c${i}`, profile: 'live', base_url: 'https://api.example', user: 'ana' }
        const id = intent.path.split('/').pop()
        const first = { ...base, ...intent, phase: 'intent', id, terminal: true }
        return outcome === null
          ? [first]
          : [first, { ...base, at: intent.at, phase: 'outcome', id, ...outcome }]
      })
      fs.writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''), { mode: 0o600 })
      return file
    }
    const ID = (n: number) => `65a1f0c2e4b0a1b2c3d4e5${String(n).padStart(2, '0')}`

    test('at 80 columns KIND and OUTCOME keep their words: the time to the minute, the profile and user give way', async () => {
      const file = journalOf([
        {
          at: '2026-11-23T09:10:02.311Z',
          command: 'pay links create',
          method: 'POST',
          path: '/payment-links',
          resource: 'payment link',
          outcome: { status: 200, id: ID(1) },
        },
        {
          at: '2026-11-23T09:11:40.017Z',
          command: 'pay links delete',
          method: 'DELETE',
          path: `/payment-links/${ID(2)}`,
          resource: 'payment link',
          outcome: { status: 404, error: 'not_found' },
        },
        {
          at: '2026-11-23T09:11:58.930Z',
          command: 'pay subs cancel',
          method: 'PUT',
          path: `/subscriptions/${ID(3)}`,
          resource: 'subscription',
          outcome: { status: 422, error: 'validation' },
        },
        {
          at: '2026-11-23T09:12:01.204Z',
          command: 'pay token create',
          method: 'POST',
          path: '/tokenizations/create-token',
          resource: 'token',
          outcome: { status: 503, error: 'unavailable', id: ID(4) },
        },
        {
          at: '2026-11-23T09:12:30.000Z',
          command: 'pay api',
          method: 'DELETE',
          path: `/payment-links/${ID(5)}`,
          resource: 'payment link',
          outcome: { status: 204 },
        },
        {
          at: '2026-11-23T09:13:00.000Z',
          command: 'pay subs update',
          method: 'PUT',
          path: `/subscriptions/${ID(6)}`,
          resource: 'subscription',
          outcome: null,
        },
      ])
      const result = await runInProcess(['history'], {
        env: { PAY_JOURNAL_FILE: file },
        terminal: true,
        width: 80,
        colour: false,
      })
      expect(result).toMatchObject({ code: 0, stderr: '' })
      expect(result.stdout).toBe(
        [
          'AT                KIND          ID                        OUTCOME',
          `2026-11-23 09:13  update sub    ${ID(6)}  unknown`,
          `2026-11-23 09:12  DELETE link   ${ID(5)}  done 204`,
          `2026-11-23 09:12  create token  ${ID(4)}  failed unavailable 503`,
          `2026-11-23 09:11  cancel sub    ${ID(3)}  failed validation 422`,
          `2026-11-23 09:11  delete link   ${ID(2)}  failed not_found 404`,
          `2026-11-23 09:10  create link   ${ID(1)}  done 200`,
          '',
        ].join('\n'),
      )
      for (const line of result.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80)
      // Wider, the profile and user come back; piped, the time stays as written.
      const wide = await runInProcess(['history', '--limit', '1'], {
        env: { PAY_JOURNAL_FILE: file },
        terminal: true,
        width: 120,
        colour: false,
      })
      expect(wide.stdout.split('\n')[1]).toBe(`2026-11-23 09:13  update sub  ${ID(6)}  unknown  live     ana`)
      const piped = await runInProcess(['history', '--limit', '1'], { env: { PAY_JOURNAL_FILE: file } })
      expect(piped.stdout).toBe(`2026-11-23T09:13:00.000Z\tupdate sub\t${ID(6)}\tunknown\tlive\tana\n`)
    })

    test('the note under a limited history names --limit only: history takes no --all', async () => {
      const changes = Array.from({ length: 31 }, (_, i) => ({
        at: `2026-11-23T09:${String(10 + i).padStart(2, '0')}:00.000Z`,
        command: 'pay links create',
        method: 'POST',
        path: '/payment-links',
        resource: 'payment link',
        outcome: { status: 200, id: ID(i) },
      }))
      const env = { PAY_JOURNAL_FILE: journalOf(changes) }
      const [screen, limited, jsonl] = await Promise.all([
        runInProcess(['history'], { env, terminal: true, width: 100 }),
        runInProcess(['history', '--limit', '2'], { env }),
        runInProcess(['history', '--jsonl', '--limit', '3'], { env }),
      ])
      expect(screen.stdout.trimEnd().split('\n')).toHaveLength(31)
      expect(screen.stderr).toBe('Showing the first 30 changes: add --limit N for more.\n')
      expect(limited.stderr).toBe('Showing the first 2 changes: a higher --limit shows more.\n')
      expect(jsonl.stderr).toBe('Showing the first 3 changes: a higher --limit shows more.\n')
    })
  })
})

describe('a journal whose last line was cut short', () => {
  /** A link made, then changed: four lines, the last the update's outcome. */
  async function twoChanges(env: Record<string, string>): Promise<string> {
    const made = await runInProcess(
      [
        'links',
        'create',
        '--email',
        't@example.com',
        '--currency',
        'EUR',
        '--amount',
        '2',
        '--title',
        'Torn',
        '--json',
      ],
      { env },
    )
    expect(made).toMatchObject({ code: 0, stderr: '' })
    const id = JSON.parse(made.stdout)._id as string
    expect(await runInProcess(['links', 'update', id, '--title', 'Torn 2'], { env })).toMatchObject({
      code: 0,
      stderr: '',
    })
    return id
  }

  /** Words on a terminal's stderr, wrapped at spaces to its width, as one line again. */
  const unwrapped = (text: string) => text.replace(/\n(?=.)/g, ' ')

  /** `pay history` as a script reads it and as a person sees it (a table at 100 columns). */
  const views = async (env: Record<string, string>) => {
    const [json, table] = await Promise.all([
      runInProcess(['history', '--json'], { env }),
      runInProcess(['history'], { env, terminal: true, width: 100, colour: false }),
    ])
    return { json, table }
  }

  test('cut at every byte of its last entry, then one more change: each entry on a line of its own, none lost, the torn line counted on stderr', async () => {
    const dir = tempDir('pay-journal-torn-')
    const file = journalIn(dir)
    const env = { ...sandbox.env, PAY_JOURNAL_FILE: file }
    await twoChanges(env)
    const whole = fs.readFileSync(file, 'utf8')
    const lines = whole.trimEnd().split('\n')
    expect(lines).toHaveLength(4)
    const last = lines[3]
    const start = whole.length - last.length - 1
    const context = {
      command: 'pay links delete',
      profile: 'sandbox',
      baseUrl: sandbox.baseUrl,
      terminal: false,
    }
    const cleanFile = journalIn(tempDir('pay-journal-clean-'))
    const clean = { ...env, PAY_JOURNAL_FILE: cleanFile }
    for (let cut = 0; cut <= last.length + 1; cut++) {
      const kept = whole.slice(0, start + cut)
      fs.writeFileSync(file, kept, { mode: 0o600 })
      // One more change, written as every change is (the intent, the request, the outcome).
      new Journal(file, context, () => {
        throw new Error('no warning expected')
      }).intent({ method: 'DELETE', path: '/payment-links/x1', resource: 'payment link', id: 'x1' })({
        status: 404,
        error: 'not_found',
      })
      const after = fs.readFileSync(file, 'utf8')
      const added = after.slice(kept.length)
      const torn = cut > 0 && cut < last.length
      const [intent, outcome] = added.trimStart().trimEnd().split('\n')
      // The new entry starts a line of its own, whatever the last line held.
      expect(added).toBe(`${cut === 0 || cut === last.length + 1 ? '' : '\n'}${intent}\n${outcome}\n`)
      // What history shows is what a journal holding exactly the readable lines shows.
      const readable = [...lines.slice(0, 3), ...(cut >= last.length ? [last] : []), intent, outcome]
      fs.writeFileSync(cleanFile, `${readable.join('\n')}\n`, { mode: 0o600 })
      const [got, expected] = await Promise.all([views(env), views(clean)])
      const warning = torn
        ? `Warning: 1 line of the journal ${file} could not be read (cut short by a crash or a full disk) and was skipped.\n`
        : ''
      expect(got.json).toMatchObject({ code: 0, stdout: expected.json.stdout, stderr: warning })
      expect(got.table).toMatchObject({ code: 0, stdout: expected.table.stdout })
      expect(unwrapped(got.table.stderr)).toBe(warning)
      expect(expected.json.stderr).toBe('')
      const shown = JSON.parse(got.json.stdout) as Json[]
      expect(shown.map((c) => [c.kind, c.outcome])).toEqual([
        ['delete link', 'failed not_found 404'],
        ['update link', cut >= last.length ? 'done 200' : 'unknown'],
        ['create link', 'done 200'],
      ])
    }
  })

  test('a real change after a torn line, and a line an earlier pay glued onto a torn one: no entry lost', async () => {
    const dir = tempDir('pay-journal-glued-')
    const file = journalIn(dir)
    // A sandbox of its own: no connection kept alive from the test before, idle past its timeout.
    const own = await startTestSandbox()
    try {
      await tornAndGlued(file, { ...own.env, PAY_JOURNAL_FILE: file })
    } finally {
      await own.close()
    }
  })

  async function tornAndGlued(file: string, env: Record<string, string>) {
    const id = await twoChanges(env)
    const whole = fs.readFileSync(file, 'utf8')
    const lines = whole.trimEnd().split('\n')
    // An earlier pay wrote the next entry straight after a torn one: the update's intent is glued
    // onto what is left of the create's outcome.
    fs.writeFileSync(file, `${lines[0]}\n${lines[1].slice(0, 40)}${lines[2]}\n${lines[3]}\n`)
    const deleted = await runInProcess(['links', 'delete', id, '--yes'], { env })
    expect(deleted.code).toBe(0)
    // Cut inside the delete's outcome, then one more change by a command.
    const cut = fs.readFileSync(file, 'utf8').trimEnd()
    fs.writeFileSync(file, cut.slice(0, cut.length - 25))
    expect((await runInProcess(['links', 'get', id], { env })).code).toBe(5)
    expect((await runInProcess(['links', 'delete', id, '--yes'], { env })).code).toBe(5)
    const { json, table } = await views(env)
    const warning = `Warning: 2 lines of the journal ${file} could not be read (cut short by a crash or a full disk) and were skipped.\n`
    expect(json.stderr).toBe(warning)
    expect(unwrapped(table.stderr)).toBe(warning)
    expect((JSON.parse(json.stdout) as Json[]).map((c) => [c.kind, c.id, c.outcome])).toEqual([
      ['delete link', id, 'failed not_found 404'],
      ['delete link', id, 'unknown'],
      ['update link', id, 'done 200'],
      // Its outcome, which held the id the service gave, was lost with the torn line.
      ['create link', undefined, 'unknown'],
    ])
    expect(table.stdout.split('\n').filter((line) => line.includes(id))).toHaveLength(3)
    expect(table.stdout).toMatch(/create link +unknown/)
  }
})

describe('the key given as an id or an Idempotency-Key', () => {
  test('pay api and links create: the journal and history hold [REDACTED] in its place, in every form', async () => {
    const KEY = 'sk_live_history_canary_4b3a2c1d'
    const own = await startTestSandbox({ keys: [KEY] })
    try {
      const file = journalIn(tempDir('pay-journal-key-'))
      const env = { PAY_API_KEY: KEY, PAY_BASE_URL: own.baseUrl, PAY_JOURNAL_FILE: file }
      const encoded = [...KEY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')
      const runs = await Promise.all([
        runInProcess(['api', '-X', 'DELETE', `/payment-links/${KEY}`], { env }),
        runInProcess(['api', '-X', 'DELETE', `/payment-links/${encoded}`], { env }),
        runInProcess(
          [
            'links',
            'create',
            '--email',
            'k@example.com',
            '--currency',
            'EUR',
            '--amount',
            '1',
            '--title',
            'K',
            '--idempotency-key',
            KEY,
          ],
          { env },
        ),
      ])
      expect(runs.map((run) => run.code)).toEqual([5, 5, 0])
      const text = fs.readFileSync(file, 'utf8')
      expect(text).not.toContain(KEY)
      expect(text).not.toContain(encoded)
      const changes = JSON.parse((await runInProcess(['history', '--json'], { env })).stdout) as Json[]
      expect(changes.map((c) => [c.method, c.path, c.id ?? null, c.idempotency_key ?? null]).sort()).toEqual(
        [
          ['DELETE', '/payment-links/[REDACTED]', '[REDACTED]', null],
          ['DELETE', '/payment-links/[REDACTED]', '[REDACTED]', null],
          ['POST', '/payment-links', changes.find((c) => c.method === 'POST')?.id, '[REDACTED]'],
        ].sort(),
      )
    } finally {
      await own.close()
    }
  })
})
