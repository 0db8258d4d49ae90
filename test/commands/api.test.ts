import fs from 'node:fs'
import net, { type AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest'
import { tempDir } from '../helpers/cli.js'
import { envelope } from '../helpers/fake-server.js'
import {
  CANARY_KEY,
  cutOff,
  expectNoStack,
  type Handler,
  hang,
  json,
  noContent,
  payRunner,
  raw,
  redirect,
  reset,
  serve,
} from '../helpers/fault-server.js'
import { runInProcess } from '../helpers/in-process.js'
import { type Json, seedLink } from '../helpers/links.js'
import { OBJECT_ID, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'

describe('against a sandbox', () => {
  /** `pay api` end to end against a real sandbox, stdout piped (compact JSON). */

  let sandbox: TestSandbox
  let journal: string

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    journal = path.join(tempDir('pay-api-journal-'), 'journal.jsonl')
  })
  afterAll(() => sandbox.close())

  const pay = (args: string[], input?: string) =>
    runInProcess(['api', ...args], { env: { ...sandbox.env, PAY_JOURNAL_FILE: journal }, input })

  const CREATE = [
    '-f',
    'email=jane@example.com',
    '-f',
    'currency=EUR',
    '-f',
    'amount=25.50',
    '-f',
    'title=Invoice 1042',
  ]

  describe('pay api', () => {
    test('a POST with -f fields creates, and prints the answer as it came, compact when piped', async () => {
      const result = await pay(['/payment-links', ...CREATE])
      expect(result).toMatchObject({ code: 0, stderr: '' })
      expect(result.stdout.endsWith('}\n')).toBe(true)
      expect(result.stdout.trimEnd().split('\n')).toHaveLength(1)
      const answer = JSON.parse(result.stdout)
      expect(answer).toMatchObject({
        success: true,
        data: {
          email: 'jane@example.com',
          currency: 'EUR',
          amount: 25.5,
          title: 'Invoice 1042',
          status: 'Active',
        },
      })
      expect(answer.data._id).toMatch(OBJECT_ID)
      // What the sandbox holds, and what the journal says was sent (never the body).
      expect((await sandbox.request('GET', `/payment-links/${answer.data._id}`)).body.data.title).toBe(
        'Invoice 1042',
      )
      const entries = fs
        .readFileSync(journal, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .slice(-2)
      expect(entries.map((e) => [e.phase, e.command, e.method, e.path, e.resource, e.status])).toEqual([
        ['intent', 'pay api', 'POST', '/payment-links', 'payment link', undefined],
        ['outcome', 'pay api', 'POST', '/payment-links', 'payment link', 200],
      ])
      expect(entries[1].id).toBeUndefined()
      expect(entries[0].idempotency_key).toMatch(/^[0-9a-f-]{36}$/)
    })

    test('GET is the default; a path without its slash is under the base URL; --jq shapes the answer', async () => {
      const link = await seedLink(sandbox, { title: 'Shaped' })
      const result = await pay([`payment-links/${link._id}`, '--jq', '.data | [.title, .amount, .paid]'])
      expect(result).toEqual({ code: 0, signal: null, stdout: '["Shaped",10,false]\n', stderr: '' })
      const raw = await pay([`/payment-links/${link._id}`, '--jq', '.data.title'])
      expect(raw.stdout).toBe('Shaped\n')
    })

    test('a 404 exits 5 and still prints the body; the message goes to stderr', async () => {
      const result = await pay(['/payment-links/65a1f0c2e4b0a1b2c3d4e5f6'])
      expect(result).toEqual({
        code: 5,
        signal: null,
        stdout: '{"message":"Payment link not found."}\n',
        stderr: 'Error: Payment link not found.\n',
      })
      // With --json the error is JSON on stderr too.
      const json = await pay(['/nowhere', '--json'])
      expect(json.code).toBe(5)
      expect(json.stdout).toBe('{"message":"Not found."}\n')
      expect(JSON.parse(json.stderr)).toEqual({
        error: { status: 404, kind: 'not_found', exit_code: 5, message: 'Not found.' },
      })
    })

    test('a 422 exits 3 with the body on stdout and each field under its name as sent', async () => {
      const result = await pay(['/payment-links', '-f', 'email=jane@example.com', '-F', 'amount=true'])
      expect(result.code).toBe(3)
      expect(JSON.parse(result.stdout)).toEqual({
        message: 'The given data was invalid.',
        errors: {
          currency: ['The currency field is required.'],
          amount: ['The amount must be a string or a number.'],
          title: ['The title field is required.'],
        },
      })
      expect(result.stderr).toBe(
        'Error: The given data was invalid.\n' +
          '  currency  The currency field is required.\n' +
          '  amount    The amount must be a string or a number.\n' +
          '  title     The title field is required.\n',
      )
    })

    test('-X PUT with a field changes a subscription; -i shows status and headers on stderr', async () => {
      const created = await sandbox.request('POST', '/subscriptions', {
        package_id: sandbox.packageIds[0],
        email: 'sub@example.com',
      })
      const id = created.body.data._id
      const result = await pay([
        '-X',
        'PUT',
        `/subscriptions/${id}`,
        '-f',
        'status=cancel',
        '-i',
        '--jq',
        '.data.status',
      ])
      expect(result.code).toBe(0)
      expect(result.stdout).toBe('cancel\n')
      const head = result.stderr.split('\n')
      expect(head[0]).toBe('HTTP/1.1 200 OK')
      expect(head).toContain('Content-Type: application/json')
      expect(head).toContain('X-Pay-Sandbox: 1')
      expect(result.stderr.endsWith('\n\n')).toBe(true)
      expect((await sandbox.request('GET', `/subscriptions/${id}`)).body.data.status).toBe('cancel')
      const last = JSON.parse(fs.readFileSync(journal, 'utf8').trim().split('\n').at(-1)!)
      expect([last.method, last.resource, last.id, last.status]).toEqual(['PUT', 'subscription', id, 200])
    })

    test('--input - sends stdin as the body, exactly; -F @file reads a file', async () => {
      const body = '{"email":"in@example.com","currency":"JPY","amount":"300","title":"From stdin"}'
      const result = await pay(
        ['/payment-links', '--input', '-', '--jq', '.data | "\\(.title) \\(.amount)"'],
        body,
      )
      expect(result).toMatchObject({ code: 0, stdout: 'From stdin 300\n', stderr: '' })
      const notes = path.join(tempDir('pay-api-file-'), 'notes.txt')
      fs.writeFileSync(notes, 'two\nlines')
      const described = await pay([
        '/payment-links',
        ...CREATE,
        '-F',
        `description=@${notes}`,
        '--jq',
        '.data.description',
      ])
      expect(described.stdout).toBe('two\nlines\n')
    })

    test('--paginate follows next_page_url and prints the items of every page as one array', async () => {
      const fresh = await startTestSandbox()
      try {
        for (let i = 0; i < 7; i += 1) await seedLink(fresh, { title: `Page item ${i}` })
        const args = ['api', '/payment-links', '-X', 'GET', '-F', 'per_page=3', '--paginate']
        const result = await runInProcess(args, { env: fresh.env })
        expect(result).toMatchObject({ code: 0, stderr: '' })
        const items = JSON.parse(result.stdout)
        expect(items.map((item: Json) => item.title)).toEqual(
          [6, 5, 4, 3, 2, 1, 0].map((i) => `Page item ${i}`),
        )
        const count = await runInProcess([...args, '--jq', 'length', '-i'], { env: fresh.env })
        expect(count.stdout).toBe('7\n')
        // -i shows each page's status line: 3 pages.
        expect(count.stderr.match(/^HTTP\/1\.1 200 OK$/gm)).toHaveLength(3)
        // A path that is no list cannot be paginated.
        const one = await runInProcess(['api', `/payment-links/${items[0]._id}`, '--paginate'], {
          env: fresh.env,
        })
        expect(one).toMatchObject({
          code: 6,
          stdout: '',
          stderr:
            'Error: Unexpected answer from the service: expected a list of items, got an object without the expected fields.\n' +
            'Run again with --debug to see the exchange.\n',
        })
      } finally {
        await fresh.close()
      }
    })

    test('the key goes nowhere but the base URL: another origin and an Authorization header are refused', async () => {
      const elsewhere = await pay(['https://api.example.com/payment-links'])
      expect(elsewhere).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr:
          `Error: Refusing to send the API key to https://api.example.com: pay sends it only to ${sandbox.baseUrl}, the profile's base URL.\n` +
          'Give a path relative to the base URL, e.g. /payment-links.\n',
      })
      const sameOrigin = await pay([`${sandbox.baseUrl}/payment-links`, '--jq', '.success'])
      expect(sameOrigin.stdout).toBe('true\n')
      const header = await pay(['/payment-links', '-H', 'Authorization: Bearer sk_other_0123456789'])
      expect(header).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr:
          "Error: -H Authorization: pay api sends the profile's key as Authorization itself, and no other.\n" +
          'Choose the key with --profile or PAY_API_KEY.\n',
      })
    })

    test('usage errors exit 2 with one clean message', async () => {
      for (const [args, stderr] of [
        [[], 'Error: Missing 1 required arg:\npath  Path under the base URL (/payment-links)'],
        [['/x', '-H', 'Host: evil.example'], 'Error: -H Host: pay sets this header itself.\n'],
        [['/x', '-X', 'TRACE'], 'Error: -X TRACE: pay api sends GET, POST, PUT, PATCH, DELETE.\n'],
        [['/x', '-f', 'oops'], 'Error: -f oops: expected key=value.\n'],
        [
          ['/x', '--paginate', '-X', 'DELETE'],
          'Error: --paginate follows the pages of a GET, not a DELETE.\n',
        ],
      ] as const) {
        const result = await pay([...args])
        expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' })
        expect(result.stderr.startsWith(stderr)).toBe(true)
      }
    })
  })
})

describe('against the fault server', () => {
  const runPay = payRunner(runInProcess)

  /**
   * `pay api` against the fault server, like every other command (test/unit/api/http-faults.test.ts):
   * GET, PUT and DELETE retried twice on transient faults, POST and PATCH sent exactly once (and
   * the error says how to send the very same request again), the deadline kept, redirects never
   * followed, http:// refused off this machine, and the key in no output (runPay checks every run).
   */

  type Verb = 'GET' | 'PUT' | 'DELETE' | 'POST' | 'PATCH'
  const VERBS: Verb[] = ['GET', 'PUT', 'DELETE', 'POST', 'PATCH']
  const sentOnce = (verb: Verb) => verb === 'POST' || verb === 'PATCH'
  const argsFor = (verb: Verb) => [
    'api',
    '-X',
    verb,
    '/payment-links/lnk_1',
    ...(verb === 'GET' || verb === 'DELETE' ? [] : ['-f', 'title=New title']),
  ]

  interface Fault {
    name: string
    handler: Handler
    /** Retried on GET, PUT and DELETE (3 requests in all); never on POST or PATCH. */
    transient: boolean
    /** What pay prints on stdout: the body, when it is JSON. */
    stdout: string
    stderr: (baseUrl: string) => string
    args?: string[]
  }

  const FAULTS: Fault[] = [
    {
      name: '500 with a JSON message',
      handler: json(500, { message: 'Server Error' }),
      transient: true,
      stdout: '{"message":"Server Error"}\n',
      stderr: () => 'Error: Server Error\n',
    },
    {
      name: '502 with an HTML page',
      handler: raw(502, '<html><head><title>502 Bad Gateway</title></head></html>', 'text/html'),
      transient: true,
      stdout: '',
      stderr: () => 'Error: The service answered 502 with an HTML page (502 Bad Gateway).\n',
    },
    {
      name: '503 with an empty body',
      handler: raw(503, ''),
      transient: true,
      stdout: '',
      stderr: () => 'Error: The service answered 503.\n',
    },
    {
      name: '429 with Retry-After: 1',
      handler: json(429, { message: 'Too Many Attempts.' }, { 'retry-after': '1' }),
      transient: true,
      stdout: '{"message":"Too Many Attempts."}\n',
      stderr: () => 'Error: Too Many Attempts.\n',
    },
    {
      name: 'a reset connection',
      handler: reset(),
      transient: true,
      stdout: '',
      stderr: (baseUrl) => `Error: Could not reach ${baseUrl}: the connection was reset.\n`,
    },
    {
      name: 'a body cut off before its announced length',
      handler: cutOff('{"success":true,"data":{"_id":"lnk_1"'),
      transient: true,
      stdout: '',
      stderr: (baseUrl) =>
        `Error: The answer from ${baseUrl} was cut off: the connection closed before its end.\n`,
    },
    {
      name: 'no answer at all (--timeout 1)',
      handler: hang(),
      transient: false,
      args: ['--timeout', '1'],
      stdout: '',
      stderr: (baseUrl) =>
        `Error: No answer from ${baseUrl} within 1 s.\n` +
        'Raise the limit with --timeout SECONDS (or PAY_TIMEOUT) if the service is just slow.\n',
    },
    {
      name: 'an HTML page answered 200',
      handler: raw(200, '<html><head><title>Sign in to Wi-Fi</title></head></html>', 'text/html'),
      transient: false,
      stdout: '',
      stderr: () =>
        'Error: Unexpected answer from the service: status 200 with an HTML page (Sign in to Wi-Fi).\n' +
        'Run again with --debug to see the exchange.\n',
    },
  ]

  /** The stderr of a POST or PATCH that may have been acted on: the error, then how to send it again. */
  function withRetryHint(stderr: string, key: string): string {
    const [first, ...rest] = stderr.split('\n')
    const hint = [
      `The request may have been acted on all the same (Idempotency-Key ${key}).`,
      `To send this very request again, add -H 'Idempotency-Key: ${key}'.`,
    ]
    return [first, ...hint, ...rest].join('\n')
  }

  const tally = { runs: 0, requests: 0, sentOnce: 0 }

  describe.concurrent('pay api: every fault, on each method', () => {
    it.for(FAULTS.flatMap((fault) => VERBS.map((verb) => [`${verb} ← ${fault.name}`, fault, verb] as const)))(
      '%s',
      async ([, fault, verb], context) => {
        const server = await serve(context, fault.handler)
        const result = await runPay([...argsFor(verb), ...(fault.args ?? [])], server.baseUrl)
        expect(result.code).toBe(6)
        expect(result.stdout).toBe(fault.stdout)
        const key = String(server.requests[0].headers['idempotency-key'])
        const stderr = fault.stderr(server.baseUrl)
        // A POST or PATCH that may have been acted on says so, with the key to send it again under.
        expect(result.stderr).toBe(sentOnce(verb) ? withRetryHint(stderr, key) : stderr)
        expectNoStack(result.stderr)
        expect(server.requests.map((r) => r.method)).toEqual(
          Array(!sentOnce(verb) && fault.transient ? 3 : 1).fill(verb),
        )
        // A retry is the very same request.
        expect(new Set(server.requests.map((r) => r.body)).size).toBe(1)
        if (sentOnce(verb)) expect(key).toMatch(/^[0-9a-f-]{36}$/)
        else expect(server.requests[0].headers['idempotency-key']).toBeUndefined()
        tally.runs++
        tally.requests += server.requests.length
        if (sentOnce(verb)) tally.sentOnce += server.requests.length
      },
    )
  })

  describe.concurrent('pay api: answers that are no fault', () => {
    it('a 2xx with an empty body or a 204 prints nothing and exits 0', async (context) => {
      const server = await serve(context, raw(200, ''), noContent())
      for (const verb of ['DELETE', 'DELETE'] as const) {
        const result = await runPay(argsFor(verb), server.baseUrl)
        expect([result.code, result.stdout, result.stderr]).toEqual([0, '', ''])
      }
    })

    it('the Idempotency-Key the hint names is the one sent again with -H', async (context) => {
      const server = await serve(
        context,
        json(503, { message: 'busy' }),
        json(200, envelope({ _id: 'lnk_1' })),
      )
      const first = await runPay(argsFor('POST'), server.baseUrl)
      const key = String(server.requests[0].headers['idempotency-key'])
      expect(first.code).toBe(6)
      const again = await runPay([...argsFor('POST'), '-H', `Idempotency-Key: ${key}`], server.baseUrl)
      expect(again).toMatchObject({ code: 0, stderr: '' })
      expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([key, key])
    })
  })

  describe.concurrent('pay api: the key only ever goes to the base URL', () => {
    it.for([301, 302, 307].flatMap((status) => VERBS.map((verb) => [status, verb] as const)))(
      '%i redirect answering a %s is not followed',
      async ([status, verb], context) => {
        const elsewhere = await serve(context, json(200, envelope({ _id: 'lnk_1' })))
        const server = await serve(context, redirect(`${elsewhere.baseUrl}/steal`, status))
        const result = await runPay(argsFor(verb), server.baseUrl)
        const stderr =
          `Error: The service answered ${status} with a redirect to ${elsewhere.baseUrl}; pay does not follow redirects.\n` +
          'Redirects would carry the API key elsewhere. Check the base URL of the profile.\n'
        const key = String(server.requests[0].headers['idempotency-key'])
        expect(result).toMatchObject({ code: 6, stdout: '' })
        expect(result.stderr).toBe(sentOnce(verb) ? withRetryHint(stderr, key) : stderr)
        expect(server.requests).toHaveLength(1)
        expect(elsewhere.requests).toEqual([])
        tally.runs++
      },
    )

    it('an absolute URL on another port of the same host is another origin: refused, nothing sent', async (context) => {
      const elsewhere = await serve(context)
      const server = await serve(context)
      const result = await runPay(['api', `${elsewhere.baseUrl}/payment-links`], server.baseUrl)
      expect(result).toMatchObject({ code: 2, stdout: '' })
      expect(result.stderr).toBe(
        `Error: Refusing to send the API key to ${elsewhere.baseUrl}: pay sends it only to ${server.baseUrl}, the profile's base URL.\n` +
          'Give a path relative to the base URL, e.g. /payment-links.\n',
      )
      expect([...elsewhere.requests, ...server.requests]).toEqual([])
    })

    it('--paginate refuses a next_page_url on another origin', async (context) => {
      const elsewhere = await serve(context, json(200, envelope({ data: [], next_page_url: null })))
      const server = await serve(
        context,
        json(
          200,
          envelope({ data: [{ _id: 'a' }], next_page_url: `${elsewhere.baseUrl}/payment-links?page=2` }),
        ),
      )
      const result = await runPay(['api', '/payment-links', '--paginate'], server.baseUrl)
      expect(result).toMatchObject({ code: 6, stdout: '' })
      expect(result.stderr).toBe(
        `Error: The service pointed to ${elsewhere.baseUrl}, outside ${server.baseUrl}; not following it.\n` +
          'The API key is only ever sent to the base URL of the profile.\n',
      )
      expect(elsewhere.requests).toEqual([])
    })

    it('http:// off this machine is refused with exit 2 before any connection', async (context) => {
      const address = Object.values(os.networkInterfaces())
        .flat()
        .find((info) => info !== undefined && !info.internal && info.family === 'IPv4')?.address
      if (address === undefined) context.skip('this machine has no IPv4 address but loopback')
      let connections = 0
      const listener = net.createServer((socket) => {
        connections++
        socket.destroy()
      })
      await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve))
      context.onTestFinished(() => new Promise<void>((resolve) => listener.close(() => resolve())))
      const { port } = listener.address() as AddressInfo
      const result = await runPay(
        ['api', '/payment-links', '-X', 'POST', '-f', 'a=b'],
        `http://${address}:${port}`,
      )
      expect(result).toMatchObject({ code: 2, stdout: '' })
      expect(result.stderr).toBe(
        `Error: Refusing to send the API key over plain http to ${address}:${port}.\n` +
          'Use an https:// base URL; http:// is allowed only for loopback addresses (127.0.0.1, localhost).\n',
      )
      expect(connections).toBe(0)
    })

    it('-X GET with --input sends the body with the GET, as gh api does', async (context) => {
      const server = await serve(context, json(200, { data: { ok: true } }))
      const input = path.join(tempDir('pay-api-get-body-'), 'body.json')
      fs.writeFileSync(input, '{"filter":"paid"}')
      const result = await runPay(['api', '/payment-links', '-X', 'GET', '--input', input], server.baseUrl)
      expect(result).toMatchObject({ code: 0, stdout: '{"data":{"ok":true}}\n', stderr: '' })
      expect(server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
        ['GET', '/payment-links', '{"filter":"paid"}'],
      ])
    })

    it('--debug traces both bodies; the key, secret-looking headers and secret fields redacted', async (context) => {
      const server = await serve(
        context,
        json(201, { data: { _id: 'tok_1', token: 'tok_secret_value_1234', echo: `Bearer ${CANARY_KEY}` } }),
      )
      const result = await runPay(
        [
          'api',
          '/tokenizations/create-token',
          '-f',
          'email=a@b.co',
          '-H',
          'X-Session-Token: s3cr3t-value',
          '--debug',
        ],
        server.baseUrl,
      )
      expect(result.code).toBe(0)
      // stdout is the answer, the key redacted (a server that echoes it does not get it printed).
      expect(JSON.parse(result.stdout)).toEqual({
        data: { _id: 'tok_1', token: 'tok_secret_value_1234', echo: 'Bearer [REDACTED]' },
      })
      const trace = result.stderr.split('\n')
      expect(trace).toContain('[debug] > authorization: Bearer [REDACTED]')
      expect(trace).toContain('[debug] > x-session-token: [REDACTED]')
      expect(trace).toContain('[debug] <     "token": "[REDACTED]",')
      expect(result.stderr).not.toContain('s3cr3t-value')
      expect(result.stderr).not.toContain('tok_secret_value_1234')
      expect(server.requests[0].headers['x-session-token']).toBe('s3cr3t-value')
      expect(server.requests[0].headers.authorization).toBe(`Bearer ${CANARY_KEY}`)
    })
  })

  afterAll(() => {
    process.stdout.write(
      `pay api fault matrix: ${FAULTS.length} faults × ${VERBS.length} methods and 3 redirects × ${VERBS.length}: ` +
        `${tally.runs} runs, ${tally.requests} requests, every POST and PATCH sent once (${tally.sentOnce} for ${FAULTS.length * 2} runs)\n`,
    )
  })
})
