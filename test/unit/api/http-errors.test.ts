import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { envelope } from '../../helpers/fake-server.js'
import {
  calls,
  cutOff,
  expectNoStack,
  json,
  payRunner,
  raw,
  redirect,
  reset,
  serve,
} from '../../helpers/fault-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import { startTestSandbox } from '../../helpers/sandbox.js'

/** pay, run in this process against the fault servers (test/helpers/in-process.ts). */
const runPay = payRunner(runInProcess)

/**
 * pay's commands run in this process (the HTTP layer of src/api through them): error bodies, broken answers and refused destinations, each
 * with its exit code and the exact message on stderr (never a stack trace, never the key).
 */

const LINK = { _id: 'lnk_1', status: 'Active', paid: false, amount: 10, currency: 'EUR', email: 'a@b.co' }
const CREATE = ['links', 'create', '--email', 'a@b.co', '--currency', 'EUR', '--amount', '10', '--title', 'T']
const INVALID = {
  message: 'The given data was invalid.',
  errors: {
    email: ['The email must be a valid email address.'],
    reference_2: ['The reference 2 may not be greater than 20 characters.'],
    phone_no: ['The phone no format is invalid.', 'The phone no must be at least 7 characters.'],
  },
}

const unexpected = (what: string) =>
  `Error: Unexpected answer from the service: ${what}.\nRun again with --debug to see the exchange.\n`

describe.concurrent('error bodies', () => {
  it('422 {message, errors}: exit 3, each message on its own line under its flag', async (t) => {
    const server = await serve(t, json(422, INVALID))
    const result = await runPay(CREATE, server.baseUrl)
    expect(result).toMatchObject({
      code: 3,
      stdout: '',
      stderr: [
        'Error: The given data was invalid.',
        '  --email        The email must be a valid email address.',
        '  --reference-2  The reference 2 may not be greater than 20 characters.',
        '  --phone        The phone no format is invalid.',
        '  --phone        The phone no must be at least 7 characters.',
        '',
      ].join('\n'),
    })
    expect(calls(server.requests)).toEqual(['POST /payment-links'])
  })

  it('422 with --json: one line of structured error JSON on stderr, stdout empty', async (t) => {
    const server = await serve(t, json(422, INVALID))
    const result = await runPay([...CREATE, '--json'], server.baseUrl)
    expect(result.code).toBe(3)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      `${JSON.stringify({
        error: {
          status: 422,
          kind: 'validation',
          exit_code: 3,
          message: 'The given data was invalid.',
          errors: INVALID.errors,
        },
      })}\n`,
    )
  })

  it('an envelope with success:false: its message (exit 1), its field errors (exit 3)', async (t) => {
    const server = await serve(
      t,
      json(200, { success: false, message: 'Business suspended.', data: null, errors: null }),
      json(400, { success: false, message: 'Invalid.', errors: { amount: ['Too small.'] }, data: null }),
    )
    const general = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(general).toMatchObject({ code: 1, stdout: '', stderr: 'Error: Business suspended.\n' })
    const invalid = await runPay(CREATE, server.baseUrl)
    expect(invalid).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'Error: Invalid.\n  --amount  Too small.\n',
    })
  })

  it('plain text 400: exit 1, the text on one line, not retried', async (t) => {
    const server = await serve(t, raw(400, 'Malformed request\nline two', 'text/plain'))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'Error: The service answered 400: Malformed request line two\n',
    })
    expect(server.requests).toHaveLength(1)
  })

  it('HTML 502: exit 6 with a one-line message, no HTML dumped', async (t) => {
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr><center>nginx</center>${'<p>filler</p>'.repeat(500)}</body></html>`
    const server = await serve(t, raw(502, page, 'text/html'))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(result).toMatchObject({
      code: 6,
      stdout: '',
      stderr: 'Error: The service answered 502 with an HTML page (502 Bad Gateway).\n',
    })
    expect(server.requests).toHaveLength(3)
  })

  it.for([
    [
      401,
      4,
      { message: 'Unauthenticated.' },
      (base: string) =>
        `Error: ${base} did not accept the key in PAY_API_KEY (401: Unauthenticated.)\n` +
        "Check PAY_API_KEY (it overrides any profile's key).\n",
    ],
    [
      403,
      4,
      '',
      (base: string) =>
        `Error: ${base} does not allow the key in PAY_API_KEY to do this (403)\n` +
        "Check PAY_API_KEY (it overrides any profile's key).\n",
    ],
    [404, 5, { message: 'Payment link not found.' }, () => 'Error: Payment link not found.\n'],
  ] as const)('%i: exit %i', async ([status, exit, body, stderr], t) => {
    const server = await serve(t, body === '' ? raw(status, '') : json(status, body))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(result).toMatchObject({ code: exit, stdout: '', stderr: stderr(server.baseUrl) })
    expect(server.requests).toHaveLength(1)
  })
})

describe.concurrent('broken answers to a GET: exit 6, a clear message, no stack trace', () => {
  it('a reset connection, after the retries', async (t) => {
    const server = await serve(t, reset())
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(result).toMatchObject({
      code: 6,
      stdout: '',
      stderr: `Error: Could not reach ${server.baseUrl}: the connection was reset.\n`,
    })
    expect(calls(server.requests)).toEqual(Array(3).fill('GET /payment-links/lnk_1'))
  })

  it('truncated JSON answered 200', async (t) => {
    const server = await serve(t, raw(200, '{"success":true,"data":{"_id":"lnk_1","amo', 'application/json'))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(result).toMatchObject({
      code: 6,
      stdout: '',
      stderr: unexpected('status 200 with a body that is not JSON'),
    })
    expectNoStack(result.stderr)
    // Under --debug the exchange is traced above: no hint to run again with it.
    const traced = await runPay(['links', 'get', 'lnk_1', '--debug'], server.baseUrl)
    expect(traced.code).toBe(6)
    expect(traced.stderr).toContain(
      'Error: Unexpected answer from the service: status 200 with a body that is not JSON.\n',
    )
    expect(traced.stderr).not.toContain('Run again with --debug')
  })

  it('a body cut off before its announced length', async (t) => {
    const server = await serve(t, cutOff('{"success":true,"data":{"_id":"lnk_1"'))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(result).toMatchObject({
      code: 6,
      stdout: '',
      stderr: `Error: The answer from ${server.baseUrl} was cut off: the connection closed before its end.\n`,
    })
  })

  it('an empty 200 body', async (t) => {
    const server = await serve(t, raw(200, '', 'application/json'))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(result).toMatchObject({
      code: 6,
      stdout: '',
      stderr: unexpected('expected a payment link, got an empty body'),
    })
  })

  it('a 10 MB body that is not JSON', async (t) => {
    const server = await serve(t, raw(200, Buffer.alloc(10 * 1024 * 1024, 'x'), 'application/json'))
    const result = await runPay(['links', 'get', 'lnk_1', '--json'], server.baseUrl)
    expect(result.code).toBe(6)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      `${JSON.stringify({
        error: {
          status: null,
          kind: 'unavailable',
          exit_code: 6,
          message: 'Unexpected answer from the service: status 200 with a body that is not JSON.',
          hint: 'Run again with --debug to see the exchange.',
        },
      })}\n`,
    )
  })

  it.for([
    ['{"data": 5}', { data: 5 }, 'expected a payment link, got a number'],
    ['a string', 'lnk_1', 'expected a payment link, got a string'],
  ] as const)('a 200 body of the wrong shape: %s', async ([, body, message], t) => {
    const server = await serve(t, json(200, body))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(result).toMatchObject({ code: 6, stdout: '', stderr: unexpected(message) })
    expectNoStack(result.stderr)
  })
})

describe.concurrent('where requests go', () => {
  it('connection refused: exit 6, "connection refused"', async () => {
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise((resolve) => closed.close(resolve))
    const result = await runPay(['links', 'list'], `http://127.0.0.1:${port}`)
    expect(result).toMatchObject({
      code: 6,
      stdout: '',
      stderr: `Error: Could not reach http://127.0.0.1:${port}: connection refused.\n`,
    })
  })

  it('a redirect to another server is not followed: exit 6, that server receives nothing', async (t) => {
    const elsewhere = await serve(t, json(200, envelope(LINK)))
    const server = await serve(t, redirect(`${elsewhere.baseUrl}/payment-links/lnk_1`))
    const result = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(result).toMatchObject({
      code: 6,
      stdout: '',
      stderr:
        `Error: The service answered 302 with a redirect to ${elsewhere.baseUrl}; pay does not follow redirects.\n` +
        'Redirects would carry the API key elsewhere. Check the base URL of the profile.\n',
    })
    expect(calls(server.requests)).toEqual(['GET /payment-links/lnk_1'])
    expect(elsewhere.requests).toEqual([])
  })

  it('an http:// base URL off this machine: exit 2 before any connection', async () => {
    const result = await runPay(['links', 'get', 'lnk_1', '--debug'], 'http://example.com')
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(
      /^Error: Refusing to send the API key over plain http to example\.com\.\nUse an https:\/\/ base URL; http:\/\/ is allowed only for loopback addresses \(127\.0\.0\.1, localhost\)\.\n/,
    )
    // Not one request was started.
    expect(result.stderr).not.toContain('[debug] >')
  })

  it('http://localhost:PORT and http://127.0.0.1:PORT are allowed', async (t) => {
    const server = await serve(t, json(200, envelope(LINK)))
    const port = new URL(server.baseUrl).port
    for (const baseUrl of [`http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
      const result = await runPay(['links', 'get', 'lnk_1', '--json'], baseUrl)
      expect(result).toMatchObject({ code: 0, stderr: '' })
      expect(JSON.parse(result.stdout)).toEqual(LINK)
    }
    expect(server.requests.map((r) => r.headers.host)).toEqual([`localhost:${port}`, `127.0.0.1:${port}`])
  })
})

describe('the built-in profile at a --base-url of a sandbox of other keys', () => {
  it('401: exit 4, saying the sandbox takes its own keys (never to log in to the built-in profile, which cannot be)', async ({
    onTestFinished,
  }) => {
    const other = await startTestSandbox({ keys: ['sk_test_its_own_key_1'] })
    onTestFinished(() => other.close())
    const result = await runInProcess(['-p', 'sandbox', '--base-url', other.baseUrl, 'links', 'list'], {
      env: { PAY_SANDBOX_DIR: other.dir },
    })
    expect(result).toMatchObject({
      code: 4,
      stdout: '',
      stderr:
        `Error: ${other.baseUrl} did not accept the key of profile "sandbox" (401: Unauthenticated.)\n` +
        'The sandbox running there was started with its own keys (--key, --key-file or PAY_SANDBOX_KEYS): ' +
        "send one of them with PAY_API_KEY, or restart it without any to serve its directory's own key.\n",
    })
  })
})
