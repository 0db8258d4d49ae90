import { describe, expect, it } from 'vitest'
import { envelope } from '../../helpers/fake-server.js'
import {
  CANARY_KEY,
  calls,
  expectNoStack,
  json,
  noContent,
  payRunner,
  raw,
  serve,
} from '../../helpers/fault-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import { linkCreateArgs } from '../../helpers/links.js'

/** pay, run in this process against the fault servers (test/helpers/in-process.ts). */
const runPay = payRunner(runInProcess)

/**
 * pay's commands run in this process (the HTTP layer of src/api through them): what pay sends (headers, idempotency keys, --debug trace)
 * and how it reads lists and deletes. Each test has its own fault server, so they run
 * concurrently; runPay fails any test whose output contains the API key.
 */

const LINK = { _id: 'lnk_1', status: 'Active', paid: false, amount: 25.5, currency: 'EUR', email: 'a@b.co' }
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const CREATE = linkCreateArgs()

const link = (n: number, extra: Record<string, unknown> = {}) => ({
  _id: `lnk_${n}`,
  status: 'Active',
  paid: false,
  amount: n,
  currency: 'EUR',
  email: `c${n}@example.com`,
  title: `T${n}`,
  ...extra,
})

const page = (items: unknown[], current: number, last: number, next: string | null) =>
  envelope({
    current_page: current,
    data: items,
    last_page: last,
    next_page_url: next,
    per_page: 2,
    total: 5,
  })

describe.concurrent('what every request carries', () => {
  it('GET, PUT and DELETE: the key, JSON accept and content type, a pay user agent', async (t) => {
    const server = await serve(t, json(200, envelope(LINK)))
    const get = await runPay(['links', 'get', 'lnk_1', '--json'], server.baseUrl)
    const update = await runPay(['links', 'update', 'lnk_1', '--title', 'U', '--json'], server.baseUrl)
    const remove = await runPay(['links', 'delete', 'lnk_1', '--yes', '-q'], server.baseUrl)
    expect([get.code, update.code, remove.code]).toEqual([0, 0, 0])
    expect(JSON.parse(get.stdout)).toEqual(LINK)
    expect(remove.stdout).toBe('lnk_1\n')
    expect(calls(server.requests)).toEqual([
      'GET /payment-links/lnk_1',
      'GET /payment-links/lnk_1',
      'PUT /payment-links/lnk_1',
      'DELETE /payment-links/lnk_1',
    ])
    for (const request of server.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${CANARY_KEY}`)
      expect(request.headers.accept).toBe('application/json')
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['user-agent']).toMatch(/^pay\/\d+\.\d+\.\d+ /)
      expect(request.headers['idempotency-key']).toBeUndefined()
    }
  })

  it('POST: the same headers and an Idempotency-Key UUID, a new one per invocation', async (t) => {
    const server = await serve(t, json(200, envelope(LINK)))
    const first = await runPay([...CREATE, '--json'], server.baseUrl)
    const second = await runPay([...CREATE, '--json'], server.baseUrl)
    expect([first.code, second.code]).toEqual([0, 0])
    expect(JSON.parse(first.stdout)).toEqual(LINK)
    expect(calls(server.requests)).toEqual(['POST /payment-links', 'POST /payment-links'])
    for (const request of server.requests) {
      expect(request.headers['idempotency-key']).toMatch(UUID)
      expect(request.headers.authorization).toBe(`Bearer ${CANARY_KEY}`)
      expect(request.headers.accept).toBe('application/json')
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['user-agent']).toMatch(/^pay\//)
      // The amount as typed, never through a float.
      expect(JSON.parse(request.body)).toEqual({
        email: 'a@b.co',
        currency: 'EUR',
        amount: '25.50',
        title: 'T',
      })
    }
    expect(server.requests[0].headers['idempotency-key']).not.toBe(
      server.requests[1].headers['idempotency-key'],
    )
  })

  it('--debug: method, URL, status, timing and allow-listed headers; the key redacted', async (t) => {
    const server = await serve(
      t,
      json(200, envelope(LINK), { 'x-request-id': 'req-77', 'set-cookie': 'session=secret' }),
    )
    const result = await runPay(['links', 'get', 'lnk_1', '--json', '--debug'], server.baseUrl)
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual(LINK)
    const lines = result.stderr.split('\n')
    expect(lines).toContain(`[debug] > GET ${server.baseUrl}/payment-links/lnk_1`)
    expect(lines).toContain('[debug] > authorization: Bearer [REDACTED]')
    expect(lines).toContain('[debug] > accept: application/json')
    expect(lines).toContain('[debug] > content-type: application/json')
    expect(lines.filter((line) => /^\[debug\] > user-agent: pay\/\S+ node\/\S+$/.test(line))).toHaveLength(1)
    expect(lines.filter((line) => /^\[debug\] < 200 OK \(\d+ ms\)$/.test(line))).toHaveLength(1)
    expect(lines).toContain('[debug] < content-type: application/json')
    expect(lines).toContain('[debug] < x-request-id: req-77')
    // Headers off the allow-list stay out of the trace.
    expect(result.stderr).not.toContain('set-cookie')
    expect(result.stderr).not.toContain('session=secret')
  })

  it('--debug on a POST shows its idempotency key; a key echoed by the server is redacted', async (t) => {
    const server = await serve(t, (request, res) => {
      res.writeHead(400, { 'content-type': 'text/plain' })
      res.end(`Bad header: ${request.headers.authorization}`)
    })
    const result = await runPay([...CREATE, '--debug'], server.baseUrl)
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(
      `[debug] > idempotency-key: ${server.requests[0].headers['idempotency-key']}\n`,
    )
    expect(result.stderr).toMatch(/^\[debug\] < 400 Bad Request \(\d+ ms\)$/m)
    expect(result.stderr).toContain('Error: The service answered 400: Bad header: Bearer [REDACTED]\n')
    const plain = await runPay(['links', 'get', 'lnk_1'], server.baseUrl)
    expect(plain).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'Error: The service answered 400: Bad header: Bearer [REDACTED]\n',
    })
  })
})

describe.concurrent('lists', () => {
  it('{data: [...]}: unknown fields kept in --json', async (t) => {
    const items = [link(1, { surprise: { nested: [1, 2] } }), link(2, { another_field: null })]
    const server = await serve(t, json(200, envelope(items)))
    const result = await runPay(['links', 'list', '--json'], server.baseUrl)
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(result.stdout)).toEqual(items)
    expect(calls(server.requests)).toEqual(['GET /payment-links'])
  })

  it('a bare array, piped: TSV rows without a header', async (t) => {
    const server = await serve(t, json(200, [link(1), link(2, { paid: true, reference: 'R2' })]))
    const result = await runPay(['links', 'list'], server.baseUrl)
    expect(result).toMatchObject({
      code: 0,
      stderr: '',
      stdout:
        'lnk_1\tActive\tfalse\t1\tEUR\tc1@example.com\tT1\t\t\n' +
        'lnk_2\tActive\ttrue\t2\tEUR\tc2@example.com\tT2\tR2\t\n',
    })
  })

  it('an empty list: [] with --json, exit 0', async (t) => {
    const server = await serve(t, json(200, page([], 1, 1, null)))
    const result = await runPay(['links', 'list', '--json'], server.baseUrl)
    expect(result).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' })
  })

  it('paginated, without --all: the first page only, and a note on stderr that more exist', async (t) => {
    const server = await serve(t)
    server.script(json(200, page([link(1), link(2)], 1, 3, `${server.baseUrl}/payment-links?page=2`)))
    const result = await runPay(['links', 'list', '--json'], server.baseUrl)
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual([link(1), link(2)])
    expect(result.stderr).toBe(
      'More payment links exist than this first page: add --all to fetch them all.\n',
    )
    expect(calls(server.requests)).toEqual(['GET /payment-links'])
  })

  it('paginated, with --all: every page followed in order, one array, filters over all of it', async (t) => {
    const server = await serve(t)
    server.script(
      json(200, page([link(1), link(2, { paid: true })], 1, 3, `${server.baseUrl}/payment-links?page=2`)),
      json(200, page([link(3), link(4, { paid: true })], 2, 3, `${server.baseUrl}/payment-links?page=3`)),
      json(200, page([link(5)], 3, 3, null)),
    )
    const result = await runPay(['links', 'list', '--all', '--json'], server.baseUrl)
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(result.stdout).map((l: { _id: string }) => l._id)).toEqual([
      'lnk_1',
      'lnk_2',
      'lnk_3',
      'lnk_4',
      'lnk_5',
    ])
    expect(calls(server.requests)).toEqual([
      'GET /payment-links',
      'GET /payment-links?page=2',
      'GET /payment-links?page=3',
    ])
    for (const request of server.requests) expect(request.headers.authorization).toBe(`Bearer ${CANARY_KEY}`)
    server.requests.length = 0
    server.script(
      json(200, page([link(1), link(2, { paid: true })], 1, 2, `${server.baseUrl}/payment-links?page=2`)),
      json(200, page([link(3, { paid: true })], 2, 2, null)),
    )
    const paid = await runPay(['links', 'list', '--all', '--paid', '-q'], server.baseUrl)
    expect(paid).toMatchObject({
      code: 0,
      stdout: 'lnk_2\nlnk_3\n',
      stderr: 'Searched 3 payment links on 2 pages.\n',
    })
  })

  it('a next_page_url on another origin is refused: exit 6, the key never sent there', async (t) => {
    const other = await serve(t, json(200, page([link(9)], 2, 2, null)))
    const server = await serve(t, json(200, page([link(1)], 1, 2, `${other.baseUrl}/payment-links?page=2`)))
    const result = await runPay(['links', 'list', '--all', '--json'], server.baseUrl)
    expect(result.code).toBe(6)
    expect(result.stdout).toBe('')
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        status: null,
        kind: 'unavailable',
        exit_code: 6,
        message: `The service pointed to ${other.baseUrl}, outside ${server.baseUrl}; not following it.`,
        hint: 'The API key is only ever sent to the base URL of the profile.',
      },
    })
    expect(calls(server.requests)).toEqual(['GET /payment-links'])
    expect(other.requests).toEqual([])
  })

  it('a list of the wrong shape: exit 6, a clear message, no stack trace', async (t) => {
    const server = await serve(t, json(200, { data: 5 }))
    const result = await runPay(['links', 'list'], server.baseUrl)
    expect(result).toMatchObject({
      code: 6,
      stdout: '',
      stderr:
        'Error: Unexpected answer from the service: expected a list of payment links, got a number.\n' +
        'Run again with --debug to see the exchange.\n',
    })
    expectNoStack(result.stderr)
  })
})

describe.concurrent('deletes', () => {
  it('answered 200 with an envelope, {}, text or nothing, or 204: all done', async (t) => {
    const answers: Record<string, Parameters<typeof serve>[1]> = {
      '/payment-links/envelope': json(200, envelope(null)),
      '/payment-links/empty-object': json(200, {}),
      '/payment-links/text': raw(200, 'Deleted.', 'text/plain'),
      '/payment-links/empty': raw(200, ''),
      '/payment-links/no-content': noContent(),
    }
    const server = await serve(t, (request, res) => answers[request.path](request, res))
    const ids = ['envelope', 'empty-object', 'text', 'empty', 'no-content']
    const result = await runPay(['links', 'delete', ...ids, '--yes', '--json'], server.baseUrl)
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual(
      ids.map((id) => ({ id, ok: true, status: 'deleted', error: null })),
    )
    expect(calls(server.requests).sort()).toEqual(ids.map((id) => `DELETE /payment-links/${id}`).sort())
  })

  it('answered 200 with success:false: that id failed, with the message', async (t) => {
    const server = await serve(t, json(200, { success: false, message: 'Link already paid.', data: null }))
    const result = await runPay(['links', 'delete', 'lnk_1', '--yes'], server.baseUrl)
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('lnk_1\tfailed\tLink already paid.\n')
    expect(result.stderr.endsWith('Error: Link already paid.\n')).toBe(true)
    expect(calls(server.requests)).toEqual(['DELETE /payment-links/lnk_1'])
  })
})
