import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { NOT_DONE_SHOWN } from '../../../src/render/bulk-rows.js'
import { SANDBOX_KEY } from '../../../src/sandbox/constants.js'
import { startSandbox } from '../../../src/sandbox/http/server.js'
import { type CliResult, tempDir } from '../../helpers/cli.js'
import { type FakeServer, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import type { TestIO } from '../../helpers/io.js'
import { startProxy, type TestProxy, UNAVAILABLE_MESSAGE } from '../../helpers/proxy.js'
import { clientFor, startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import {
  type BulkJson,
  cancelDirectly,
  parseCsv,
  seedSubscriptions,
  serverStatuses,
  unknownId,
} from '../../helpers/subs.js'

/**
 * `pay subs cancel` off a terminal: ids from arguments, a file and stdin; one result per id;
 * the report; refusing without --yes; --dry-run; bounded concurrency. Against a real sandbox,
 * through a recording proxy where what was sent matters.
 */

let sandbox: TestSandbox
const proxies: TestProxy[] = []
const dir = tempDir('pay-subs-cancel-')

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()))
  await sandbox?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const proxy = async (...args: Parameters<typeof startProxy> extends [string, ...infer R] ? R : never) => {
  const started = await startProxy(sandbox.baseUrl, ...args)
  proxies.push(started)
  return started
}

const pay = (args: string[], options: { input?: string; baseUrl?: string } = {}) =>
  runInProcess(args, {
    env: { ...sandbox.env, PAY_BASE_URL: options.baseUrl ?? sandbox.baseUrl },
    input: options.input,
  })

/** The plan printed on stderr before anything is sent. */
const plan = (ids: string[], baseUrl = sandbox.baseUrl) =>
  [
    `About to cancel ${ids.length} subscription${ids.length === 1 ? '' : 's'}:`,
    '  profile:  (environment)',
    `  base URL: ${baseUrl}`,
    `  ids:      ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ` … and ${ids.length - 20} more` : ''}`,
    '',
  ].join('\n')

/** The summary: what was done, then what was not and why, so that its words agree with the exit code. */
const summary = (counts: { cancelled?: number; already?: number; notFound?: number; failed?: number }) => {
  const total = Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0)
  const notFound = counts.notFound ?? 0
  const failed = counts.failed ?? 0
  const why = [notFound ? `${notFound} not found` : '', failed ? `${failed} failed` : ''].filter(Boolean)
  const not = `${notFound + failed} not cancelled${why.length ? ` (${why.join(', ')})` : ''}`
  return `Of ${total} subscription${total === 1 ? '' : 's'}: ${counts.cancelled ?? 0} cancelled, ${counts.already ?? 0} already cancelled, ${not}.\n`
}

const partialJson = (failed: number, total: number, counts: string) =>
  `${JSON.stringify({ error: { status: null, kind: 'partial', exit_code: 7, message: `${failed} of ${total} subscriptions not cancelled (${counts}).` } })}\n`

/** The plan of a --dry-run or a refusal: each subscription looked up and described (up to 20). */
const described = (ids: string[], emails: string[], baseUrl = sandbox.baseUrl) =>
  [
    `About to cancel ${ids.length} subscription${ids.length === 1 ? '' : 's'}:`,
    '  profile:  (environment)',
    `  base URL: ${baseUrl}`,
    ...ids.map((id, i) => `  ${id}  ${emails[i]} · Starter · 120.00 USD  [created]`),
    `  looked up ${ids.length}: ${ids.length} to cancel, 0 already cancelled, 0 not found`,
    `  total:    ${120 * ids.length}.00 USD (the packages' prices)`,
    '',
  ].join('\n')

/**
 * An id list as a person would keep it: comments, blank lines, CRLF, trailing notes, and
 * every `dupEvery`-th id repeated later on.
 */
function idListText(ids: string[], dupEvery = 40): string {
  const lines = ['# subscriptions to cancel', '']
  ids.forEach((id, i) => {
    if (i % 97 === 0) lines.push(`# batch ${i}`)
    if (i % 50 === 25) lines.push('', '   ')
    if (i % 33 === 0) lines.push(`   ${id}   # churned`)
    else if (i % 29 === 0) lines.push(`${id}\r`)
    else lines.push(id)
    if (i % dupEvery === dupEvery - 1) lines.push(ids[i - 7])
  })
  lines.push(ids[0], '# end', '')
  return lines.join('\n')
}

/** A fixed shuffle, so that known, unknown and already cancelled ids are mixed. */
const shuffle = <T>(items: T[]) =>
  items
    .map((item, i) => ({ item, key: (i * 7919) % items.length }))
    .sort((a, b) => a.key - b.key)
    .map(({ item }) => item)

const expected = (id: string, kind: 'cancelled' | 'already' | 'unknown'): BulkJson =>
  kind === 'cancelled'
    ? { id, ok: true, status: 'cancelled', error: null }
    : kind === 'already'
      ? { id, ok: true, status: 'already_cancelled', error: null }
      : { id, ok: false, status: 'not_found', error: 'Subscription not found.' }

describe.concurrent('1,000 ids', () => {
  test('from stdin (-): each id once in input order, true statuses, exit 7, the server holds them cancelled', async () => {
    const known = await seedSubscriptions(sandbox, 950, { prefix: 'bulk' })
    const already = known.filter((_, i) => i % 10 === 5)
    await cancelDirectly(sandbox, already)
    const unknown = Array.from({ length: 50 }, (_, i) => unknownId(1000 + i))
    const ids = shuffle([...known, ...unknown])
    expect(new Set(ids).size).toBe(1000)
    const input = idListText(ids)
    expect(input.split('\n').length).toBeGreaterThan(1060)

    const result = await pay(['subs', 'cancel', '-', '--yes', '--json', '--concurrency', '16'], { input })

    const kindOf = (id: string) =>
      already.includes(id) ? 'already' : unknown.includes(id) ? 'unknown' : 'cancelled'
    expect(JSON.parse(result.stdout)).toEqual(ids.map((id) => expected(id, kindOf(id))))
    expect(result.stderr).toBe(
      `${plan(ids)}${summary({ cancelled: 855, already: 95, notFound: 50 })}${partialJson(50, 1000, '50 not found')}`,
    )
    expect(result.code).toBe(7)
    const statuses = await serverStatuses(sandbox)
    for (const id of known) expect(statuses.get(id)).toBe('cancel')
    for (const id of unknown) expect(statuses.has(id)).toBe(false)
  })
})

describe.concurrent('--from-file and --report', () => {
  test('the same rules; one GET per id, a PUT only where needed; the CSV report has one escaped row per id', async () => {
    const known = await seedSubscriptions(sandbox, 37, { prefix: 'file' })
    const already = known.slice(30, 35)
    const doomed = known.slice(35)
    await cancelDirectly(sandbox, already)
    const unknown = [unknownId(1), unknownId(2), unknownId(3)]
    const ids = shuffle([...known, ...unknown])
    const recorder = await proxy(({ method, path: url }) =>
      method === 'GET' && doomed.some((id) => url.endsWith(id)) ? { fault: 'unavailable-before' } : {},
    )
    const file = path.join(dir, 'ids.txt')
    fs.writeFileSync(file, idListText(ids, 9))
    const report = path.join(dir, 'report.csv')

    const result = await pay(['subs', 'cancel', '--from-file', file, '--yes', '--report', report], {
      baseUrl: recorder.baseUrl,
    })

    const outcome = (id: string) =>
      already.includes(id)
        ? ['already_cancelled', '']
        : unknown.includes(id)
          ? ['not_found', 'Subscription not found.']
          : doomed.includes(id)
            ? ['failed', UNAVAILABLE_MESSAGE]
            : ['cancelled', '']
    expect(result.stdout).toBe(ids.map((id) => `${[id, ...outcome(id)].join('\t')}\n`).join(''))
    expect(result.stderr).toBe(
      `${plan(ids, recorder.baseUrl)}${summary({ cancelled: 30, already: 5, notFound: 3, failed: 2 })}` +
        `Report written to ${report}\nError: 5 of 40 subscriptions not cancelled (3 not found, 2 failed).\n`,
    )
    expect(result.code).toBe(7)

    // What the service received: one GET per id (three for a 503, as retried), a PUT per created one.
    const sent = (method: string, id: string) =>
      recorder.requests.filter((r) => r.method === method && r.path === `/subscriptions/${id}`).length
    for (const id of ids) {
      expect(sent('GET', id)).toBe(doomed.includes(id) ? 3 : 1)
      expect(sent('PUT', id)).toBe(outcome(id)[0] === 'cancelled' ? 1 : 0)
    }
    expect(recorder.requests).toHaveLength(40 + 2 * 2 + 30)

    const statuses = await serverStatuses(sandbox)
    for (const id of known) expect(statuses.get(id)).toBe(doomed.includes(id) ? 'created' : 'cancel')

    const text = fs.readFileSync(report, 'utf8')
    // Row 1 is the header; the run is described beside it.
    expect(text.startsWith('id,ok,status,error,at,email,package,amount,currency\n')).toBe(true)
    const escaped = `"${UNAVAILABLE_MESSAGE.replace(/"/g, '""')}"`
    expect(escaped).toBe('"Service Unavailable, ""maintenance"" window"')
    for (const id of doomed) {
      expect(text).toMatch(
        new RegExp(`^${id},false,failed,${escaped},\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,,,,$`, 'm'),
      )
    }
    const csv = parseCsv(text)
    expect(csv.header).toEqual([
      'id',
      'ok',
      'status',
      'error',
      'at',
      'email',
      'package',
      'amount',
      'currency',
    ])
    // One row per id, in input order.
    expect(csv.rows.map((row) => row.id)).toEqual(ids)
    for (const row of csv.rows) {
      const [status, error] = outcome(row.id)
      // The e-mail and package, where the subscription was read.
      const read = status === 'cancelled' || status === 'already_cancelled'
      expect(row).toEqual({
        id: row.id,
        ok: String(!['not_found', 'failed'].includes(status)),
        status,
        error,
        at: row.at,
        email: read ? `file${known.indexOf(row.id)}@example.com` : '',
        package: read ? 'Starter' : '',
        amount: read ? '120' : '',
        currency: read ? 'USD' : '',
      })
      expect(new Date(`${row.at.replace(' ', 'T')}Z`).toISOString()).toBe(`${row.at.replace(' ', 'T')}.000Z`)
    }
  })

  test('--bom: the report starts with a UTF-8 byte-order mark, and keeps it when resumed; alone it is a usage error', async () => {
    const ids = await seedSubscriptions(sandbox, 3, { prefix: 'bom' })
    const report = path.join(dir, 'bom-report.csv')
    const first = await pay(['subs', 'cancel', ids[0], ids[1], '--yes', '--report', report, '--bom', '-q'])
    expect(first).toMatchObject({ code: 0, stdout: `${ids[0]}\n${ids[1]}\n` })
    const text = fs.readFileSync(report, 'utf8')
    expect(text.startsWith('\uFEFFid,ok,status,error,at,email,package,amount,currency\n')).toBe(true)
    expect(parseCsv(text.slice(1)).rows.map((row) => [row.id, row.status, row.email])).toEqual([
      [ids[0], 'cancelled', 'bom0@example.com'],
      [ids[1], 'cancelled', 'bom1@example.com'],
    ])
    // Resumed without --bom, with one more id: the mark stays, the new row is added.
    const resumed = await pay(['subs', 'cancel', ids[0], ids[1], ids[2], '--yes', '--resume', report, '-q'])
    expect(resumed).toMatchObject({ code: 0, stdout: `${ids[2]}\n` })
    const again = fs.readFileSync(report, 'utf8')
    expect(again.startsWith('\uFEFFid,')).toBe(true)
    expect(parseCsv(again.slice(1)).rows.map((row) => row.id)).toEqual(ids)
    expect(await pay(['subs', 'cancel', ids[0], '--yes', '--bom'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: The following error occurred:\n  One of the following must be provided when using --bom: --report, --resume\nSee `pay subs cancel --help`.\n',
    })
  })

  test('ids from arguments, a file and stdin together, each once', async () => {
    const [a, b, c, d] = await seedSubscriptions(sandbox, 4, { prefix: 'mixed' })
    const file = path.join(dir, 'mixed.txt')
    fs.writeFileSync(file, `${b}\n# comment\n${a}\n\n${c}\n`)
    const result = await pay(['subs', 'cancel', a, '-', '--from-file', file, '--yes', '-q'], {
      input: `${d}\n${a}\n`,
    })
    expect(result).toMatchObject({ code: 0, stdout: `${a}\n${b}\n${c}\n${d}\n` })
    expect(result.stderr).toBe(`${plan([a, b, c, d])}${summary({ cancelled: 4 })}`)
  })

  test('an empty list from a pipe is nothing to do (exit 0); no ids at all, or an unreadable file: exit 2', async () => {
    const [empty, emptyJson, none, missing] = await Promise.all([
      pay(['subs', 'cancel', '-', '--yes'], { input: '# nothing here\n\n   \n' }),
      pay(['subs', 'cancel', '-', '--yes', '--json'], { input: '' }),
      pay(['subs', 'cancel', '--yes']),
      pay(['subs', 'cancel', '--from-file', path.join(dir, 'absent.txt'), '--yes']),
    ])
    expect(empty).toMatchObject({ code: 0, stdout: '', stderr: 'Nothing to cancel.\n' })
    expect(emptyJson).toMatchObject({ code: 0, stdout: '[]\n', stderr: 'Nothing to cancel.\n' })
    expect(none).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: No subscription ids given.\nPass ids as arguments, --from-file FILE, or - to read stdin.\n',
    })
    expect(missing).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `Error: --from-file: cannot read ${path.join(dir, 'absent.txt')}: no such file.\n`,
    })
  })
})

describe.concurrent('entries that cannot be ids', () => {
  test('are named before the plan, never sent, and reported as invalid (exit 7); a quoted id is read', async () => {
    const [id] = await seedSubscriptions(sandbox, 1, { prefix: 'valid' })
    const recorder = await proxy()
    const result = await pay(['subs', 'cancel', '-', '--yes'], {
      input: `a b\n"${id}"\nq"uoted\nx,y\n`,
      baseUrl: recorder.baseUrl,
    })
    expect(result.code).toBe(7)
    expect(result.stderr.split('\n')[0]).toBe(
      'Warning: Left out 3 entries that are not ids: "a b", "q\\"uoted", "x,y".',
    )
    expect(result.stdout).toBe(
      'a b\tinvalid\tnot an id: it contains a space\n' +
        `${id}\tcancelled\t\n` +
        'q"uoted\tinvalid\tnot an id: it contains a quote\n' +
        'x,y\tinvalid\tnot an id: it contains a comma (one id per line)\n',
    )
    expect(recorder.requests.map((r) => r.path)).toEqual([`/subscriptions/${id}`, `/subscriptions/${id}`])
  })
})

describe.concurrent('consent', () => {
  test('off a terminal without --yes: exit 2, each subscription described, nothing changed, from stdin or a file', async () => {
    const ids = await seedSubscriptions(sandbox, 5, { prefix: 'refuse' })
    const recorder = await proxy()
    const file = path.join(dir, 'refuse.txt')
    fs.writeFileSync(file, ids.join('\n'))
    const [fromStdin, fromFile, json] = await Promise.all([
      pay(['subs', 'cancel', '-'], { input: ids.join('\n'), baseUrl: recorder.baseUrl }),
      pay(['subs', 'cancel', '--from-file', file, '--report', path.join(dir, 'refused.csv')], {
        baseUrl: recorder.baseUrl,
      }),
      pay(['subs', 'cancel', ...ids, '--json'], { baseUrl: recorder.baseUrl }),
    ])
    const refusal =
      'Error: Refusing to cancel without confirmation: there is no terminal to confirm on.\n' +
      'Pass --yes to confirm, or --dry-run to see the plan. Nothing was changed.\n'
    const emails = ids.map((_, i) => `refuse${i}@example.com`)
    expect(fromStdin).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `${described(ids, emails, recorder.baseUrl)}${refusal}`,
    })
    expect(fromFile).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `${described(ids, emails, recorder.baseUrl)}${refusal}`,
    })
    expect(json).toMatchObject({ code: 2, stdout: '' })
    expect(json.stderr).toBe(
      `${described(ids, emails, recorder.baseUrl)}${JSON.stringify({
        error: {
          status: null,
          kind: 'usage',
          exit_code: 2,
          message: 'Refusing to cancel without confirmation: there is no terminal to confirm on.',
          hint: 'Pass --yes to confirm, or --dry-run to see the plan. Nothing was changed.',
        },
      })}\n`,
    )
    // Each subscription read once per run to describe it; nothing else sent.
    expect(recorder.requests.map((r) => r.method)).toEqual(Array(15).fill('GET'))
    expect(fs.existsSync(path.join(dir, 'refused.csv'))).toBe(false)
    const statuses = await serverStatuses(sandbox)
    for (const id of ids) expect(statuses.get(id)).toBe('created')
  })

  test('--dry-run prints the plan, each subscription described (as JSON with --json), and changes nothing', async () => {
    const ids = await seedSubscriptions(sandbox, 3, { prefix: 'dry' })
    const recorder = await proxy()
    const [text, json] = await Promise.all([
      pay(['subs', 'cancel', ...ids, '--dry-run'], { baseUrl: recorder.baseUrl }),
      pay(['subs', 'cancel', '-', '--dry-run', '--json', '--yes'], {
        input: `${ids.join('\n')}\n${ids[0]}\n`,
        baseUrl: recorder.baseUrl,
      }),
    ])
    const emails = ids.map((_, i) => `dry${i}@example.com`)
    const stderr = `${described(ids, emails, recorder.baseUrl)}Dry run: nothing was changed.\n`
    expect(text).toMatchObject({ code: 0, stdout: '', stderr })
    expect(json).toMatchObject({ code: 0, stderr })
    expect(JSON.parse(json.stdout)).toEqual({
      dry_run: true,
      action: 'cancel',
      profile: '(environment)',
      base_url: recorder.baseUrl,
      ids,
      not_found: [],
      invalid: [],
      already_cancelled: [],
      totals: [{ amount: 360, currency: 'USD' }],
    })
    expect(recorder.requests.map((r) => r.method)).toEqual(Array(6).fill('GET'))
    const statuses = await serverStatuses(sandbox)
    for (const id of ids) expect(statuses.get(id)).toBe('created')
  })
})

describe.concurrent('already cancelled', () => {
  test('found so by the plan: said, left out of the question, done (exit 0); nothing sent but the reads', async () => {
    const ids = await seedSubscriptions(sandbox, 3, { prefix: 'already' })
    await cancelDirectly(sandbox, ids)
    const recorder = await proxy()
    const env = { ...sandbox.env, PAY_BASE_URL: recorder.baseUrl }
    const [screen, piped, dry] = await Promise.all([
      runInProcess(['subs', 'cancel', ...ids], { env, terminal: true, colour: false, width: 200 }),
      runInProcess(['subs', 'cancel', ids[0], '--json'], { env }),
      runInProcess(['subs', 'cancel', ...ids, '--dry-run', '--json'], { env }),
    ])
    const already = `Already cancelled, nothing to do: ${ids.join(', ')}.\nLooked up 3: 0 to cancel, 3 already cancelled, 0 not found.\n`
    expect(screen.io.asked).toEqual([])
    expect(screen).toMatchObject({ code: 0, stderr: `${already}${summary({ already: 3 })}` })
    expect(screen.stdout.split('\n').slice(1, 4)).toEqual(ids.map((id) => `${id}  already_cancelled`))
    // Off a terminal without --yes: nothing to confirm, so no refusal.
    expect(piped).toMatchObject({
      code: 0,
      stderr: `Already cancelled, nothing to do: ${ids[0]}.\nLooked up 1: 0 to cancel, 1 already cancelled, 0 not found.\n${summary({ already: 1 })}`,
    })
    expect(JSON.parse(piped.stdout)).toEqual([expected(ids[0], 'already')])
    expect(dry).toMatchObject({ code: 0, stderr: `${already}Dry run: nothing was changed.\n` })
    expect(JSON.parse(dry.stdout)).toMatchObject({ ids: [], already_cancelled: ids })
    expect(recorder.requests.map((r) => r.method)).toEqual(Array(7).fill('GET'))
  })

  test('a --dry-run of more than 20 ids looks each one up and says what 5 would: to cancel, already, not found, the money', async () => {
    const seeded = await seedSubscriptions(sandbox, 22, { prefix: 'dry25' })
    await cancelDirectly(sandbox, seeded.slice(0, 10))
    const gone = [unknownId(901), unknownId(902), unknownId(903)]
    const ids = [...seeded, ...gone]
    const recorder = await proxy()
    const [many, few] = await Promise.all([
      pay(['subs', 'cancel', ...ids, '--dry-run'], { baseUrl: recorder.baseUrl }),
      pay(['subs', 'cancel', seeded[0], seeded[10], seeded[11], gone[0], '--dry-run'], {
        baseUrl: recorder.baseUrl,
      }),
    ])
    const fresh = seeded.slice(10)
    expect(many).toMatchObject({
      code: 0,
      stdout: '',
      stderr: [
        `Warning: Not found, left out: ${gone.join(', ')}.`,
        `Already cancelled, nothing to do: ${seeded.slice(0, 10).join(', ')}.`,
        'About to cancel 12 subscriptions:',
        '  profile:  (environment)',
        `  base URL: ${recorder.baseUrl}`,
        `  ids:      ${fresh.join(', ')}`,
        '  looked up 25: 12 to cancel, 10 already cancelled, 3 not found',
        "  total:    1440.00 USD (the packages' prices)",
        'Dry run: nothing was changed.',
        '',
      ].join('\n'),
    })
    expect(few).toMatchObject({
      code: 0,
      stderr: [
        `Warning: Not found, left out: ${gone[0]}.`,
        `Already cancelled, nothing to do: ${seeded[0]}.`,
        'About to cancel 2 subscriptions:',
        '  profile:  (environment)',
        `  base URL: ${recorder.baseUrl}`,
        `  ${seeded[10]}  dry2510@example.com · Starter · 120.00 USD  [created]`,
        `  ${seeded[11]}  dry2511@example.com · Starter · 120.00 USD  [created]`,
        '  looked up 4: 2 to cancel, 1 already cancelled, 1 not found',
        "  total:    240.00 USD (the packages' prices)",
        'Dry run: nothing was changed.',
        '',
      ].join('\n'),
    })
    // Reads only: one GET per id, nothing changed.
    expect(recorder.requests.map((r) => r.method)).toEqual(Array(29).fill('GET'))
  })

  test('among others: only the others are planned and asked about', async () => {
    const [fresh, done] = await seedSubscriptions(sandbox, 2, { prefix: 'mixed' })
    await cancelDirectly(sandbox, [done])
    const result = await runInProcess(['subs', 'cancel', fresh, done], {
      env: sandbox.env,
      terminal: true,
      colour: false,
      width: 200,
      answers: [true],
    })
    expect(result.io.asked).toEqual(['Cancel 1 subscription?'])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(
      `Already cancelled, nothing to do: ${done}.\nAbout to cancel 1 subscription:\n`,
    )
    expect(result.stderr).toContain(`  ${fresh}  mixed0@example.com · Starter · 120.00 USD  [created]\n`)
    expect(result.stderr).not.toContain(`  ${done}  `)
    expect(result.stderr).toContain(summary({ cancelled: 1, already: 1 }))
  })
})

describe.concurrent('Ctrl-C half-way', () => {
  test('on a terminal the ids never attempted are one row, counted; TSV, --json and the report keep each', async () => {
    const ids = await seedSubscriptions(sandbox, 60, { prefix: 'ctrlc' })
    const run = async (flags: string[], terminal: boolean) => {
      let io: TestIO | undefined
      let puts = 0
      // Ctrl-C once the 10th cancellation reaches the service: those in flight finish, no new one starts.
      const slow = await proxy((request) => {
        if (request.method === 'PUT' && ++puts === 10) io?.interrupt()
        return { delayMs: 10 }
      })
      const result = await runInProcess(['subs', 'cancel', ...ids, '--yes', '--concurrency', '2', ...flags], {
        env: { ...sandbox.env, PAY_BASE_URL: slow.baseUrl },
        terminal,
        colour: false,
        width: 200,
        started: (started) => {
          io = started
        },
      })
      expect(result.code).toBe(130)
      return result
    }
    const report = path.join(dir, 'ctrlc.csv')
    const [screen, piped] = await Promise.all([run(['--report', report], true), run(['--json'], false)])

    const table = screen.stdout.trimEnd().split('\n')
    const done = table.filter((line) => / cancelled$/.test(line) || / already_cancelled$/.test(line)).length
    expect(done).toBeGreaterThanOrEqual(10)
    expect(table).toEqual([
      expect.stringMatching(/^ID +RESULT +ERROR$/),
      ...Array(done).fill(expect.stringMatching(/^[0-9a-f]{24} +(already_)?cancelled$/)),
      `(${60 - done} ids)${' '.repeat(26 - `(${60 - done} ids)`.length)}not_done   Not attempted: the run stopped before them (--json and the report list each).`,
    ])
    expect(screen.stderr).toContain(`${60 - done} not cancelled (${60 - done} not done).\n`)
    const rows = parseCsv(fs.readFileSync(report, 'utf8')).rows
    expect(rows.map((row) => row.id)).toEqual(ids)
    expect(rows.filter((row) => row.status === 'not_done')).toHaveLength(60 - done)

    const results = JSON.parse(piped.stdout) as BulkJson[]
    expect(results.map((r) => r.id)).toEqual(ids)
    const notDone = results.filter((r) => r.status === 'not_done')
    expect(notDone.length).toBeGreaterThan(NOT_DONE_SHOWN)
    for (const r of notDone) expect(r.error).toBe('Not attempted: the run stopped before it.')
  })
})

describe.concurrent('--resume of a run killed before its end', () => {
  /** A run that ended after Ctrl-C (its report names every id), then its resume killed: no closing mark. */
  async function killedResume(ids: string[], name: string) {
    const report = path.join(dir, name)
    let io: TestIO | undefined
    let puts = 0
    const slow = await proxy((request) => {
      if (request.method === 'PUT' && ++puts === 5) io?.interrupt()
      return { delayMs: 5 }
    })
    const env = { ...sandbox.env, PAY_BASE_URL: slow.baseUrl }
    const first = await runInProcess(
      ['subs', 'cancel', ...ids, '--yes', '--concurrency', '1', '--report', report],
      {
        env,
        started: (started) => {
          io = started
        },
      },
    )
    expect(first.code).toBe(130)
    // What a kill -9 of `--resume` leaves: the report rewritten whole as it opened, the meta without its closing mark.
    const meta = JSON.parse(fs.readFileSync(`${report}.meta.json`, 'utf8'))
    const { finished_at: _f, outcome: _o, counts: _c, ...open } = meta
    fs.writeFileSync(`${report}.meta.json`, JSON.stringify(open))
    return { report, env, slow }
  }

  test('a report that names every id of its input is resumed from alone, saying so; every id ends cancelled', async () => {
    const ids = await seedSubscriptions(sandbox, 30, { prefix: 'killedresume' })
    const { report, env } = await killedResume(ids, 'killed-resume.csv')
    const resumed = await runInProcess(['subs', 'cancel', '--resume', report, '--yes', '--json'], { env })
    expect(resumed.code).toBe(0)
    expect(resumed.stderr).toContain(
      `The run in ${report} did not end (it was stopped before it could close its report), but the report names every one of its 30 ids: resuming from the report alone.\n`,
    )
    const statuses = await serverStatuses(sandbox)
    expect(ids.map((id) => statuses.get(id))).toEqual(ids.map(() => 'cancel'))
    expect(parseCsv(fs.readFileSync(report, 'utf8')).rows.map((row) => [row.id, row.status])).toEqual(
      ids.map((id) => [id, 'cancelled']),
    )
    expect(JSON.parse(fs.readFileSync(`${report}.meta.json`, 'utf8'))).toMatchObject({
      input: { source: 'ID…', count: 30 },
      outcome: 'done',
    })
  })

  test('a report that lacks ids of its input is refused, saying how many it names, and nothing is sent', async () => {
    const ids = await seedSubscriptions(sandbox, 30, { prefix: 'killedshort' })
    const { report, env, slow } = await killedResume(ids, 'killed-short.csv')
    // A run killed before it reached them all: the last rows never written.
    const lines = fs.readFileSync(report, 'utf8').split('\n')
    fs.writeFileSync(report, `${lines.slice(0, 21).join('\n')}\n`)
    const sent = slow.requests.length
    const refused = await runInProcess(['subs', 'cancel', '--resume', report, '--yes'], { env })
    expect(refused).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        `Error: The run in ${report} did not end (it was stopped before it could close its report), and the report names 20 of its 30 ids; give the input again: ID… --resume ${report}\n` +
        'Without them pay cannot tell which ids that run never reached.\n',
    })
    expect(slow.requests.length).toBe(sent)
  })
})

describe.concurrent('--concurrency', () => {
  test('bounds the requests in flight: at most N at once, and N reached', async () => {
    const ids = await seedSubscriptions(sandbox, 72, { prefix: 'conc' })
    const runs = [
      { ids: ids.slice(0, 24), flags: ['--concurrency', '3'], bound: 3 },
      { ids: ids.slice(24, 48), flags: [], bound: 4 },
      { ids: ids.slice(48), flags: ['--concurrency', '9'], bound: 9 },
    ]
    // One run at a time: in one process, three at once could keep each other from reaching N.
    const results: { result: CliResult; slow: Awaited<ReturnType<typeof proxy>> }[] = []
    for (const run of runs) {
      const slow = await proxy(() => ({ gatherInFlight: run.bound, delayMs: 40 }))
      const result = await pay(['subs', 'cancel', ...run.ids, ...run.flags, '--yes', '--json'], {
        baseUrl: slow.baseUrl,
      })
      results.push({ result, slow })
    }
    results.forEach(({ result, slow }, i) => {
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual(runs[i].ids.map((id) => expected(id, 'cancelled')))
      expect(slow.requests).toHaveLength(48)
      expect(slow.maxInFlight).toBe(runs[i].bound)
    })
    const statuses = await serverStatuses(sandbox)
    for (const id of ids) expect(statuses.get(id)).toBe('cancel')
  })

  test('out of range: exit 2', async () => {
    const result = await pay(['subs', 'cancel', unknownId(9), '--concurrency', '0', '--yes'])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/^Error: --concurrency: Expected an integer greater than or equal to 1/)
  })
})

describe('files planted by someone else', () => {
  test('a hard link at --report FILE (--force, --append) or at the journal: the file it links to gets no row', async () => {
    const where = tempDir('pay-subs-cancel-planted-')
    const [id, another] = await seedSubscriptions(sandbox, 2, { prefix: 'planted' })
    const report = path.join(where, 'report.csv')
    const journal = path.join(where, 'journal.jsonl')
    const theirs = path.join(where, 'theirs.csv')
    const env = { ...sandbox.env, PAY_BASE_URL: sandbox.baseUrl, PAY_JOURNAL_FILE: journal }
    for (const flag of ['--force', '--append']) {
      fs.writeFileSync(theirs, 'id,ok,status,error\n')
      fs.writeFileSync(journal, '')
      fs.rmSync(report, { force: true })
      fs.linkSync(theirs, report)
      const run = await runInProcess(['subs', 'cancel', id, '--yes', '--report', report, flag], { env })
      expect(run.code).toBe(0)
      expect(fs.readFileSync(theirs, 'utf8')).toBe('id,ok,status,error\n')
      expect(fs.statSync(report).nlink).toBe(1)
      expect(fs.readFileSync(report, 'utf8')).toMatch(new RegExp(`^id,ok,status,error.*\\n${id},true,`))
    }
    // The journal: a warning, the change goes on, the other name's file gets nothing.
    fs.rmSync(journal)
    fs.linkSync(theirs, journal)
    const before = fs.readFileSync(theirs, 'utf8')
    const run = await runInProcess(['subs', 'cancel', another, '--yes'], { env })
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(
      `Warning: Could not write the journal ${journal} (another name links to the same file); the changes of this run go unrecorded.`,
    )
    expect(fs.readFileSync(theirs, 'utf8')).toBe(before)
    // A symbolic link at --report is refused before anything is sent.
    const link = path.join(where, 'link.csv')
    fs.symlinkSync(theirs, link)
    const refused = await runInProcess(['subs', 'cancel', id, '--yes', '--report', link, '--force'], { env })
    expect(refused).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `Error: --report: ${link} is a symbolic link (pay does not follow one).\nNothing was written. Give the path of the file itself.\n`,
    })
    expect(fs.readFileSync(theirs, 'utf8')).toBe(before)
  })
})

describe('the sandbox stops mid-run, and another program takes its port', () => {
  const KEY = 'sk_live_cancel_squatter_canary_77aa66bb'

  test('the run stops at the first new connection that cannot prove it, which is sent no key (exit 6)', async () => {
    const where = tempDir('pay-cancel-squatted-')
    const own = await startSandbox({ dir: where, keys: [SANDBOX_KEY, KEY], port: 0 })
    const port = new URL(own.baseUrl).port
    let squatter: FakeServer | undefined
    try {
      const client = clientFor(own.baseUrl, KEY)
      const packageId = own.packages[KEY][0]._id
      const ids: string[] = []
      for (let i = 0; i < 20; i++) {
        const made = await client.call('POST', '/subscriptions', {
          package_id: packageId,
          email: `s${i}@example.com`,
        })
        ids.push(made.json.data._id)
      }
      // Slow enough to stop it part-way.
      own.faults.set(['PUT /subscriptions/* latency=150ms'])
      const env = { PAY_SANDBOX_DIR: where, PAY_SANDBOX_PORT: port, PAY_API_KEY: KEY }
      const running = runInProcess(
        ['-p', 'sandbox', 'subs', 'cancel', ...ids, '--yes', '--concurrency', '1'],
        {
          env,
        },
      )
      const puts = () => own.requests({ key: KEY }).filter((r) => r.method === 'PUT').length
      while (puts() < 3) await new Promise((resolve) => setTimeout(resolve, 20))
      await own.close()
      squatter = await startFakeServer(
        (request, res) =>
          request.path.startsWith('/_sandbox/health')
            ? sendJson(res, 200, { service: 'pay-sandbox', proof: '0'.repeat(64) }, { 'x-pay-sandbox': '1' })
            : sendJson(res, 200, { success: true, data: { _id: 'x', status: 'cancel' } }),
        { port: Number(port) },
      )
      const result = await running
      expect(result.code).toBe(6)
      // Each id once, in order: those done, the one whose new connection could not prove it, the rest not tried.
      const rows = result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t'))
      const done = rows.filter((row) => row[1] === 'cancelled').length
      expect(done).toBeGreaterThanOrEqual(3)
      expect(rows.map((row) => row[0])).toEqual(ids)
      expect(rows.map((row) => row[1])).toEqual([
        ...Array(done).fill('cancelled'),
        'failed',
        ...Array(20 - done - 1).fill('not_done'),
      ])
      expect(rows[done][2]).toMatch(/^http:\/\/127\.0\.0\.1:\d+ is no longer your sandbox: /)
      expect(result.stderr).toContain(
        `Of 20 subscriptions: ${done} cancelled, 0 already cancelled, ${20 - done} not cancelled (1 failed, ${20 - done - 1} not done).\n`,
      )
      expect(result.stderr).toContain(
        `Nothing was sent on it. ${20 - done - 1} of 20 subscriptions were not tried.\n`,
      )
      expect(result.stderr).toContain(
        `Error: Stopped: http://127.0.0.1:${port} is no longer your sandbox: a new connection to it could not prove it keeps its store in your PAY_SANDBOX_DIR`,
      )
      expect(result.stderr).toContain(
        'Start your sandbox again (`pay sandbox start`) and run the command again. --resume REPORT skips what was done.\n',
      )
      expect(
        squatter.requests.map((r) => [
          r.method,
          r.path.replace(/=[0-9a-f]{64}$/, '=C'),
          r.headers.authorization,
        ]),
      ).toEqual([['GET', '/_sandbox/health?challenge=C', undefined]])
      expect(JSON.stringify(squatter.requests)).not.toContain(KEY)
    } finally {
      await squatter?.close()
      await own.close()
    }
  })
})
