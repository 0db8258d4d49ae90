import { describe, expect, it, vi } from 'vitest'
import { checkBaseUrl } from '../../../src/api/base-url.js'
import {
  errorFromResponse,
  kindForStatus,
  parseAnyBody,
  parseBody,
  readDeleted,
  readJson,
  readPage,
  readRecord,
} from '../../../src/api/reader.js'
import { parseRetryAfter } from '../../../src/api/retry.js'
import { Transport } from '../../../src/api/transport.js'
import { PayError } from '../../../src/errors.js'

/** The PayError a function throws, for asserting its kind and message. */
function thrown(fn: () => unknown): PayError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(PayError)
    return error as PayError
  }
  throw new Error('expected a PayError, nothing was thrown')
}

describe('readRecord', () => {
  it('takes the data of the envelope, keeping unknown fields', () => {
    const link = { _id: 'a', extra: { deep: [1] } }
    expect(readRecord({ success: true, data: link, errors: null, meta: {} }, 'payment link')).toEqual(link)
  })

  it('takes a bare record as it is', () => {
    expect(readRecord({ _id: 'a', status: 'Active' }, 'payment link')).toEqual({ _id: 'a', status: 'Active' })
  })

  it.each([
    [undefined, 'an empty body'],
    [5, 'a number'],
    ['x', 'a string'],
    [null, 'null'],
    [[{ _id: 'a' }], 'a list'],
    [{ data: 5 }, 'a number'],
    [{ data: [] }, 'a list'],
    [{ data: null }, 'null'],
  ])('%j is a clear "unavailable" error', (body, what) => {
    const error = thrown(() => readRecord(body, 'payment link'))
    expect(error.kind).toBe('unavailable')
    expect(error.exitCode).toBe(6)
    expect(error.message).toBe(`Unexpected answer from the service: expected a payment link, got ${what}.`)
    expect(error.hint).toBe('Run again with --debug to see the exchange.')
  })

  it('an envelope with success:false is the failure it reports', () => {
    const general = thrown(() => readRecord({ success: false, message: 'Nope.' }, 'payment link'))
    expect([general.kind, general.message, general.errors]).toEqual(['general', 'Nope.', undefined])
    const invalid = thrown(() =>
      readRecord({ success: false, errors: { amount: ['Too small.'], email: 'Bad.' } }, 'payment link'),
    )
    expect([invalid.kind, invalid.message, invalid.errors]).toEqual([
      'validation',
      'The service reported a failure.',
      { amount: ['Too small.'], email: ['Bad.'] },
    ])
  })

  it('field errors: every message as text, a field without messages left out, none at all a general failure', () => {
    const mixed = thrown(() =>
      readRecord(
        { success: false, errors: { amount: ['Too small.', 3, { min: 1 }], email: 5, phone: null } },
        'payment link',
      ),
    )
    expect([mixed.kind, mixed.errors]).toEqual(['validation', { amount: ['Too small.', '3', '{"min":1}'] }])
    for (const errors of [{}, { amount: 5 }, ['Too small.']]) {
      const none = thrown(() => readRecord({ success: false, message: 'No.', errors }, 'payment link'))
      expect([none.kind, none.message, none.errors]).toEqual(['general', 'No.', undefined])
    }
  })
})

describe('readPage', () => {
  const a = { _id: 'a' }
  const b = { _id: 'b' }

  it('reads {data: [...]}, a paginated data and a bare array', () => {
    expect(readPage({ success: true, data: [a, b] }, 'link')).toEqual({ items: [a, b], next: undefined })
    expect(readPage([a], 'link')).toEqual({ items: [a], next: undefined })
    expect(
      readPage(
        { data: { data: [a], next_page_url: 'https://x/p?page=2', current_page: 1, last_page: 2 } },
        'link',
      ),
    ).toEqual({ items: [a], next: 'https://x/p?page=2' })
    expect(readPage({ data: { data: [], next_page_url: null } }, 'link')).toEqual({
      items: [],
      next: undefined,
    })
  })

  it('reads a top-level next_page_url or links.next beside data: [...]', () => {
    expect(readPage({ data: [a], next_page_url: '/p?page=2' }, 'link').next).toBe('/p?page=2')
    expect(readPage({ data: [a], links: { next: '/p?page=3' } }, 'link').next).toBe('/p?page=3')
    expect(readPage({ data: [a], next_page_url: '' }, 'link').next).toBeUndefined()
  })

  it.each([
    [{ data: 5 }, 'expected a list of links, got a number'],
    ['x', 'expected a list of links, got a string'],
    [undefined, 'expected a list of links, got an empty body'],
    [{ data: { data: 'x' } }, 'expected a list of links, got a string'],
    [{ items: [a] }, 'expected a list of links, got an object without the expected fields'],
    [[a, null], 'item 1 of the link list is null'],
    [[[a]], 'item 0 of the link list is a list'],
  ])('%j is a clear "unavailable" error', (body, message) => {
    const error = thrown(() => readPage(body, 'link'))
    expect([error.kind, error.message]).toEqual([
      'unavailable',
      `Unexpected answer from the service: ${message}.`,
    ])
  })

  it('an envelope with success:false is the failure it reports', () => {
    expect(thrown(() => readPage({ success: false, message: 'Suspended.' }, 'link')).message).toBe(
      'Suspended.',
    )
  })

  // The service's clock: `subs list --overdue` measures ages by it, not by this machine's.
  it("keeps the envelope's meta.timestamp, and only a text one", () => {
    const meta = { timestamp: '2040-06-01 00:00:00 UTC', timezone: 'UTC' }
    expect(readPage({ success: true, data: [a], meta }, 'link')).toStrictEqual({
      items: [a],
      next: undefined,
      timestamp: '2040-06-01 00:00:00 UTC',
    })
    expect(readPage({ data: { data: [a], next_page_url: null }, meta }, 'link').timestamp).toBe(
      '2040-06-01 00:00:00 UTC',
    )
    for (const body of [
      { data: [a] },
      { data: [a], meta: null },
      { data: [a], meta: 'x' },
      { data: [a], meta: { timestamp: 1_700_000_000 } },
      { data: [a], meta: { timezone: 'UTC' } },
      [a],
    ]) {
      expect(readPage(body, 'link'), JSON.stringify(body)).toStrictEqual({ items: [a], next: undefined })
    }
  })
})

describe('readDeleted and parseAnyBody', () => {
  it('any body means done, unless an envelope says success:false', () => {
    for (const text of [
      '',
      '{}',
      'Deleted.',
      '<html></html>',
      '{"success":true,"data":null}',
      'null',
      '[]',
    ]) {
      expect(() => readDeleted(parseAnyBody(text))).not.toThrow()
    }
    expect(parseAnyBody('')).toBeUndefined()
    expect(parseAnyBody(' \n')).toBeUndefined()
    expect(parseAnyBody('Deleted.')).toBe('Deleted.')
    expect(parseAnyBody('{"a":1}')).toEqual({ a: 1 })
    const error = thrown(() => readDeleted(parseAnyBody('{"success":false,"message":"Already paid."}')))
    expect([error.kind, error.message]).toEqual(['general', 'Already paid.'])
  })
})

/** JSON arrays nested `depth` deep: `[[[]]]` is 3. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

describe('readJson', () => {
  it('any JSON value; undefined for an empty body, text that is not JSON, or JSON nested past 256 levels', () => {
    expect(readJson('{"a":[1]}')).toEqual({ value: { a: [1] } })
    expect(readJson(' null ')).toEqual({ value: null })
    expect(readJson('"text"')).toEqual({ value: 'text' })
    for (const text of ['', ' \n', 'Deleted.', '{"a":', nested(257)]) expect(readJson(text)).toBeUndefined()
    expect(readJson(nested(256))?.value).toBeInstanceOf(Array)
  })
})

describe('parseBody', () => {
  it('parses JSON; an empty body is undefined', () => {
    expect(parseBody(200, '{"a":[1]}', 'application/json')).toEqual({ a: [1] })
    expect(parseBody(200, '  \n', 'application/json')).toBeUndefined()
  })

  it('names what came instead of JSON', () => {
    expect(thrown(() => parseBody(200, '{"a":', 'application/json')).message).toBe(
      'Unexpected answer from the service: status 200 with a body that is not JSON.',
    )
    expect(thrown(() => parseBody(201, 'hello', undefined)).message).toBe(
      'Unexpected answer from the service: status 201 with a body that is not JSON.',
    )
    expect(thrown(() => parseBody(200, '<!doctype html><p>hi', 'text/plain')).message).toBe(
      'Unexpected answer from the service: status 200 with an HTML page.',
    )
    expect(thrown(() => parseBody(200, 'x', 'text/html; charset=utf-8')).kind).toBe('unavailable')
    expect(thrown(() => parseBody(200, 'Sign in first', 'text/html; charset=utf-8')).message).toBe(
      'Unexpected answer from the service: status 200 with an HTML page.',
    )
    expect(thrown(() => parseBody(200, '\n  <html><body>hi', undefined)).message).toBe(
      'Unexpected answer from the service: status 200 with an HTML page.',
    )
    // A "<" that does not open the text is no HTML.
    expect(thrown(() => parseBody(200, 'a < b', undefined)).message).toBe(
      'Unexpected answer from the service: status 200 with a body that is not JSON.',
    )
  })

  it('refuses JSON nested deeper than 256 levels, arrays or objects, which printing it could not survive', () => {
    expect(parseBody(200, nested(256), 'application/json')).toBeInstanceOf(Array)
    const deepObject = `${'{"a":'.repeat(256)}1${'}'.repeat(256)}`
    expect(parseBody(200, deepObject, 'application/json')).toBeInstanceOf(Object)
    const tooDeep = thrown(() => parseBody(200, nested(257), 'application/json'))
    expect([tooDeep.kind, tooDeep.message, tooDeep.hint]).toEqual([
      'unavailable',
      'Unexpected answer from the service: status 200 with JSON nested deeper than 256 levels.',
      'Run again with --debug to see the exchange.',
    ])
    // The deep branch behind shallow ones and plain values, in an object as in an array.
    const behind = `{"n":1,"s":"x","z":null,"flat":[1,2],"deep":${`${'{"a":'.repeat(256)}{}${'}'.repeat(256)}`}}`
    expect(thrown(() => parseBody(201, behind, 'application/json')).message).toBe(
      'Unexpected answer from the service: status 201 with JSON nested deeper than 256 levels.',
    )
    expect(thrown(() => parseBody(200, `[1,null,"x",${nested(256)}]`, undefined)).kind).toBe('unavailable')
    expect(parseBody(200, `[1,null,"x",${nested(255)}]`, undefined)).toHaveLength(4)
  })

  it('names an HTML page by its title, sanitised and with the key redacted', () => {
    const page = '<html><head><title>Sign in \u001b[31mto sk_live_KEY</title></head><body>x</body></html>'
    const redact = (text: string) => text.replaceAll('sk_live_KEY', '[redacted]')
    expect(thrown(() => parseBody(200, page, 'text/html', redact)).message).toBe(
      'Unexpected answer from the service: status 200 with an HTML page (Sign in ^[[31mto [redacted]).',
    )
  })
})

describe('errorFromResponse', () => {
  it('{message, errors}: the message, each field with its messages, the status', () => {
    const error = errorFromResponse(
      422,
      JSON.stringify({
        message: 'The given data was invalid.',
        errors: { email: ['Required.'], amount: 'Bad.' },
      }),
      'application/json',
    )
    expect(error).toMatchObject({
      kind: 'validation',
      status: 422,
      message: 'The given data was invalid.',
      errors: { email: ['Required.'], amount: ['Bad.'] },
    })
    expect(error.exitCode).toBe(3)
  })

  it('finds the message under errors.message, error or error.message', () => {
    expect(errorFromResponse(400, '{"errors":{"message":"A"}}').message).toBe('A')
    expect(errorFromResponse(400, '{"error":"B"}').message).toBe('B')
    expect(errorFromResponse(400, '{"error":{"message":"C"}}').message).toBe('C')
    expect(errorFromResponse(400, '{"success":false,"message":"D","data":null}').message).toBe('D')
  })

  it('the first message that is text wins: message, then errors.message, error, error.message', () => {
    const A = '"message":"A"'
    expect(errorFromResponse(400, `{${A},"errors":{"message":"B"}}`).message).toBe('A')
    expect(errorFromResponse(400, `{${A},"error":"B"}`).message).toBe('A')
    expect(errorFromResponse(400, `{${A},"error":{"message":"B"}}`).message).toBe('A')
    expect(errorFromResponse(400, '{"errors":{"message":"B"},"error":"C"}').message).toBe('B')
    expect(errorFromResponse(400, '{"error":"C","errors":{"message":["x"]}}').message).toBe('C')
    const none = 'The service rejected the request as malformed (400).'
    for (const body of [
      '{"message":5}',
      '{"errors":{"message":["x"]}}',
      '{"error":{"message":3}}',
      '{"error":7}',
    ]) {
      expect(errorFromResponse(400, body).message, body).toBe(none)
    }
  })

  it('a JSON body without a message gets one for its status', () => {
    expect(errorFromResponse(401, '{}').message).toBe('The API key was not accepted (401).')
    expect(errorFromResponse(418, '[]').message).toBe('The service answered 418.')
    expect(errorFromResponse(422, '{"errors":{"email":["x"]}}').message).toBe('The given data was invalid.')
    expect(errorFromResponse(500, 'null').message).toBe('The service answered 500.')
    expect(errorFromResponse(400, '{}').message).toBe('The service rejected the request as malformed (400).')
    expect(errorFromResponse(403, '{}').message).toBe('The API key is not allowed to do this (403).')
    expect(errorFromResponse(404, '{}').message).toBe('Not found (404).')
    expect(errorFromResponse(429, '{}').message).toBe('Too many requests (429).')
    expect(errorFromResponse(429, '[]')).toMatchObject({ kind: 'unavailable', status: 429 })
  })

  it('an empty body, or one of spaces, gets the message of its status', () => {
    for (const text of ['', '  \n', '""', '"  "']) {
      expect(errorFromResponse(400, text), JSON.stringify(text)).toMatchObject({
        kind: 'general',
        status: 400,
        message: 'The service rejected the request as malformed (400).',
      })
    }
  })

  it('JSON nested too deep is read as text', () => {
    expect(errorFromResponse(500, nested(300)).message).toBe(`The service answered 500: ${'['.repeat(200)}…`)
  })

  it('a JSON string body is the message, unquoted', () => {
    expect(errorFromResponse(409, '"Invalid key format"')).toMatchObject({
      kind: 'general',
      status: 409,
      message: 'The service answered 409: Invalid key format',
    })
  })

  it('plain text: its words on one line, shortened when long', () => {
    expect(errorFromResponse(400, 'Bad\r\n  request\n').message).toBe('The service answered 400: Bad request')
    const long = errorFromResponse(400, 'y'.repeat(500)).message
    expect(long).toBe(`The service answered 400: ${'y'.repeat(200)}…`)
    expect(errorFromResponse(400, 'y'.repeat(200)).message).toBe(
      `The service answered 400: ${'y'.repeat(200)}`,
    )
    expect(errorFromResponse(503, 'Down')).toMatchObject({ kind: 'unavailable', status: 503 })
  })

  it('HTML: the title only, never the page', () => {
    const page =
      '<html><head><title>502 Bad Gateway</title></head><body><h1>x</h1><script>evil()</script></body></html>'
    expect(errorFromResponse(502, page, 'text/html').message).toBe(
      'The service answered 502 with an HTML page (502 Bad Gateway).',
    )
    expect(errorFromResponse(503, '<p>Down   for\nmaintenance</p>', 'text/html').message).toBe(
      'The service answered 503 with an HTML page (Down for maintenance).',
    )
    expect(errorFromResponse(500, '<html></html>', 'text/html').message).toBe(
      'The service answered 500 with an HTML page.',
    )
    const withAttributes = '<html><title lang="en">Bad Gateway</title><body><h1>nginx</h1></body></html>'
    expect(errorFromResponse(502, withAttributes, 'text/html').message).toBe(
      'The service answered 502 with an HTML page (Bad Gateway).',
    )
    // Tags are spaces between words, and a page is one however its type is given.
    expect(errorFromResponse(503, '<p>Down</p><p>for maintenance</p>').message).toBe(
      'The service answered 503 with an HTML page (Down for maintenance).',
    )
    expect(errorFromResponse(503, 'Down for maintenance', 'text/html')).toMatchObject({
      kind: 'unavailable',
      status: 503,
      message: 'The service answered 503 with an HTML page (Down for maintenance).',
    })
  })

  it('control characters in server text are made visible', () => {
    expect(errorFromResponse(400, 'a\u001b[2Jb').message).toBe('The service answered 400: a^[[2Jb')
  })

  it.each([
    [400, 'general'],
    [401, 'auth'],
    [403, 'auth'],
    [404, 'not_found'],
    [408, 'unavailable'],
    [409, 'general'],
    [422, 'validation'],
    [429, 'unavailable'],
    [500, 'unavailable'],
    [502, 'unavailable'],
    [503, 'unavailable'],
  ])('status %i is kind %s', (status, kind) => {
    expect(kindForStatus(status)).toBe(kind)
    expect(errorFromResponse(status, '').kind).toBe(kind)
  })
})

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, as milliseconds', () => {
    expect(parseRetryAfter('1')).toBe(1000)
    expect(parseRetryAfter(' 3600 ')).toBe(3_600_000)
    expect(parseRetryAfter('0')).toBe(0)
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBe(0)
  })

  it('reads an HTTP date as the time from now until it, on a clock the test sets', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 0, 1, 12, 0, 0, 250) })
    try {
      expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:10 GMT')).toBe(9750)
      expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:00 GMT')).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })

  it('ignores what it cannot read', () => {
    for (const value of [undefined, '', 'soon', '-5', '1.5']) expect(parseRetryAfter(value)).toBeUndefined()
  })
})

describe('checkBaseUrl', () => {
  it.each([
    'https://api.example.com',
    'https://api.example.com/v1/',
    'http://localhost:4010',
    'http://127.0.0.1:4010',
    'http://127.1.2.3',
    'http://[::1]:4010',
  ])('accepts %s', (url) => {
    expect(checkBaseUrl(url).href.startsWith(url.replace(/\/$/, ''))).toBe(true)
  })

  it.each([
    ['http://example.com', 'Refusing to send the API key over plain http to example.com.'],
    [
      'http://127.0.0.1.evil.example',
      'Refusing to send the API key over plain http to 127.0.0.1.evil.example.',
    ],
    [
      'http://localhost.evil.example:80',
      'Refusing to send the API key over plain http to localhost.evil.example.',
    ],
    ['http://10.0.0.1:8080', 'Refusing to send the API key over plain http to 10.0.0.1:8080.'],
    ['ftp://localhost', 'The base URL "ftp://localhost" must start with https:// (or http:// for loopback).'],
    ['api.example.com', 'The base URL "api.example.com" is not a valid URL.'],
    [
      'https://user:pw@api.example.com/v1',
      'The base URL "https://api.example.com/v1…" carries a user, query or fragment.',
    ],
    [
      'https://api.example.com/v1?x=1',
      'The base URL "https://api.example.com/v1…" carries a user, query or fragment.',
    ],
    ['http://localhost:4010/#x', 'The base URL "http://localhost:4010/…" carries a user, query or fragment.'],
  ])('refuses %s as a usage error', (url, message) => {
    const error = thrown(() => checkBaseUrl(url))
    expect([error.kind, error.exitCode, error.message]).toEqual(['usage', 2, message])
  })
})

describe('Transport.url', () => {
  const transport = new Transport({
    baseUrl: 'https://api.example.com/v1/',
    apiKey: 'sk_canary_DO_NOT_LEAK_unit',
    timeoutMs: 1000,
    userAgent: 'pay/test',
  })

  it('puts API paths under the base URL', () => {
    expect(transport.url('/payment-links')).toBe('https://api.example.com/v1/payment-links')
  })

  it('takes a URL on the same origin as it is, and refuses any other origin', () => {
    expect(transport.url('https://api.example.com/v1/payment-links?page=2')).toBe(
      'https://api.example.com/v1/payment-links?page=2',
    )
    for (const other of [
      'https://evil.example/v1/payment-links',
      'http://api.example.com/v1/x',
      'https://api.example.com:8443/',
    ]) {
      const error = thrown(() => transport.url(other))
      expect(error.kind).toBe('unavailable')
      expect(error.message).toBe(
        `The service pointed to ${new URL(other).origin}, outside https://api.example.com; not following it.`,
      )
    }
  })
})
