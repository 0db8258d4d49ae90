import net, { type AddressInfo } from 'node:net'
import os from 'node:os'
import { afterAll, describe, expect, it } from 'vitest'
import { envelope } from '../../helpers/fake-server.js'
import {
  CANARY_KEY,
  cutOff,
  expectNoStack,
  type FaultServer,
  type Handler,
  hang,
  json,
  payRunner,
  raw,
  redirect,
  reset,
  serve,
} from '../../helpers/fault-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import { linkCreateArgs } from '../../helpers/links.js'

/** pay, run in this process against the fault servers (test/helpers/in-process.ts). */
const runPay = payRunner(runInProcess)

/**
 * Every fault a server can throw at pay, against each kind of request: a GET (`links get`), a
 * POST (`links create`) and a PUT (`links update`, which first GETs the link it merges into).
 * Each case asserts the exit code, the exact message on stderr (no stack trace), an empty
 * stdout, and how many requests arrived (GET and PUT retried up to 2 times when the fault is
 * transient, a POST sent exactly once, always). The waits between them are http-retries.test.ts's.
 */

const LINK = { _id: 'lnk_1', status: 'Active', paid: false, amount: 10, currency: 'EUR', email: 'a@b.co' }
const HTML_PAGE =
  '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>'

const otherIPv4 = Object.values(os.networkInterfaces())
  .flat()
  .filter((info) => info !== undefined && !info.internal && info.family === 'IPv4')
  .map((info) => info!.address)

const unexpected = (what: string) =>
  `Error: Unexpected answer from the service: ${what}.\nRun again with --debug to see the exchange.\n`

interface Fault {
  name: string
  handler: Handler
  /** Retried on GET and PUT (3 requests in all); never on a POST. */
  transient: boolean
  stderr: (server: FaultServer) => string
  args?: string[]
}

const FAULTS: Fault[] = [
  {
    name: '500 with a JSON message',
    handler: json(500, { message: 'Server Error' }),
    transient: true,
    stderr: () => 'Error: Server Error\n',
  },
  {
    name: '502 with an HTML page',
    handler: raw(502, HTML_PAGE, 'text/html'),
    transient: true,
    stderr: () => 'Error: The service answered 502 with an HTML page (502 Bad Gateway).\n',
  },
  {
    name: '503 with an empty body',
    handler: raw(503, ''),
    transient: true,
    stderr: () => 'Error: The service answered 503.\n',
  },
  {
    name: '504 in plain text',
    handler: raw(504, 'upstream timed out', 'text/plain'),
    transient: true,
    stderr: () => 'Error: The service answered 504: upstream timed out\n',
  },
  {
    name: '429 without Retry-After',
    handler: json(429, { message: 'Too Many Attempts.' }),
    transient: true,
    stderr: () => 'Error: Too Many Attempts.\n',
  },
  {
    name: '429 with Retry-After: 1',
    handler: json(429, { message: 'Too Many Attempts.' }, { 'retry-after': '1' }),
    transient: true,
    stderr: () => 'Error: Too Many Attempts.\n',
  },
  {
    name: 'a reset connection',
    handler: reset(),
    transient: true,
    stderr: (server) => `Error: Could not reach ${server.baseUrl}: the connection was reset.\n`,
  },
  {
    name: 'a body cut off before its announced length',
    handler: cutOff('{"success":true,"data":{"_id":"lnk_1"'),
    transient: true,
    stderr: (server) =>
      `Error: The answer from ${server.baseUrl} was cut off: the connection closed before its end.\n`,
  },
  {
    name: 'no answer at all (--timeout 1)',
    handler: hang(),
    transient: false,
    args: ['--timeout', '1'],
    stderr: (server) =>
      `Error: No answer from ${server.baseUrl} within 1 s.\n` +
      'Raise the limit with --timeout SECONDS (or PAY_TIMEOUT) if the service is just slow.\n',
  },
  {
    name: 'truncated JSON answered 200',
    handler: raw(200, '{"success":true,"data":{"_id":"lnk_1","amo', 'application/json'),
    transient: false,
    stderr: () => unexpected('status 200 with a body that is not JSON'),
  },
  {
    name: 'an HTML page answered 200',
    handler: raw(200, '<html><head><title>Sign in to Wi-Fi</title></head></html>', 'text/html'),
    transient: false,
    stderr: () => unexpected('status 200 with an HTML page (Sign in to Wi-Fi)'),
  },
  {
    name: 'an empty body answered 200',
    handler: raw(200, '', 'application/json'),
    transient: false,
    stderr: () => unexpected('expected a payment link, got an empty body'),
  },
  {
    name: 'a 10 MB body that is not JSON',
    handler: raw(200, Buffer.alloc(10 * 1024 * 1024, 'x'), 'application/json'),
    transient: false,
    stderr: () => unexpected('status 200 with a body that is not JSON'),
  },
  {
    name: 'JSON of the wrong shape',
    handler: json(200, { success: true, data: [1, 2, 3] }),
    transient: false,
    stderr: () => unexpected('expected a payment link, got a list'),
  },
]

interface Method {
  method: 'GET' | 'POST' | 'PUT'
  args: string[]
  /** Answers the server gives before the fault (the GET that links update merges into). */
  before: Handler[]
}

const METHODS: Method[] = [
  { method: 'GET', args: ['links', 'get', 'lnk_1'], before: [] },
  { method: 'POST', args: linkCreateArgs(), before: [] },
  {
    method: 'PUT',
    args: ['links', 'update', 'lnk_1', '--title', 'New title'],
    before: [json(200, envelope(LINK))],
  },
]

const CASES = FAULTS.flatMap((fault) => METHODS.map((method) => ({ fault, method })))
const tally = { runs: 0, requests: 0, posts: 0 }

describe.concurrent('every fault, on a GET, a POST and a PUT', () => {
  it.for(CASES.map((c) => [`${c.method.method} ← ${c.fault.name}`, c] as const))(
    '%s',
    async ([, { fault, method }], context) => {
      const server = await serve(context, ...method.before, fault.handler)
      const result = await runPay([...method.args, ...(fault.args ?? [])], server.baseUrl)
      const attempts = server.requests.filter((request) => request.method === method.method)

      expect(result.code).toBe(6)
      expect(result.stdout).toBe('')
      // A POST that may have arrived says so, with the key to send it again under.
      const key = String(attempts[0].headers['idempotency-key'])
      expect(result.stderr).toBe(
        method.method === 'POST' ? withRetryHint(fault.stderr(server), key) : fault.stderr(server),
      )
      expectNoStack(result.stderr)
      expect(server.requests.slice(0, method.before.length).map((r) => r.method)).toEqual(
        method.before.map(() => 'GET'),
      )
      expect(attempts).toHaveLength(method.method !== 'POST' && fault.transient ? 3 : 1)
      // A retry sends the very same request: same body, same Idempotency-Key (POSTs only).
      expect(new Set(attempts.map((a) => a.body)).size).toBe(1)
      if (method.method === 'POST') expect(attempts[0].headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/)

      tally.runs++
      tally.requests += server.requests.length
      if (method.method === 'POST') tally.posts += attempts.length
    },
  )
})

describe.concurrent('the same faults with --json: one JSON error line on stderr', () => {
  it.for(METHODS.map((m) => [m.method, m] as const))('%s', async ([, method], context) => {
    const server = await serve(context, ...method.before, json(503, { message: 'busy' }))
    const result = await runPay([...method.args, '--json'], server.baseUrl)
    expect(result.code).toBe(6)
    expect(result.stdout).toBe('')
    expect(result.stderr.endsWith('\n')).toBe(true)
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1)
    const key = server.requests.find((request) => request.method === 'POST')?.headers['idempotency-key']
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        status: 503,
        kind: 'unavailable',
        exit_code: 6,
        message: 'busy',
        ...(method.method === 'POST'
          ? { idempotency_key: key, hint: withRetryHint('', String(key)).trim() }
          : {}),
      },
    })
  })
})

/** The stderr of a failed create that may have happened: the error, then how to send it again. */
function withRetryHint(stderr: string, key: string): string {
  const [first, ...rest] = stderr.split('\n')
  const hint = [
    `The payment link may have been created all the same (Idempotency-Key ${key}).`,
    `To send this very request again, add --idempotency-key ${key}.`,
  ]
  return [first, ...hint, ...rest].join('\n')
}

describe.concurrent('transport: the key only ever goes to the base URL', () => {
  it.for([301, 302, 303, 307, 308].flatMap((status) => METHODS.map((m) => [status, m.method, m] as const)))(
    '%i redirect answering a %s is not followed',
    async ([status, , method], context) => {
      const elsewhere = await serve(context, json(200, envelope(LINK)))
      // Another port on the same host is another origin too.
      const server = await serve(context, ...method.before, redirect(`${elsewhere.baseUrl}/steal`, status))
      const result = await runPay(method.args, server.baseUrl)
      expect(result.code).toBe(6)
      expect(result.stdout).toBe('')
      const stderr =
        `Error: The service answered ${status} with a redirect to ${elsewhere.baseUrl}; pay does not follow redirects.\n` +
        'Redirects would carry the API key elsewhere. Check the base URL of the profile.\n'
      // A POST answered with a redirect may have been acted on (POST, then redirect to the result).
      const key = String(server.requests.find((r) => r.method === 'POST')?.headers['idempotency-key'])
      expect(result.stderr).toBe(method.method === 'POST' ? withRetryHint(stderr, key) : stderr)
      expect(server.requests.filter((r) => r.method === method.method)).toHaveLength(1)
      expect(elsewhere.requests).toEqual([])
      tally.runs++
    },
  )

  it.for(METHODS.map((m) => [m.method, m] as const))(
    'a %s to http:// off this machine is refused with exit 2 before any connection',
    async ([, method], context) => {
      // A listener on this machine's own non-loopback address: reachable, and it must hear nothing.
      const address = otherIPv4[0]
      if (address === undefined) context.skip('this machine has no IPv4 address but loopback')
      let connections = 0
      const listener = net.createServer((socket) => {
        connections++
        socket.destroy()
      })
      await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve))
      context.onTestFinished(() => new Promise<void>((resolve) => listener.close(() => resolve())))
      const { port } = listener.address() as AddressInfo
      const baseUrl = `http://${address}:${port}`

      const result = await runPay(method.args, baseUrl)
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toBe(
        `Error: Refusing to send the API key over plain http to ${address}:${port}.\n` +
          'Use an https:// base URL; http:// is allowed only for loopback addresses (127.0.0.1, localhost).\n',
      )
      // Under --debug the same refusal, with its stack as --debug promises, and no request line.
      const debug = await runPay([...method.args, '--debug'], baseUrl)
      expect(debug.code).toBe(2)
      expect(debug.stderr).not.toMatch(/^\[debug\] >/m)
      expect(connections).toBe(0)
    },
  )

  it('--debug shows method, URL, status, timing and allow-listed headers, the key redacted', async ({
    expect,
    onTestFinished,
  }) => {
    const server = await serve(
      { onTestFinished },
      json(200, envelope(LINK), { 'x-request-id': 'req_42', 'set-cookie': 'session=s3cr3t' }),
    )
    const result = await runPay(['links', 'get', 'lnk_1', '--json', '--debug'], server.baseUrl)
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual(LINK)
    expect(result.stderr.replace(/\(\d+ ms\)/, '(N ms)').replace(/user-agent: .*/, 'user-agent: X')).toBe(
      `[debug] > GET ${server.baseUrl}/payment-links/lnk_1\n` +
        '[debug] > accept: application/json\n' +
        '[debug] > content-type: application/json\n' +
        '[debug] > authorization: Bearer [REDACTED]\n' +
        '[debug] > user-agent: X\n' +
        '[debug] < 200 OK (N ms)\n' +
        '[debug] < content-type: application/json\n' +
        '[debug] < x-request-id: req_42\n' +
        JSON.stringify(envelope(LINK), null, 2)
          .split('\n')
          .map((line) => `[debug] < ${line}\n`)
          .join(''),
    )
    expect(result.stderr).toMatch(/^\[debug\] > user-agent: pay\//m)
  })

  it('--debug shows the bodies sent and received: pretty, secrets and the key redacted, cut past 4 KB', async ({
    expect,
    onTestFinished,
  }) => {
    const token = 'tok_4f9a8b7c6d5e4f3a2b1c'
    const server = await serve(
      { onTestFinished },
      json(200, {
        data: {
          _id: 'tok_1',
          token,
          activation_url: `https://pay.example/tokens/${token}/activate`,
          echo: `Bearer ${CANARY_KEY}`,
          description: 'd'.repeat(5000),
        },
      }),
    )
    const args = ['token', 'create', '--email', 'a@b.co', '--title', 'T', '--description', 'D', '--debug']
    const result = await runPay(args, server.baseUrl)
    expect(result.code).toBe(0)
    const trace = result.stderr.split('\n').filter((line) => line.startsWith('[debug] '))
    expect(trace.filter((line) => /^\[debug\] > [{} ]/.test(line))).toEqual([
      '[debug] > {',
      '[debug] >   "email": "a@b.co",',
      '[debug] >   "title": "T",',
      '[debug] >   "description": "D"',
      '[debug] > }',
    ])
    const received = trace.filter((line) => /^\[debug\] < [{} "…]/.test(line))
    expect(received.slice(0, 6)).toEqual([
      '[debug] < {',
      '[debug] <   "data": {',
      '[debug] <     "_id": "tok_1",',
      '[debug] <     "token": "[REDACTED]",',
      '[debug] <     "activation_url": "https://pay.example/tokens/[REDACTED]/activate",',
      '[debug] <     "echo": "Bearer [REDACTED]",',
    ])
    expect(received.at(-1)).toMatch(/^\[debug\] < … \(\d+ more characters not shown\)$/)
    expect(result.stderr.length).toBeLessThan(6000)
    expect(result.stderr).not.toContain(token)
    expect(result.stderr).not.toContain(CANARY_KEY)
  })
})

afterAll(() => {
  // The figure docs/security.md quotes.
  process.stdout.write(
    `fault matrix: ${FAULTS.length} faults × ${METHODS.length} methods and 5 redirects × ${METHODS.length}: ` +
      `${tally.runs} runs, ${tally.requests} requests, every POST sent once (${tally.posts} POSTs for ${FAULTS.length} faults)\n`,
  )
})
