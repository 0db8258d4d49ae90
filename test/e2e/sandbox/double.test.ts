import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { startCli } from '../../helpers/child.js'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { killStarted, type SandboxProcess, startSandboxProcess } from '../../helpers/processes.js'
import { type Client, clientFor, ISO_TIMESTAMP, OBJECT_ID } from '../../helpers/sandbox.js'

/**
 * The sandbox as a test double, end to end: a real `pay sandbox start`
 * with --fault rules in a process of its own, and pay's own commands (the real bin/run.js, the
 * built-in "sandbox" profile pointed at it by PAY_SANDBOX_PORT, the same PAY_SANDBOX_DIR so that
 * the server proves it is the user's own) against it: pay's retries, its "may have been created"
 * path, 429's Retry-After and --timeout as a user's app would meet them; `pay sandbox faults`,
 * `pay sandbox requests` and `pay sandbox pay --outcome` as a user would type them.
 */

const SEED = 7
let server: SandboxProcess
let dir: string
let env: Record<string, string>
let api: Client

beforeAll(async () => {
  dir = tempDir('pay-double-store-')
  server = await startSandboxProcess(
    [
      BIN,
      'sandbox',
      'start',
      '--port',
      '0',
      '--json',
      '--fault',
      'GET /payment-links 503 x2',
      '--fault',
      'POST /payment-links reset after x1',
      '--fault-seed',
      String(SEED),
    ],
    cleanEnv({ PAY_SANDBOX_DIR: dir }),
  )
  env = { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: new URL(server.baseUrl).port }
  api = clientFor(server.baseUrl, server.key)
})

afterAll(killStarted)

const pay = (args: string[], timeoutMs?: number) => runCli(args, { env, timeoutMs })
const LINK_FLAGS = [
  '--email',
  'jane@example.com',
  '--currency',
  'EUR',
  '--amount',
  '25.50',
  '--title',
  'Invoice 7',
]

/** What the sandbox journal holds for the key's business, newest last. */
async function journal(): Promise<Array<Record<string, unknown>>> {
  const answer = await api.call('GET', '/_sandbox/requests')
  expect(answer.status).toBe(200)
  return answer.json.data
}

const lastSeq = async () => ((await journal()).at(-1)?.seq as number | undefined) ?? 0

/** The journal entries after `seq`, as `METHOD PATH STATUS FAULT`. */
async function sentAfter(seq: number): Promise<string[]> {
  return (await journal())
    .filter((r) => (r.seq as number) > seq)
    .map((r) => `${r.method} ${r.path} ${r.status} ${r.fault ?? '-'}`)
}

describe('faults from `pay sandbox start --fault`, met by pay’s own commands', () => {
  // These two run first, in order: they use up the rules the sandbox started with.
  test('the sandbox says the rules and the seed it starts with', async () => {
    // Said on stderr just after the JSON line on stdout.
    await until(() => server.stderr().includes('Fault rules'))
    expect(server.stderr()).toContain(
      `Fault rules (seed ${SEED}):\n  GET /payment-links 503 x2\n  POST /payment-links reset x1 after\n`,
    )
  })

  test('GET /payment-links 503 x2: pay retries and succeeds; the request log marks the faulted ones', async () => {
    const listed = await pay(['-p', 'sandbox', 'links', 'list', '--json'])
    expect(listed).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(listed.stdout)).toEqual([])
    expect(await sentAfter(0)).toEqual([
      'GET /payment-links 503 503 x2',
      'GET /payment-links 503 503 x2',
      'GET /payment-links 200 -',
    ])
    expect(server.stderr()).toMatch(/ GET \/payment-links 503 [\d.]+ ms fault: 503 x2\n/)
    expect(server.stderr()).toMatch(/ GET \/payment-links 200 [\d.]+ ms\n/)
  })

  test('POST /payment-links reset after: pay says the link may have been created; it exists once', async () => {
    const before = await lastSeq()
    const made = await pay(['-p', 'sandbox', 'links', 'create', ...LINK_FLAGS])
    expect(made.code).toBe(6)
    expect(made.stdout).toBe('')
    const key = made.stderr.match(/Idempotency-Key ([0-9a-f-]{36})/)?.[1]
    expect(key).toBeDefined()
    expect(made.stderr).toBe(
      `Error: Could not reach ${server.baseUrl}: the connection was reset.\n` +
        `The payment link may have been created all the same (Idempotency-Key ${key}).\n` +
        `To send this very request again, add --idempotency-key ${key}.\n`,
    )
    // Acted, then lost the answer: the sandbox holds the link, once (no retry of a POST).
    const sent = (await journal()).filter((r) => (r.seq as number) > before)
    expect(sent).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/payment-links',
        status: null,
        idempotency_key: key,
        fault: 'reset x1 after',
      }),
    ])
    const links = (await api.call('GET', '/payment-links')).json.data.data
    expect(links.map((l: { title: string }) => l.title)).toEqual(['Invoice 7'])
    // Sending it again with the key the error gave answers the same link, not a second one.
    const again = await pay([
      '-p',
      'sandbox',
      'links',
      'create',
      ...LINK_FLAGS,
      '--idempotency-key',
      key!,
      '--json',
    ])
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)._id).toBe(links[0]._id)
    expect((await api.call('GET', '/payment-links')).json.data.data).toHaveLength(1)
  })
})

describe('pay sandbox faults set | list | clear', () => {
  beforeEach(async () => {
    expect((await pay(['sandbox', 'faults', 'clear'])).code).toBe(0)
  })

  test('set prints the rules (TSV piped) and says where and with which seed; list shows what they did', async () => {
    const set = await pay([
      'sandbox',
      'faults',
      'set',
      'GET /payment-links/* 429 x1',
      '* /payment-links 500 20%',
    ])
    expect(set).toMatchObject({
      code: 0,
      stdout: 'GET /payment-links/* 429 x1\t0\t0\t1\n* /payment-links 500 20%\t0\t0\t\n',
      stderr: `2 fault rules set in the sandbox at ${server.baseUrl} (seed ${SEED}).\n`,
    })
    const piped = await pay(['sandbox', 'faults', 'list'])
    expect(piped).toMatchObject({ code: 0, stdout: set.stdout })
    expect(piped.stderr).toBe(`Seed ${SEED} (the sandbox at ${server.baseUrl}).\n`)
    const listed = await pay(['sandbox', 'faults', 'list', '--json'])
    expect(listed).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(listed.stdout)).toEqual([
      {
        rule: 'GET /payment-links/* 429 x1',
        method: 'GET',
        path: '/payment-links/*',
        effect: '429',
        when: 'x1',
        after: false,
        matched: 0,
        faulted: 0,
        remaining: 1,
      },
      {
        rule: '* /payment-links 500 20%',
        method: '*',
        path: '/payment-links',
        effect: '500',
        when: '20%',
        after: false,
        matched: 0,
        faulted: 0,
        remaining: null,
      },
    ])
  })

  test('clear removes them: list is empty, --json prints []', async () => {
    expect((await pay(['sandbox', 'faults', 'set', 'GET /payment-links 503'])).code).toBe(0)
    const cleared = await pay(['sandbox', 'faults', 'clear', '--json'])
    expect(cleared).toMatchObject({
      code: 0,
      stdout: '[]\n',
      stderr: `No fault rules in the sandbox at ${server.baseUrl} now.\n`,
    })
    expect(await pay(['sandbox', 'faults', 'list'])).toMatchObject({ code: 0, stdout: '', stderr: '' })
    expect((await pay(['-p', 'sandbox', 'links', 'list', '--json'])).code).toBe(0)
  })

  test('a bad rule: exit 2 naming what is wrong in which rule; the rules in place are kept', async () => {
    expect((await pay(['sandbox', 'faults', 'set', 'GET /payment-links 503 x1'])).code).toBe(0)
    const bad = await pay(['sandbox', 'faults', 'set', 'GET /payment-links 503', 'GET /x 999'])
    expect(bad).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: 999 is not a status a fault can answer: give one from 400 to 599 (in "GET /x 999").\n' +
        'A rule is METHOD PATH EFFECT [xN|P%] [after], e.g. "POST /payment-links 503 x2".\n',
    })
    const listed = await pay(['sandbox', 'faults', 'list', '--json'])
    expect(JSON.parse(listed.stdout).map((r: { rule: string }) => r.rule)).toEqual([
      'GET /payment-links 503 x1',
    ])
  })

  test('429 x1: pay waits the Retry-After the sandbox sent, then succeeds', async () => {
    const id = (
      await api.call('POST', '/payment-links', { email: 'a@b.co', currency: 'EUR', amount: '5', title: 'T' })
    ).json.data._id
    expect((await pay(['sandbox', 'faults', 'set', 'GET /payment-links/* 429 x1'])).code).toBe(0)
    const before = await lastSeq()
    const got = await pay(['-p', 'sandbox', 'links', 'get', id, '--json', '--debug'])
    expect(got.code).toBe(0)
    expect(JSON.parse(got.stdout)._id).toBe(id)
    // The trace shows the header and the wait it asked for (1 s), not pay's own backoff.
    expect(got.stderr).toContain('< retry-after: 1\n')
    expect(got.stderr).toMatch(/retrying in 1000 ms \(attempt 2 of \d+\)/)
    expect(await sentAfter(before)).toEqual([
      `GET /payment-links/${id} 429 429 x1`,
      `GET /payment-links/${id} 200 -`,
    ])
  })

  test('latency longer than --timeout: pay gives up with exit 6 and says how to wait longer', async () => {
    expect((await pay(['sandbox', 'faults', 'set', 'GET /payment-links latency=3s x1'])).code).toBe(0)
    const slow = await pay(['-p', 'sandbox', 'links', 'list', '--timeout', '1'])
    expect(slow).toMatchObject({
      code: 6,
      stdout: '',
      stderr:
        `Error: No answer from ${server.baseUrl} within 1 s.\n` +
        'Raise the limit with --timeout SECONDS (or PAY_TIMEOUT) if the service is just slow.\n',
    })
    // With room for the delay, the same command goes through (the rule was used up by then).
    expect((await pay(['-p', 'sandbox', 'links', 'list', '--json'])).code).toBe(0)
  })

  test('a seeded 20% rule faults the same requests when set again with the same seed', async () => {
    const run = async () => {
      expect(
        (await pay(['sandbox', 'faults', 'set', 'GET /payment-links/nope 503 20%', '--seed', '42'])).code,
      ).toBe(0)
      const statuses: number[] = []
      for (let i = 0; i < 20; i++) statuses.push((await api.call('GET', '/payment-links/nope')).status)
      return statuses
    }
    const first = await run()
    expect(new Set(first)).toEqual(new Set([404, 503]))
    expect(await run()).toEqual(first)
  })

  test('without a running sandbox: exit 6 saying how to start one', async () => {
    const none = await runCli(['sandbox', 'faults', 'list'], {
      env: { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1' },
    })
    expect(none).toMatchObject({
      code: 6,
      stdout: '',
      stderr:
        'Error: No sandbox of yours is running at http://127.0.0.1:1.\n' +
        '`pay sandbox faults list` acts on a running sandbox: start one with `pay sandbox start` ' +
        '(or point at yours with --base-url or PAY_SANDBOX_PORT).\n',
    })
  })
})

describe('pay sandbox requests', () => {
  test('--json --limit N: the newest N, with the body redacted and the Idempotency-Key', async () => {
    await pay(['sandbox', 'faults', 'clear'])
    const made = await api.call(
      'POST',
      '/payment-links',
      {
        email: 'card@example.com',
        currency: 'EUR',
        amount: '9',
        title: 'Paid by 4242 4242-4242 4242',
        secret: 'x',
      },
      { 'Idempotency-Key': 'order-1042' },
    )
    expect(made.status).toBe(200)
    await api.call('GET', `/payment-links/${made.json.data._id}`)
    const shown = await pay(['sandbox', 'requests', '--json', '--limit', '2'])
    expect(shown).toMatchObject({ code: 0, stderr: '' })
    const [post, get] = JSON.parse(shown.stdout)
    expect(JSON.parse(shown.stdout)).toHaveLength(2)
    expect(post).toEqual({
      seq: expect.any(Number),
      time: expect.stringMatching(ISO_TIMESTAMP),
      method: 'POST',
      path: '/payment-links',
      status: 200,
      ms: expect.any(Number),
      idempotency_key: 'order-1042',
      body: {
        email: 'card@example.com',
        currency: 'EUR',
        amount: '9',
        title: 'Paid by [REDACTED]',
        secret: '[REDACTED]',
      },
      fault: null,
    })
    expect(get).toMatchObject({
      seq: post.seq + 1,
      method: 'GET',
      status: 200,
      body: null,
      idempotency_key: null,
    })
    expect(get.path).toMatch(new RegExp(`^/payment-links/${OBJECT_ID.source.slice(1, -1)}$`))
    // The key never shows (runCli checks every output for it too).
    expect(shown.stdout).not.toContain(server.key)
  })

  test('--follow --json: one line per new request as it comes; SIGINT stops it with 130', async () => {
    const follow = startCli(['sandbox', 'requests', '--follow', '--json', '--limit', '1'], { env })
    const lines = () => follow.stdout.split('\n').filter(Boolean)
    await until(() => lines().length === 1)
    const firstSeq = JSON.parse(lines()[0]).seq
    await api.call('GET', '/payment-links/aaaaaaaaaaaaaaaaaaaaaaaa')
    await until(() => lines().length === 2)
    await api.call('DELETE', '/payment-links/aaaaaaaaaaaaaaaaaaaaaaaa')
    await until(() => lines().length === 3)
    expect(
      lines()
        .map((l) => JSON.parse(l))
        .map((r) => [r.seq, r.method, r.status]),
    ).toEqual([
      [firstSeq, expect.any(String), expect.any(Number)],
      [firstSeq + 1, 'GET', 404],
      [firstSeq + 2, 'DELETE', 404],
    ])
    follow.child.kill('SIGINT')
    const done = await follow.done
    expect(done.code).toBe(130)
    // Under --json the stop is said as every error is, as JSON on stderr.
    expect(JSON.parse(done.stderr)).toEqual({
      error: { status: null, kind: 'cancelled', exit_code: 130, message: 'Stopped following.' },
    })
  })

  test('--follow on a terminal-less pipe without --json: TSV lines, the note on stderr', async () => {
    const follow = startCli(['sandbox', 'requests', '--follow', '--limit', '1'], { env })
    await until(() => follow.stderr.includes('Ctrl-C stops'))
    await api.call('GET', '/payment-links/bbbbbbbbbbbbbbbbbbbbbbbb')
    await until(() => follow.stdout.includes('bbbbbbbbbbbbbbbbbbbbbbbb'))
    follow.child.kill('SIGINT')
    const done = await follow.done
    expect(done.code).toBe(130)
    const lines = done.stdout.split('\n').filter(Boolean)
    expect(lines).toHaveLength(2)
    expect(lines[1].split('\t').slice(2, 5)).toEqual([
      'GET',
      '/payment-links/bbbbbbbbbbbbbbbbbbbbbbbb',
      '404',
    ])
    expect(done.stderr).toBe(
      `Following new requests to the sandbox at ${server.baseUrl}; Ctrl-C stops.\nStopped following.\n`,
    )
  })
})

describe('pay sandbox pay --outcome', () => {
  const create = async (fields: Record<string, string> = {}) =>
    (
      await api.call('POST', '/payment-links', {
        email: 'a@b.co',
        currency: 'EUR',
        amount: '5',
        title: 'T',
        ...fields,
      })
    ).json.data

  test.each([
    ['pending', 2, 'pending'],
    ['cancelled', undefined, ''],
    ['failed', 3, 'failed'],
  ] as const)(
    '%s --json: the link, still unpaid, and where the customer goes',
    async (outcome, status, message) => {
      const link = await create({ redirect_url: 'https://shop.example/done?order=7', reference: 'R-7' })
      const settled = await pay(['sandbox', 'pay', link._id, '--outcome', outcome, '--json'])
      expect(settled).toMatchObject({ code: 0, stderr: '' })
      const answer = JSON.parse(settled.stdout)
      const back = `https://shop.example/done?order=7&id=${link._id}&status=${outcome}`
      // A cancel is no attempt: id and status alone; pending and failed add what the attempt told.
      const told =
        status === undefined
          ? ''
          : '&attempt_id=[0-9a-f]{24}&payment_id=[0-9a-f]{24}' +
            '&payment_time=\\d{2}-\\d{2}-\\d{4}\\+\\d{2}%3A\\d{2}%3A\\d{2}\\+[ap]m&payment_amount=500' +
            `&payment_status=${status}&payment_link_id=${link._id}&payment_link_reference=R-7` +
            `&payment_link_reference_2=&payment_message=Payment\\+${message}&payment_currency=EUR`
      expect(answer).toEqual({
        outcome,
        link: expect.objectContaining({ _id: link._id, paid: false, status: 'Active' }),
        redirect_to: expect.stringMatching(new RegExp(`^${back.replace(/[.?+]/g, '\\$&')}${told}$`)),
      })
      expect((await api.call('GET', `/payment-links/${link._id}`)).json.data.paid).toBe(false)
    },
  )

  test('failed without a redirect_url: redirect_to null, and the message says what the customer sees', async () => {
    const link = await create()
    const json = await pay(['sandbox', 'pay', link._id, '--outcome', 'failed', '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({
      outcome: 'failed',
      redirect_to: null,
      link: { paid: false },
    })
    const text = await pay(['sandbox', 'pay', link._id, '--outcome', 'cancelled'])
    expect(text.code).toBe(0)
    expect(text.stderr).toBe(
      `Cancelled through the sandbox at ${server.baseUrl}: payment link ${link._id} stays unpaid.\n` +
        "It has no redirect_url: the customer would see the sandbox's page saying so.\n",
    )
    expect(text.stdout).toContain(`_id\t${link._id}\n`)
    expect(text.stdout).toContain('paid\tfalse\n')
  })

  test('a bad outcome is a usage error (exit 2)', async () => {
    const link = await create()
    const bad = await pay(['sandbox', 'pay', link._id, '--outcome', 'refunded'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('refunded')
    expect((await api.call('GET', `/payment-links/${link._id}`)).json.data.paid).toBe(false)
  })
})

/** Polls `check` until it holds (the test's own timeout bounds it). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50))
}
