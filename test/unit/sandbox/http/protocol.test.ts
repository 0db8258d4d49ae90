import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  clientFor,
  KEY_A,
  KEY_B,
  rawRequest,
  startTestSandbox,
  type TestSandbox,
  VALID_LINK,
  VALID_TOKEN,
} from '../../../helpers/sandbox.js'

let t: TestSandbox
beforeAll(async () => {
  t = await startTestSandbox()
})
afterAll(() => t.sandbox.close())

const ENDPOINTS: [string, string][] = [
  ['POST', '/tokenizations/create-token'],
  ['POST', '/payment-links'],
  ['GET', '/payment-links'],
  ['GET', '/payment-links/000000000000000000000000'],
  ['PUT', '/payment-links/000000000000000000000000'],
  ['DELETE', '/payment-links/000000000000000000000000'],
  ['POST', '/subscriptions'],
  ['GET', '/subscriptions'],
  ['GET', '/subscriptions/000000000000000000000000'],
  ['PUT', '/subscriptions/000000000000000000000000'],
  ['DELETE', '/subscriptions/000000000000000000000000'],
]

/** Requests that would succeed with a valid key. */
const serverStillServes = async () => {
  const { status } = await t.a.call('POST', '/payment-links', VALID_LINK)
  expect(status).toBe(200)
}

describe('authentication', () => {
  it.each(ENDPOINTS)(
    '%s %s answers 401 without a key, with an unknown key, with another scheme',
    async (method, route) => {
      const body = method === 'POST' || method === 'PUT' ? VALID_LINK : undefined
      const attempts = [
        clientFor(t.sandbox.baseUrl, null).call(method, route, body),
        clientFor(t.sandbox.baseUrl, 'sk_sandbox_wrong').call(method, route, body),
        clientFor(t.sandbox.baseUrl, null).call(method, route, body, { Authorization: `Basic ${KEY_A}` }),
        clientFor(t.sandbox.baseUrl, null).call(method, route, body, { Authorization: KEY_A }),
      ]
      for (const answer of await Promise.all(attempts)) {
        expect(answer.status).toBe(401)
        expect(answer.json).toEqual({ message: 'Unauthenticated.' })
        expect(answer.headers.get('www-authenticate')).toBe('Bearer')
        expect(answer.headers.get('x-pay-sandbox')).toBe('1')
      }
    },
  )

  it('accepts the scheme in any case', async () => {
    const answer = await clientFor(t.sandbox.baseUrl, null).call('GET', '/payment-links', undefined, {
      Authorization: `bearer ${KEY_A}`,
    })
    expect(answer.status).toBe(200)
  })

  it('never echoes a key in a response', async () => {
    const answers = [
      await t.a.call('POST', '/payment-links', VALID_LINK),
      await t.a.call('POST', '/payment-links', {}),
      await t.a.call('GET', '/payment-links'),
      await clientFor(t.sandbox.baseUrl, 'sk_sandbox_wrong').call('GET', '/payment-links'),
    ]
    for (const answer of answers) {
      expect(answer.text).not.toContain(KEY_A)
      expect(answer.text).not.toContain('sk_sandbox_wrong')
    }
  })
})

describe('health', () => {
  it('answers without a key', async () => {
    const answer = await clientFor(t.sandbox.baseUrl, null).call('GET', '/_sandbox/health')
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ service: 'pay-sandbox' })
    expect(answer.headers.get('x-pay-sandbox')).toBe('1')
  })
})

describe('routing', () => {
  it('answers 404 for an unknown route, before authentication', async () => {
    for (const route of ['/', '/nope', '/payment-links/a/b', '/checkoutx']) {
      const answer = await clientFor(t.sandbox.baseUrl, null).call('GET', route)
      expect(answer.status).toBe(404)
      expect(answer.json).toEqual({ message: 'Not found.' })
      expect(answer.headers.get('x-pay-sandbox')).toBe('1')
    }
    // Under /checkout/ are the customer's pages: their 404 is a page (test/unit/sandbox/pages/pages.test.ts).
    const page = await clientFor(t.sandbox.baseUrl, null).call('GET', '/checkout/pay?id=1')
    expect(page.status).toBe(404)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
  })

  it('answers 405 with Allow for a method the route lacks', async () => {
    const cases: [string, string, string][] = [
      ['PATCH', '/payment-links/000000000000000000000000', 'GET, HEAD, PUT, DELETE'],
      ['DELETE', '/payment-links', 'GET, HEAD, POST'],
      ['GET', '/tokenizations/create-token', 'POST'],
      ['POST', '/_sandbox/health', 'GET, HEAD'],
    ]
    for (const [method, route, allow] of cases) {
      const answer = await t.a.call(method, route)
      expect(answer.status).toBe(405)
      expect(answer.headers.get('allow')).toBe(allow)
      expect(answer.json).toEqual({
        message: `The method is not supported for this route. Supported methods: ${allow}.`,
      })
    }
  })

  it('tolerates a trailing slash', async () => {
    expect((await t.a.call('GET', '/payment-links/')).status).toBe(200)
  })

  it('answers HEAD like GET, without a body', async () => {
    const answer = await rawRequest(t.sandbox.baseUrl, {
      method: 'HEAD',
      path: '/payment-links',
      headers: { Authorization: `Bearer ${KEY_A}` },
    })
    expect(answer.status).toBe(200)
    expect(answer.text).toBe('')
  })
})

describe('request bodies', () => {
  it('answers 400 for malformed JSON, and keeps serving', async () => {
    const answer = await t.a.call('POST', '/payment-links', '{"email": ')
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({ message: 'Malformed JSON body.' })
    await serverStillServes()
  })

  it.each(['[]', '"text"', '42', 'null', 'true'])(
    'answers 400 for the non-object JSON body %s',
    async (body) => {
      const answer = await t.a.call('POST', '/tokenizations/create-token', body)
      expect(answer.status).toBe(400)
      expect(answer.json).toEqual({ message: 'The JSON body must be an object.' })
    },
  )

  it('answers 413 for a body over 1 MiB with a Content-Length, and keeps serving', async () => {
    const answer = await t.a.call('POST', '/payment-links', {
      ...VALID_LINK,
      description: 'x'.repeat(1024 * 1024),
    })
    expect(answer.status).toBe(413)
    expect(answer.json).toEqual({ message: 'The request body is larger than 1048576 bytes.' })
    await serverStillServes()
  })

  it('answers 413 for a chunked body over 1 MiB, and keeps serving', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x')
    const answer = await rawRequest(t.sandbox.baseUrl, {
      method: 'POST',
      path: '/payment-links',
      headers: { Authorization: `Bearer ${KEY_A}`, 'Content-Type': 'application/json' },
      body: Array.from({ length: 20 }, () => chunk),
    })
    expect(answer.status).toBe(413)
    await serverStillServes()
  })

  it('accepts a body of exactly 1 MiB', async () => {
    const json = JSON.stringify({ ...VALID_LINK, description: '' })
    const padded = `${json}${' '.repeat(1024 * 1024 - json.length)}`
    const answer = await t.a.call('POST', '/payment-links', padded)
    expect(answer.status).toBe(200)
  })

  it('answers 415 for a body that is not sent as JSON', async () => {
    const answer = await t.a.call('POST', '/payment-links', 'email=a%40b.co', {
      'Content-Type': 'application/x-www-form-urlencoded',
    })
    expect(answer.status).toBe(415)
    expect(answer.json).toEqual({
      message: 'The request body must be JSON, sent with Content-Type: application/json.',
    })
  })

  it('accepts JSON without a Content-Type, with a charset, or as +json', async () => {
    const bare = await rawRequest(t.sandbox.baseUrl, {
      method: 'POST',
      path: '/payment-links',
      headers: { Authorization: `Bearer ${KEY_A}` },
      body: JSON.stringify(VALID_LINK),
    })
    expect(bare.status).toBe(200)
    for (const type of ['application/json; charset=utf-8', 'application/vnd.api+json']) {
      expect((await t.a.call('POST', '/payment-links', VALID_LINK, { 'Content-Type': type })).status).toBe(
        200,
      )
    }
  })

  it('treats an empty body as no fields', async () => {
    const answer = await t.a.call('POST', '/tokenizations/create-token', '')
    expect(answer.status).toBe(422)
    expect(Object.keys(answer.json.errors)).toEqual(['email', 'title', 'description'])
  })

  it('survives hostile field names and values', async () => {
    const answer = await t.a.call(
      'POST',
      '/tokenizations/create-token',
      `{"__proto__": {"email": "x"}, "constructor": 1, ${JSON.stringify(VALID_TOKEN).slice(1)}`,
    )
    expect(answer.status).toBe(200)
    expect(answer.json.data).not.toHaveProperty('constructor')
    const control = await t.a.call('POST', '/payment-links', {
      ...VALID_LINK,
      title: '\u0000\u001b[31m\u009b',
    })
    expect(control.status).toBe(200)
    expect(control.json.data.title).toBe('\u0000\u001b[31m\u009b')
  })
})

describe('load', () => {
  it('serves 50 concurrent clients, losing nothing', async () => {
    const fresh = await startTestSandbox()
    try {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 ? fresh.a : fresh.b).call('POST', '/payment-links', { ...VALID_LINK, reference: `r${i}` }),
        ),
      )
      expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200))
      expect(new Set(answers.map((answer) => answer.json.data._id)).size).toBe(50)
      const listA = await fresh.a.call('GET', '/payment-links')
      const listB = await fresh.b.call('GET', '/payment-links')
      expect(listA.json.data.total).toBe(25)
      expect(listB.json.data.total).toBe(25)
    } finally {
      await fresh.sandbox.close()
    }
  })
})

describe('close', () => {
  it('resolves while a keep-alive client is idle, closing its connection itself, and stops accepting', async () => {
    const fresh = await startTestSandbox()
    expect((await fresh.a.call('GET', '/payment-links')).status).toBe(200) // leaves a keep-alive socket
    // The connections still open when close() resolves are forced shut 2 s after it was called
    // (closeAllConnections): an idle one must not need that.
    const forced = vi.spyOn(http.Server.prototype, 'closeAllConnections')
    try {
      await fresh.sandbox.close()
      expect(forced).not.toHaveBeenCalled()
    } finally {
      forced.mockRestore()
    }
    await expect(fetch(`${fresh.sandbox.baseUrl}/_sandbox/health`)).rejects.toThrow()
  })

  it('keeps key B’s data apart from key A’s in the returned packages', () => {
    expect(Object.keys(t.sandbox.packages)).toEqual([KEY_A, KEY_B])
    expect(t.sandbox.keys).toEqual([KEY_A, KEY_B])
  })
})
