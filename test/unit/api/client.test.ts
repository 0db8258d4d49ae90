import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { PayApi } from '../../../src/api/client.js'
import type { TransportOptions } from '../../../src/api/transport.js'
import type { ListPage } from '../../../src/api/types.js'
import { PayError } from '../../../src/errors.js'
import { envelope } from '../../helpers/fake-server.js'
import {
  CANARY_KEY,
  calls,
  cutOff,
  type FaultServer,
  type Handler,
  hang,
  json,
  noContent,
  raw,
  redirect,
  reset,
  serve,
} from '../../helpers/fault-server.js'

/**
 * The client in-process against a fault server: every variant of the tolerant reader and of
 * the retry rules, fast (short back-off). test/unit/api/http-*.test.ts prove the same through the commands.
 */

const LINK = { _id: 'lnk_1', status: 'Active', amount: 10 }

function client(server: FaultServer | string, options: Partial<TransportOptions> = {}) {
  return new PayApi({
    baseUrl: typeof server === 'string' ? server : server.baseUrl,
    apiKey: CANARY_KEY,
    timeoutMs: 5000,
    userAgent: 'pay/0.0.0-test',
    retryBaseMs: 20,
    ...options,
  })
}

async function rejection(promise: Promise<unknown>): Promise<PayError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(PayError)
    return error as PayError
  }
  throw new Error('expected the call to fail')
}

/**
 * A client whose --debug trace is kept: the waits between attempts it asked for (`retrying in
 * 50 ms`), never a time measured.
 */
function traced(server: FaultServer, options: Partial<TransportOptions> = {}) {
  const lines: string[] = []
  const api = client(server, { debug: (line) => lines.push(line), ...options })
  return { api, waits: () => lines.filter((line) => line.startsWith('retrying in ')) }
}

const LINK_INPUT = { email: 'a@b.co', currency: 'EUR', amount: '10', title: 'T' }

describe.concurrent('deletes', () => {
  it.for([
    ['an envelope', json(200, envelope(null))],
    ['{}', json(200, {})],
    ['plain text', raw(200, 'Deleted.', 'text/plain')],
    ['an HTML page', raw(200, '<html><body>ok</body></html>', 'text/html')],
    ['JSON that is not an object', json(200, 'deleted')],
    ['an empty 200', raw(200, '')],
    ['202 Accepted', raw(202, '')],
    ['204 No Content', noContent()],
  ] as [string, Handler][])('a delete answered with %s is done', async ([, handler], t) => {
    const server = await serve(t, handler)
    await expect(client(server).send('deleteLink', { id: 'lnk 1/x' })).resolves.toBeUndefined()
    await expect(client(server).send('deleteSubscription', { id: 'sub_1' })).resolves.toBeUndefined()
    expect(calls(server.requests)).toEqual([
      'DELETE /payment-links/lnk%201%2Fx',
      'DELETE /subscriptions/sub_1',
    ])
  })

  it('a delete answered 200 with success:false fails with its message', async (t) => {
    const server = await serve(t, json(200, { success: false, message: 'Already paid.' }))
    const error = await rejection(client(server).send('deleteLink', { id: 'lnk_1' }))
    expect([error.kind, error.message]).toEqual(['general', 'Already paid.'])
  })
})

describe.concurrent('records', () => {
  it('a record in the envelope or bare, unknown fields kept', async (t) => {
    const server = await serve(t, json(200, envelope({ ...LINK, new_field: [1] })), json(200, LINK))
    expect(await client(server).send('getLink', { id: 'lnk_1' })).toEqual({ ...LINK, new_field: [1] })
    expect(await client(server).send('getSubscription', { id: 'sub_1' })).toEqual(LINK)
  })

  it.for([
    [json(200, { data: 5 }), 'expected a payment link, got a number'],
    [json(200, 'text'), 'expected a payment link, got a string'],
    [raw(200, ''), 'expected a payment link, got an empty body'],
    [noContent(), 'expected a payment link, got an empty body'],
    [raw(200, '{"data":', 'application/json'), 'status 200 with a body that is not JSON'],
    [raw(200, '<html></html>', 'text/html'), 'status 200 with an HTML page'],
  ] as [Handler, string][])('a wrong answer to a get is a clear error (%#)', async ([handler, what], t) => {
    const server = await serve(t, handler)
    const error = await rejection(client(server).send('getLink', { id: 'lnk_1' }))
    expect([error.kind, error.message]).toEqual([
      'unavailable',
      `Unexpected answer from the service: ${what}.`,
    ])
    expect(server.requests).toHaveLength(1)
  })
})

/** A list as the first page, or with `all` every page, the way the list commands walk it. */
async function list(pages: AsyncGenerator<ListPage>, all = false) {
  const items: unknown[] = []
  for await (const page of pages) {
    items.push(...page.items)
    if (!all) return { items, more: page.more }
  }
  return { items, more: false }
}

describe.concurrent('lists', () => {
  const a = { _id: 'a' }
  const b = { _id: 'b' }
  const paginated = (items: unknown[], next: string | null) =>
    envelope({ data: items, next_page_url: next, current_page: 1, last_page: 2 })

  it.for([
    ['{data: [...]}', envelope([a, b])],
    ['a bare array', [a, b]],
    ['a paginated last page', paginated([a, b], null)],
  ])('reads %s', async ([, body], t) => {
    const server = await serve(t, json(200, body))
    expect(await list(client(server).pages('listLinks'))).toEqual({ items: [a, b], more: false })
    expect(await list(client(server).pages('listSubscriptions'), true)).toEqual({
      items: [a, b],
      more: false,
    })
    expect(calls(server.requests)).toEqual(['GET /payment-links', 'GET /subscriptions'])
  })

  it('without all: the first page, and whether more exist', async (t) => {
    const server = await serve(t)
    server.script(json(200, paginated([a], `${server.baseUrl}/payment-links?page=2`)))
    expect(await list(client(server).pages('listLinks'))).toEqual({ items: [a], more: true })
    expect(calls(server.requests)).toEqual(['GET /payment-links'])
  })

  it('with all: a relative next_page_url is resolved against the page it came from', async (t) => {
    const server = await serve(
      t,
      json(200, paginated([a], '/api/payment-links?page=2')),
      json(200, paginated([b], '?page=3')),
      json(200, paginated([], null)),
    )
    expect(await list(client(`${server.baseUrl}/api`).pages('listLinks'), true)).toEqual({
      items: [a, b],
      more: false,
    })
    expect(calls(server.requests)).toEqual([
      'GET /api/payment-links',
      'GET /api/payment-links?page=2',
      'GET /api/payment-links?page=3',
    ])
  })

  it('with all: a next_page_url seen before ends the walk', async (t) => {
    const server = await serve(t)
    server.script(
      json(200, paginated([a], `${server.baseUrl}/payment-links?page=2`)),
      json(200, paginated([b], `${server.baseUrl}/payment-links`)),
    )
    expect(await list(client(server).pages('listLinks'), true)).toEqual({ items: [a, b], more: false })
    expect(server.requests).toHaveLength(2)
  })

  it('with all: a next_page_url on another origin is refused, nothing sent there', async (t) => {
    const other = await serve(t, json(200, [b]))
    const server = await serve(t, json(200, paginated([a], `${other.baseUrl}/payment-links?page=2`)))
    const error = await rejection(list(client(server).pages('listLinks'), true))
    expect(error.kind).toBe('unavailable')
    expect(error.message).toBe(
      `The service pointed to ${other.baseUrl}, outside ${server.baseUrl}; not following it.`,
    )
    expect(other.requests).toEqual([])
  })

  it('with all: a bad page fails the whole list', async (t) => {
    const server = await serve(t)
    server.script(json(200, paginated([a], `${server.baseUrl}/payment-links?page=2`)), json(200, { data: 7 }))
    const error = await rejection(list(client(server).pages('listLinks'), true))
    expect(error.message).toBe(
      'Unexpected answer from the service: expected a list of payment links, got a number.',
    )
  })
})

describe.concurrent('retries', () => {
  it.for([408, 429, 500, 502, 503, 504])(
    'GET answered %i is tried 3 times in all, backing off, then fails as unavailable',
    async (status, t) => {
      const server = await serve(t, json(status, { message: `status ${status}` }))
      const { api, waits } = traced(server, { retryBaseMs: 50 })
      const error = await rejection(api.send('getLink', { id: 'lnk_1' }))
      expect([error.kind, error.status, error.message]).toEqual(['unavailable', status, `status ${status}`])
      expect(server.requests).toHaveLength(3)
      expect(waits()).toEqual(['retrying in 50 ms (attempt 2 of 3)', 'retrying in 100 ms (attempt 3 of 3)'])
    },
  )

  it.for([
    [400, 'general'],
    [401, 'auth'],
    [403, 'auth'],
    [404, 'not_found'],
    [409, 'general'],
    [422, 'validation'],
  ] as const)('GET answered %i is not retried: kind %s', async ([status, kind], t) => {
    const server = await serve(t, json(status, { message: 'no' }), json(200, envelope(LINK)))
    const error = await rejection(client(server).send('getLink', { id: 'lnk_1' }))
    expect([error.kind, error.status]).toEqual([kind, status])
    expect(server.requests).toHaveLength(1)
  })

  it('PUT and DELETE are retried after a reset connection and a 502', async (t) => {
    const server = await serve(t, reset(), json(502, {}), json(200, envelope(LINK)), reset(), noContent())
    expect(await client(server).send('updateLink', { id: 'lnk_1', body: LINK_INPUT })).toEqual(LINK)
    await client(server).send('deleteSubscription', { id: 'sub_1' })
    expect(calls(server.requests)).toEqual([
      'PUT /payment-links/lnk_1',
      'PUT /payment-links/lnk_1',
      'PUT /payment-links/lnk_1',
      'DELETE /subscriptions/sub_1',
      'DELETE /subscriptions/sub_1',
    ])
    // The same body each time.
    expect(new Set(server.requests.slice(0, 3).map((r) => r.body)).size).toBe(1)
  })

  it('a body cut off mid-answer is retried on a GET, then reported as cut off', async (t) => {
    const server = await serve(t, cutOff('{"data":{"_id":"lnk_1"'))
    const error = await rejection(client(server).send('getLink', { id: 'lnk_1' }))
    expect(error.message).toBe(
      `The answer from ${server.baseUrl} was cut off: the connection closed before its end.`,
    )
    expect(server.requests).toHaveLength(3)
  })

  it.for([
    ['503', json(503, { message: 'busy' })],
    ['429 with Retry-After: 0', json(429, { message: 'busy' }, { 'retry-after': '0' })],
    ['a reset connection', reset()],
    ['a cut-off body', cutOff('{"data":')],
    ['a redirect', redirect('/elsewhere', 307)],
  ] as [string, Handler][])('POST answered with %s is sent exactly once', async ([, handler], t) => {
    const server = await serve(t, handler, json(200, envelope(LINK)))
    const error = await rejection(client(server).send('createLink', { body: LINK_INPUT }))
    expect(error.kind).toBe('unavailable')
    expect(calls(server.requests)).toEqual(['POST /payment-links'])
  })

  it('a POST carries a fresh UUID Idempotency-Key, only POSTs do', async (t) => {
    const server = await serve(t, json(200, envelope(LINK)))
    const api = client(server)
    await api.send('createLink', { body: LINK_INPUT })
    await api.send('createSubscription', { body: { package_id: 'p', email: 'a@b.co' } })
    await api.send('createToken', { body: { email: 'a@b.co', title: 't', description: 'd' } })
    await api.send('getLink', { id: 'x' })
    const keys = server.requests.map((r) => r.headers['idempotency-key'])
    expect(keys.slice(0, 3).every((key) => /^[0-9a-f-]{36}$/.test(String(key)))).toBe(true)
    expect(new Set(keys.slice(0, 3)).size).toBe(3)
    expect(keys[3]).toBeUndefined()
  })

  it('Retry-After is honoured, capped by retryAfterCapMs', async (t) => {
    const server = await serve(
      t,
      json(429, {}, { 'retry-after': '3600' }),
      json(503, {}, { 'retry-after': '0' }),
      json(200, envelope(LINK)),
    )
    const { api, waits } = traced(server, { retryAfterCapMs: 300, retryBaseMs: 2000 })
    expect(await api.send('getLink', { id: 'lnk_1' })).toEqual(LINK)
    expect(waits()).toEqual(['retrying in 300 ms (attempt 2 of 3)', 'retrying in 0 ms (attempt 3 of 3)'])
  })

  it('a wait that would pass the deadline is not started: the last failure at once', async (t) => {
    const server = await serve(t, json(503, { message: 'later' }, { 'retry-after': '2' }))
    const { api, waits } = traced(server, { timeoutMs: 1500 })
    const error = await rejection(api.send('getLink', { id: 'lnk_1' }))
    expect(error.message).toBe('later')
    expect(server.requests).toHaveLength(1)
    expect(waits()).toEqual([])
  })
})

describe('the deadline', () => {
  it('no answer: the request is abandoned at the deadline, not retried', async (t) => {
    const server = await serve(t, hang())
    const { api, waits } = traced(server, { timeoutMs: 400 })
    const error = await rejection(api.send('getLink', { id: 'lnk_1' }))
    expect([error.kind, error.message]).toEqual([
      'unavailable',
      `No answer from ${server.baseUrl} within 0.4 s.`,
    ])
    expect(server.requests).toHaveLength(1)
    expect(waits()).toEqual([])
  })

  /**
   * On a clock the test moves (Date alone is faked; timers and sockets run as ever): each answer
   * moves it by the time the answer is said to take, each wait by the time the client asked for
   * (its trace, written as the wait starts). The client's arithmetic of the deadline is then the
   * same on any machine, however slow.
   */
  describe('on a clock the test moves', () => {
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 0, 1) })
    })
    afterEach(() => {
      vi.useRealTimers()
    })
    const slowly =
      (ms: number): Handler =>
      (_, res) => {
        vi.setSystemTime(Date.now() + ms)
        res.writeHead(503)
        res.end()
      }
    const clockedClient = (server: FaultServer, options: Partial<TransportOptions>) => {
      const waits: string[] = []
      const api = client(server, {
        ...options,
        debug: (line) => {
          const wait = /^retrying in (\d+) ms/.exec(line)
          if (!wait) return
          waits.push(line)
          vi.setSystemTime(Date.now() + Number(wait[1]))
        },
      })
      return { api, waits }
    }

    it('slow failures and back-off together stay within the deadline: no back-off that would end past it', async (t) => {
      // 500 ms: 150 the first answer, 100 the back-off, 150 the second answer (400); a back-off
      // of 200 would end at 600, past the deadline: the last answer is the failure.
      const server = await serve(t, slowly(150))
      const { api, waits } = clockedClient(server, { timeoutMs: 500, retryBaseMs: 100 })
      const error = await rejection(api.send('getLink', { id: 'lnk_1' }))
      expect([error.kind, error.status]).toEqual(['unavailable', 503])
      expect(server.requests).toHaveLength(2)
      expect(waits).toEqual(['retrying in 100 ms (attempt 2 of 3)'])
    })

    it('an answer that ends past the deadline is the last: no attempt after it', async (t) => {
      const server = await serve(t, slowly(600))
      const { api, waits } = clockedClient(server, { timeoutMs: 500, retryBaseMs: 1 })
      const error = await rejection(api.send('getLink', { id: 'lnk_1' }))
      expect([error.kind, error.status]).toEqual(['unavailable', 503])
      expect(server.requests).toHaveLength(1)
      expect(waits).toEqual([])
    })

    it('with time for all: three attempts, the back-offs as asked', async (t) => {
      const server = await serve(t, slowly(150))
      const { api, waits } = clockedClient(server, { timeoutMs: 5000, retryBaseMs: 100 })
      const error = await rejection(api.send('getLink', { id: 'lnk_1' }))
      expect([error.kind, error.status]).toEqual(['unavailable', 503])
      expect(server.requests).toHaveLength(3)
      expect(waits).toEqual(['retrying in 100 ms (attempt 2 of 3)', 'retrying in 200 ms (attempt 3 of 3)'])
    })
  })
})

describe.concurrent('the key stays secret', () => {
  it('is redacted from the debug trace, even when the server echoes it in a header', async (t) => {
    const lines: string[] = []
    const server = await serve(t, (request, res) => {
      res.writeHead(302, { location: `/login?token=${request.headers.authorization}` })
      res.end()
    })
    const error = await rejection(
      client(server, { debug: (line) => lines.push(line) }).send('getLink', { id: 'lnk_1' }),
    )
    expect(error.message).toBe(
      `The service answered 302 with a redirect to ${server.baseUrl}; pay does not follow redirects.`,
    )
    expect(lines).toContain(`> GET ${server.baseUrl}/payment-links/lnk_1`)
    expect(lines).toContain('> authorization: Bearer [REDACTED]')
    expect(lines).toContain('< location: /login?token=Bearer [REDACTED]')
    expect(lines.join('\n')).not.toContain(CANARY_KEY)
  })

  it('is redacted from error messages and field errors a server echoes it into', async (t) => {
    const server = await serve(t, (request, res) => {
      const auth = String(request.headers.authorization)
      res.writeHead(422, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ message: `Bad ${auth}`, errors: { key: [`${auth} is revoked`] } }))
    })
    const error = await rejection(client(server).send('createLink', { body: LINK_INPUT }))
    expect([error.kind, error.status, error.message, error.errors]).toEqual([
      'validation',
      422,
      'Bad Bearer [REDACTED]',
      { key: ['Bearer [REDACTED] is revoked'] },
    ])
  })
})
