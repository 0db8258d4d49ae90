import { describe, expect, it } from 'vitest'
import { envelope } from '../../helpers/fake-server.js'
import {
  calls,
  type FaultServer,
  hang,
  json,
  payRunner,
  raw,
  reset,
  serve,
} from '../../helpers/fault-server.js'
import { runInProcess } from '../../helpers/in-process.js'

/** pay, run in this process against the fault servers (test/helpers/in-process.ts). */
const runPay = payRunner(runInProcess)

/**
 * pay's commands run in this process (the HTTP layer of src/api through them): which requests are
 * retried and how often, Retry-After, and the overall --timeout. The waits are those the run asked
 * for, as its --debug trace says them (`retrying in 250 ms`), never a time measured: a time is a
 * figure for `npm run bench`.
 */

const LINK = {
  _id: 'lnk_1',
  status: 'Active',
  paid: false,
  amount: 10,
  currency: 'EUR',
  email: 'a@b.co',
  title: 'T',
}
const CREATE = ['links', 'create', '--email', 'a@b.co', '--currency', 'EUR', '--amount', '10', '--title', 'T']

/** The waits between attempts a --debug run asked for, as its trace says them. */
const waits = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('[debug] retrying in '))
    .map((line) => line.slice('[debug] '.length))

/** What a --debug run printed besides its trace and a stack trace: its error. */
const withoutTrace = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => !line.startsWith('[debug] ') && !/^\s+at /.test(line) && !line.startsWith('PayError: '))
    .join('\n')

describe.concurrent('GET, PUT and DELETE are retried', () => {
  it('GET answered 503 then 200: success after exactly 2 requests', async (t) => {
    const server = await serve(t, json(503, { message: 'busy' }), json(200, envelope(LINK)))
    const result = await runPay(['links', 'get', 'lnk_1', '--json'], server.baseUrl)
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(result.stdout)).toEqual(LINK)
    expect(calls(server.requests)).toEqual(['GET /payment-links/lnk_1', 'GET /payment-links/lnk_1'])
  })

  it.for([
    ['503', json(503, { message: 'Service Unavailable' })],
    ['500', json(500, { message: 'Service Unavailable' })],
    ['429 without Retry-After', json(429, { message: 'Service Unavailable' })],
  ] as const)(
    'GET answered %s three times: exit 6 after exactly 3 requests, backing off 250 then 500 ms',
    async ([, handler], t) => {
      const server = await serve(t, handler)
      const result = await runPay(['links', 'get', 'lnk_1', '--debug'], server.baseUrl)
      expect(result).toMatchObject({ code: 6, stdout: '' })
      expect(withoutTrace(result.stderr)).toBe('Error: Service Unavailable\n')
      expect(server.requests).toHaveLength(3)
      expect(waits(result.stderr)).toEqual([
        'retrying in 250 ms (attempt 2 of 3)',
        'retrying in 500 ms (attempt 3 of 3)',
      ])
    },
  )

  it('429 with Retry-After: 1 waits the second asked for', async (t) => {
    const server = await serve(
      t,
      json(429, { message: 'slow down' }, { 'retry-after': '1' }),
      json(200, envelope(LINK)),
    )
    const result = await runPay(['links', 'get', 'lnk_1', '--json', '--debug'], server.baseUrl)
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual(LINK)
    expect(withoutTrace(result.stderr)).toBe('')
    expect(server.requests).toHaveLength(2)
    expect(waits(result.stderr)).toEqual(['retrying in 1000 ms (attempt 2 of 3)'])
  })

  it('Retry-After: 3600 is capped at 5 s: the run waits that, then finishes', async (t) => {
    const server = await serve(
      t,
      json(429, { message: 'slow down' }, { 'retry-after': '3600' }),
      json(200, envelope(LINK)),
    )
    const result = await runPay(['links', 'get', 'lnk_1', '--json', '--debug'], server.baseUrl)
    expect(result.code).toBe(0)
    expect(withoutTrace(result.stderr)).toBe('')
    expect(server.requests).toHaveLength(2)
    expect(waits(result.stderr)).toEqual(['retrying in 5000 ms (attempt 2 of 3)'])
  })

  it('PUT (links update) is retried on 502, with the same body', async (t) => {
    const server = await serve(
      t,
      json(200, envelope(LINK)),
      raw(502, 'Bad Gateway', 'text/plain'),
      json(200, envelope({ ...LINK, title: 'U' })),
    )
    const result = await runPay(['links', 'update', 'lnk_1', '--title', 'U', '--json'], server.baseUrl)
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(result.stdout)).toEqual({ ...LINK, title: 'U' })
    expect(calls(server.requests)).toEqual([
      'GET /payment-links/lnk_1',
      'PUT /payment-links/lnk_1',
      'PUT /payment-links/lnk_1',
    ])
    expect(server.requests[1].body).toBe(server.requests[2].body)
    expect(JSON.parse(server.requests[2].body)).toEqual({
      email: 'a@b.co',
      currency: 'EUR',
      amount: '10',
      title: 'U',
    })
  })
})

describe.concurrent('a POST is never retried', () => {
  it('POST answered 503: sent exactly once, exit 6, saying it may have happened and how to send it again', async (t) => {
    const server = await serve(t, json(503, { message: 'busy' }), json(200, envelope(LINK)))
    const result = await runPay(CREATE, server.baseUrl)
    const key = server.requests[0].headers['idempotency-key']
    expect(result).toMatchObject({
      code: 6,
      stdout: '',
      stderr:
        'Error: busy\n' +
        `The payment link may have been created all the same (Idempotency-Key ${key}).\n` +
        `To send this very request again, add --idempotency-key ${key}.\n`,
    })
    expect(calls(server.requests)).toEqual(['POST /payment-links'])
  })

  it('--idempotency-key sends the key given, so a retry is the very same request', async (t) => {
    const server = await serve(t, json(200, envelope(LINK)))
    const key = '7d3c9a3e-3b1a-4c55-9d0e-0f6a1b2c3d4e'
    const result = await runPay([...CREATE, '--idempotency-key', key], server.baseUrl)
    expect(result.code).toBe(0)
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([key])
    const bad = await runPay([...CREATE, '--idempotency-key', 'has space'], server.baseUrl)
    expect(bad).toMatchObject({
      code: 2,
      stderr:
        'Error: --idempotency-key: Expected 1 to 255 visible ASCII characters (no spaces), e.g. a UUID\n' +
        'See `pay links create --help`.\n',
    })
    expect(server.requests).toHaveLength(1)
  })

  it('a refused connection is certain not to have created anything: no retry hint', async () => {
    const result = await runPay(CREATE, 'http://127.0.0.1:1')
    expect(result).toMatchObject({
      code: 6,
      stdout: '',
      stderr: 'Error: Could not reach http://127.0.0.1:1: connection refused.\n',
    })
  })

  it('POST with a reset connection: sent exactly once, exit 6', async (t) => {
    const server = await serve(t, reset(), json(200, envelope(LINK)))
    const result = await runPay([...CREATE, '--json'], server.baseUrl)
    const key = server.requests[0].headers['idempotency-key']
    expect(result.code).toBe(6)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      `${JSON.stringify({
        error: {
          status: null,
          kind: 'unavailable',
          exit_code: 6,
          message: `Could not reach ${server.baseUrl}: the connection was reset.`,
          hint:
            `The payment link may have been created all the same (Idempotency-Key ${key}).\n` +
            `To send this very request again, add --idempotency-key ${key}.`,
          idempotency_key: key,
        },
      })}\n`,
    )
    expect(calls(server.requests)).toEqual(['POST /payment-links'])
  })
})

describe.concurrent('the overall timeout', () => {
  const timedOut = (server: FaultServer, seconds: number) =>
    `Error: No answer from ${server.baseUrl} within ${seconds} s.\n` +
    'Raise the limit with --timeout SECONDS (or PAY_TIMEOUT) if the service is just slow.\n'

  // A run that overstayed its deadline would be stopped by the test's timeout (vitest.config.ts):
  // the hang detector. The deadline's arithmetic is client.test.ts's, on a clock the test moves.
  it('a server that never answers, --timeout 1: exit 6, no answer within the second given', async (t) => {
    const server = await serve(t, hang())
    const result = await runPay(['links', 'get', 'lnk_1', '--timeout', '1'], server.baseUrl)
    expect(result).toMatchObject({ code: 6, stdout: '', stderr: timedOut(server, 1) })
    expect(server.requests).toHaveLength(1)
  })

  it('PAY_TIMEOUT=1 does the same', async (t) => {
    const server = await serve(t, hang())
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl, { env: { PAY_TIMEOUT: '1' } })
    expect(result).toMatchObject({ code: 6, stdout: '', stderr: timedOut(server, 1) })
    expect(server.requests).toHaveLength(1)
  })

  it('the deadline covers the retries: a retry left unanswered ends the run at it, with no attempt after', async (t) => {
    const server = await serve(t, json(503, { message: 'busy' }), hang())
    const result = await runPay(['links', 'get', 'lnk_1', '--timeout', '3', '--debug'], server.baseUrl)
    expect(result).toMatchObject({ code: 6, stdout: '' })
    expect(withoutTrace(result.stderr)).toBe(timedOut(server, 3))
    expect(server.requests).toHaveLength(2)
    expect(waits(result.stderr)).toEqual(['retrying in 250 ms (attempt 2 of 3)'])
  })

  it('a wait that would pass the deadline is not started: the last answer at once', async (t) => {
    // Retry-After: 3600 asks for the 5 s cap, all of the --timeout 5 and more.
    const server = await serve(t, json(503, { message: 'busy' }, { 'retry-after': '3600' }))
    const result = await runPay(['links', 'get', 'lnk_1', '--timeout', '5', '--debug'], server.baseUrl)
    expect(result).toMatchObject({ code: 6, stdout: '' })
    expect(withoutTrace(result.stderr)).toBe('Error: busy\n')
    expect(server.requests).toHaveLength(1)
    expect(waits(result.stderr)).toEqual([])
  })
})
