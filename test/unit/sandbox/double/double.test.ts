import http from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { FaultRuleError } from '../../../../src/sandbox/handlers/double/faults.js'
import { startSandbox } from '../../../../src/sandbox/http/server.js'
import { formFields } from '../../../helpers/pages.js'
import {
  type Client,
  clientFor,
  KEY_A,
  KEY_B,
  rawRequest,
  startTestSandbox,
  type TestSandbox,
  tempDir,
  VALID_LINK,
} from '../../../helpers/sandbox.js'

/**
 * The sandbox as a test double over HTTP: fault rules set through
 * `/_sandbox/faults` and carried out (a status, latency, a reset, a hang; before acting or
 * `after`), the `Pay-Sandbox-Fault` header, what each business sent (`/_sandbox/requests`), and
 * the customer's outcomes through `/_sandbox/payment-links/{id}/pay|cancel|fail`. Each business's
 * rules and requests are its own. pay itself against faults: test/e2e/sandbox/faults.test.ts.
 */

let t: TestSandbox
beforeAll(async () => {
  t = await startTestSandbox()
})
afterAll(() => t.close())
afterEach(async () => {
  t.sandbox.faults.clear()
  await t.a.call('POST', '/_sandbox/reset')
})

const setRules = (rules: string[], client = t.a, seed?: number) =>
  client.call('POST', '/_sandbox/faults', seed === undefined ? { rules } : { rules, seed })

const linkCount = async () => (await t.a.call('GET', '/payment-links')).json.data.total

/** The seq of business A's last request so far: what came after it is the test's. */
const mark = async (): Promise<number> =>
  (await t.a.call('GET', '/_sandbox/requests?limit=1')).json.data[0]?.seq ?? 0

/** Business A's requests after `after`, once there are `count` of them (a cut request is kept once its connection closed). */
async function requestsAfter(after: number, count: number) {
  for (;;) {
    const { data } = (await t.a.call('GET', `/_sandbox/requests?after=${after}`)).json
    if (data.length >= count) return data
    await t.a.call('GET', `/_sandbox/requests?after=${data.at(-1)?.seq ?? after}&wait=5`)
  }
}

/** A request whose connection may be cut or held: its status, or how it ended. */
function attempt(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; giveUpMs?: number } = {},
): Promise<{ status?: number; text?: string; error?: string }> {
  return new Promise((resolve) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body)
    const request = http.request(
      `${t.baseUrl}${path}`,
      {
        method,
        agent: false,
        headers: {
          Authorization: `Bearer ${KEY_A}`,
          ...(body ? { 'Content-Type': 'application/json' } : {}),
          ...options.headers,
        },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8').on('data', (chunk) => {
          text += chunk
        })
        response.on('end', () => resolve({ status: response.statusCode, text }))
      },
    )
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
    if (options.giveUpMs) {
      request.setTimeout(options.giveUpMs, () => {
        request.destroy()
        resolve({ error: 'gave up' })
      })
    }
    request.end(body)
  })
}

describe('/_sandbox/faults', () => {
  it('POST replaces the caller’s rules, GET lists them with what each did, DELETE clears them', async () => {
    const set = await setRules(['post /payment-links 503 x1', 'GET /payment-links/* latency=5ms'], t.a, 7)
    expect(set.status).toBe(200)
    expect(set.json.data).toEqual({
      seed: 7,
      rules: [
        {
          rule: 'POST /payment-links 503 x1',
          method: 'POST',
          path: '/payment-links',
          effect: '503',
          when: 'x1',
          after: false,
          matched: 0,
          faulted: 0,
          remaining: 1,
        },
        {
          rule: 'GET /payment-links/* latency=5ms',
          method: 'GET',
          path: '/payment-links/*',
          effect: 'latency=5ms',
          when: null,
          after: false,
          matched: 0,
          faulted: 0,
          remaining: null,
        },
      ],
    })
    expect((await t.a.call('POST', '/payment-links', VALID_LINK)).status).toBe(503)
    const link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    expect((await t.a.call('GET', `/payment-links/${link._id}`)).status).toBe(200)
    const listed = (await t.a.call('GET', '/_sandbox/faults')).json.data.rules
    expect(
      listed.map((r: { matched: number; faulted: number; remaining: number | null }) => [
        r.matched,
        r.faulted,
        r.remaining,
      ]),
    ).toEqual([
      [1, 1, 0],
      [1, 1, null],
    ])
    // Business B has rules of its own: none.
    expect((await t.b.call('GET', '/_sandbox/faults')).json.data.rules).toEqual([])
    const cleared = await t.a.call('DELETE', '/_sandbox/faults')
    expect([cleared.status, cleared.json.data]).toEqual([200, { seed: 7, rules: [] }])
    expect((await t.a.call('GET', '/_sandbox/faults')).json.data.rules).toEqual([])
  })

  it('a rule that cannot be read is a 422 under rules naming it, and nothing changes', async () => {
    await setRules(['GET /payment-links 500'])
    const bad = await setRules(['GET /payment-links 503', 'GET /x 302', 'nonsense'])
    expect([bad.status, bad.json]).toEqual([
      422,
      {
        message: 'The given data was invalid.',
        errors: {
          rules: [
            'Rule 2: 302 is not a status a fault can answer: give one from 400 to 599 (in "GET /x 302").',
            'Rule 3: "nonsense" is not a fault rule: it needs a method, a path and an effect (METHOD PATH EFFECT [xN|P%] [after], e.g. "POST /payment-links 503 x2").',
          ],
        },
      },
    ])
    for (const body of [{}, { rules: 'GET /x 503' }, { rules: [503] }]) {
      const answer = await t.a.call('POST', '/_sandbox/faults', body)
      expect([answer.status, answer.json.errors]).toEqual([
        422,
        {
          rules: [
            'The rules field must be an array of rules, each a string: METHOD PATH EFFECT [xN|P%] [after].',
          ],
        },
      ])
    }
    const seed = await setRules([], t.a, -1)
    expect([seed.status, seed.json.errors]).toEqual([
      422,
      { seed: ['The seed must be an integer from 0 to 4294967295.'] },
    ])
    expect(
      (await t.a.call('GET', '/_sandbox/faults')).json.data.rules.map((r: { rule: string }) => r.rule),
    ).toEqual(['GET /payment-links 500'])
  })

  it('needs a key of the sandbox, and a business’s rules fault its own requests only', async () => {
    const anonymous = await rawRequest(t.baseUrl, { method: 'GET', path: '/_sandbox/faults' })
    expect(anonymous.status).toBe(401)
    await setRules(['GET /payment-links 503'], t.b)
    expect((await t.b.call('GET', '/payment-links')).status).toBe(503)
    expect((await t.a.call('GET', '/payment-links')).status).toBe(200)
  })

  it('never faults the sandbox’s own routes, its health route, nor the customer pages; so faults can always be cleared', async () => {
    const link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    await setRules(['* /* 503', '* /*/* 503', '* /*/*/* 503', '* /*/*/*/* 503'])
    const header = { 'Pay-Sandbox-Fault': 'reset' }
    for (const path of ['/_sandbox/health', '/_sandbox/faults', '/_sandbox/requests', '/_sandbox/clock']) {
      expect([path, (await t.a.call('GET', path, undefined, header)).status]).toEqual([path, 200])
    }
    const page = await rawRequest(t.baseUrl, { path: `/checkout/pay?id=${link._id}`, headers: header })
    expect(page.status).toBe(200)
    expect((await t.a.call('POST', `/_sandbox/payment-links/${link._id}/cancel`)).status).toBe(200)
    expect((await t.a.call('GET', `/payment-links/${link._id}`)).status).toBe(503)
    expect((await t.a.call('DELETE', '/_sandbox/faults')).status).toBe(200)
    expect((await t.a.call('GET', `/payment-links/${link._id}`)).status).toBe(200)
  })
})

describe('what a fault does', () => {
  it('a status: nothing done, or with after, done and then answered with the status; 429 adds Retry-After: 1', async () => {
    await setRules([
      'POST /payment-links 503 x1',
      'POST /payment-links 500 x1 after',
      'GET /subscriptions 429 x1',
    ])
    const before = await t.a.call('POST', '/payment-links', VALID_LINK)
    expect([before.status, before.json]).toEqual([
      503,
      { message: 'Service Unavailable: a fault of the pay sandbox [503 x1]; nothing was done.' },
    ])
    expect(await linkCount()).toBe(0)
    const after = await t.a.call('POST', '/payment-links', VALID_LINK)
    expect([after.status, after.json]).toEqual([
      500,
      {
        message:
          'Internal Server Error: a fault of the pay sandbox [500 x1 after]; the request was carried out, then its answer replaced.',
      },
    ])
    expect(await linkCount()).toBe(1)
    const limited = await t.a.call('GET', '/subscriptions')
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '1'])
    expect(before.headers.get('retry-after')).toBeNull()
  })

  it('after keeps the Idempotency-Key’s answer: the same POST again is replayed, not created twice', async () => {
    await setRules(['POST /payment-links 503 x1 after'])
    const key = { 'Idempotency-Key': 'order-42' }
    const lost = await t.a.call('POST', '/payment-links', VALID_LINK, key)
    expect(lost.status).toBe(503)
    const again = await t.a.call('POST', '/payment-links', VALID_LINK, key)
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 'true'])
    expect(await linkCount()).toBe(1)
  })

  it('reset cuts the connection: before acting nothing is done, after it the link exists', async () => {
    await setRules(['POST /payment-links reset x1', 'POST /payment-links reset x1 after'])
    expect(await attempt('POST', '/payment-links', { body: VALID_LINK })).toEqual({ error: 'ECONNRESET' })
    expect(await linkCount()).toBe(0)
    expect(await attempt('POST', '/payment-links', { body: VALID_LINK })).toEqual({ error: 'ECONNRESET' })
    expect(await linkCount()).toBe(1)
  })

  it('hang never answers (the client gives up); with after the request was carried out first', async () => {
    await setRules(['POST /payment-links hang x1', 'POST /payment-links hang x1 after'])
    expect(await attempt('POST', '/payment-links', { body: VALID_LINK, giveUpMs: 300 })).toEqual({
      error: 'gave up',
    })
    expect(await linkCount()).toBe(0)
    expect(await attempt('POST', '/payment-links', { body: VALID_LINK, giveUpMs: 300 })).toEqual({
      error: 'gave up',
    })
    expect(await linkCount()).toBe(1)
  })

  it('latency delays the answer; before acting, a client that gave up still finds the request carried out later', async () => {
    const from = await mark()
    await setRules(['GET /payment-links latency=150ms x1', 'POST /payment-links latency=300ms x1'])
    expect((await attempt('GET', '/payment-links')).status).toBe(200)
    expect(await attempt('POST', '/payment-links', { body: VALID_LINK, giveUpMs: 50 })).toEqual({
      error: 'gave up',
    })
    const [slowGet, lostPost] = await requestsAfter(from, 2)
    // From the journal: the first was answered after its latency; the second got no answer.
    expect([slowGet.method, slowGet.status, slowGet.fault]).toEqual(['GET', 200, 'latency=150ms x1'])
    expect([lostPost.method, lostPost.status, lostPost.fault]).toEqual(['POST', null, 'latency=300ms x1'])
    // The server goes on as a slow one would: the link is made once the latency has passed.
    while ((await linkCount()) === 0) await new Promise((resolve) => setTimeout(resolve, 25))
    expect(await linkCount()).toBe(1)
  })

  it('the Pay-Sandbox-Fault header faults that request alone; a header it cannot read is a 400', async () => {
    const faulted = await t.a.call('POST', '/payment-links', VALID_LINK, { 'Pay-Sandbox-Fault': '502 after' })
    expect([faulted.status, faulted.json.message]).toEqual([
      502,
      'Bad Gateway: a fault of the pay sandbox [502 after (header)]; the request was carried out, then its answer replaced.',
    ])
    expect((await t.a.call('GET', '/payment-links')).json.data.total).toBe(1)
    const bad = await t.a.call('GET', '/payment-links', undefined, { 'Pay-Sandbox-Fault': '503 x2' })
    expect([bad.status, bad.json]).toEqual([
      400,
      {
        message:
          'The Pay-Sandbox-Fault header must be EFFECT or EFFECT after (a status 400-599, latency=300ms, reset or hang), not "503 x2".',
      },
    ])
    expect(await attempt('GET', '/payment-links', { headers: { 'Pay-Sandbox-Fault': 'reset' } })).toEqual({
      error: 'ECONNRESET',
    })
  })

  it('a server closing ends the requests a fault holds', async () => {
    const sandbox = await startSandbox({
      dir: tempDir('pay-hang-'),
      port: 0,
      keys: [KEY_A],
      faults: { rules: ['GET /payment-links hang'] },
    })
    const held = new Promise<string>((resolve) => {
      http
        .get(
          `${sandbox.baseUrl}/payment-links`,
          { agent: false, headers: { Authorization: `Bearer ${KEY_A}` } },
          () => resolve('answered'),
        )
        .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
    })
    // Held once the rule matched it.
    while (sandbox.faults.list().rules[0].matched === 0)
      await new Promise((resolve) => setTimeout(resolve, 10))
    await sandbox.close()
    expect(await held).toBe('ECONNRESET')
  })
})

describe('/_sandbox/requests: what each business sent', () => {
  it('newest last, with status, time, Idempotency-Key, the fault, and the body redacted; no control route or page', async () => {
    await setRules(['POST /payment-links 503 x1'])
    const from = await mark()
    const sentFrom = Date.now()
    const body = { ...VALID_LINK, description: 'card 4242 4242 4242 4242', reference: KEY_A }
    await t.a.call('POST', '/payment-links', body, { 'Idempotency-Key': 'first' })
    const made = (await t.a.call('POST', '/payment-links?note=5555555555554444', body)).json.data
    await t.a.call('GET', `/payment-links/${made._id}/`)
    await t.a.call('GET', '/nowhere')
    await rawRequest(t.baseUrl, { path: `/checkout/pay?id=${made._id}` })
    await t.a.call('GET', '/_sandbox/faults')
    await t.b.call('GET', '/payment-links')
    await rawRequest(t.baseUrl, {
      path: '/payment-links',
      headers: { Authorization: 'Bearer sk_unknown_key_1234567890' },
    })
    const answer = await t.a.call('GET', `/_sandbox/requests?after=${from}`)
    const sentTo = Date.now()
    expect(answer.status).toBe(200)
    const requests = answer.json.data
    const redacted = { ...VALID_LINK, description: 'card [REDACTED]', reference: '[REDACTED]' }
    expect(requests.map(({ time, ms, seq, ...rest }: Record<string, unknown>) => rest)).toEqual([
      {
        method: 'POST',
        path: '/payment-links',
        status: 503,
        idempotency_key: 'first',
        body: redacted,
        fault: '503 x1',
      },
      {
        method: 'POST',
        path: '/payment-links?note=[REDACTED]',
        status: 200,
        idempotency_key: null,
        body: redacted,
        fault: null,
      },
      {
        method: 'GET',
        path: `/payment-links/${made._id}/`,
        status: 200,
        idempotency_key: null,
        body: null,
        fault: null,
      },
      { method: 'GET', path: '/nowhere', status: 404, idempotency_key: null, body: null, fault: null },
    ])
    const seqs = requests.map((r: { seq: number }) => r.seq)
    expect(seqs).toEqual([seqs[0], seqs[0] + 1, seqs[0] + 2, seqs[0] + 3])
    // Each arrived while the test was sending them (real time).
    for (const request of requests) {
      expect(Date.parse(request.time)).toBeGreaterThanOrEqual(sentFrom)
      expect(Date.parse(request.time)).toBeLessThanOrEqual(sentTo)
      expect(typeof request.ms).toBe('number')
    }
    expect(answer.text).not.toContain(KEY_A)
    expect(answer.text).not.toContain('4242 4242')
    // B sees its own only.
    expect((await t.b.call('GET', '/_sandbox/requests')).json.data.at(-1)).toMatchObject({
      method: 'GET',
      path: '/payment-links',
    })
    expect(JSON.stringify((await t.b.call('GET', '/_sandbox/requests')).json.data)).not.toContain(made._id)

    const last = seqs.at(-1)
    expect(
      (await t.a.call('GET', `/_sandbox/requests?after=${last - 1}`)).json.data.map(
        (r: { seq: number }) => r.seq,
      ),
    ).toEqual([last])
    expect(
      (await t.a.call('GET', '/_sandbox/requests?limit=2')).json.data.map((r: { seq: number }) => r.seq),
    ).toEqual([last - 1, last])
  })

  it('a cut or held request has status null; a request that fails validation is kept with its 422', async () => {
    const from = await mark()
    await t.a.call('POST', '/payment-links', { email: 'x' })
    await attempt('GET', '/payment-links', { headers: { 'Pay-Sandbox-Fault': 'reset' } })
    const [invalid, cut] = await requestsAfter(from, 2)
    expect([invalid.status, invalid.body]).toEqual([422, { email: 'x' }])
    expect([cut.status, cut.fault]).toEqual([null, 'reset (header)'])
  })

  it('?wait holds the answer until the business sends its next request; bad parameters are a 422', async () => {
    const after = await mark()
    const waiting = t.a.call('GET', `/_sandbox/requests?after=${after}&wait=20`)
    await new Promise((resolve) => setTimeout(resolve, 50))
    await t.b.call('GET', '/payment-links')
    await t.a.call('GET', '/payment-links?page=3')
    const answer = await waiting
    expect(answer.json.data.map((r: { path: string; seq: number }) => [r.path, r.seq])).toEqual([
      ['/payment-links?page=3', after + 1],
    ])
    const bad = await t.a.call('GET', '/_sandbox/requests?after=-1&limit=1001&wait=31')
    expect([bad.status, bad.json.errors]).toEqual([
      422,
      {
        after: ['The after must be an integer from 0 to 9007199254740991.'],
        limit: ['The limit must be an integer from 1 to 1000.'],
        wait: ['The wait must be a number from 0 to 30.'],
      },
    ])
  })

  it('keeps the last 1,000 of each business', async () => {
    const sandbox = await startSandbox({ dir: tempDir('pay-ring-'), port: 0, keys: [KEY_A] })
    try {
      const get = () =>
        fetch(`${sandbox.baseUrl}/payment-links?page=2`, { headers: { Authorization: `Bearer ${KEY_A}` } })
      for (let i = 0; i < 1005; i += 15) await Promise.all(Array.from({ length: 15 }, get))
      const kept = sandbox.requests()
      expect([kept.length, kept[0].seq, kept.at(-1)?.seq]).toEqual([1000, 6, 1005])
    } finally {
      await sandbox.close()
    }
  })
})

describe('/_sandbox/payment-links/{id}/pay|pending|cancel|fail: the customer’s outcomes', () => {
  it('pending, cancel and fail leave the link unpaid and say where the customer goes; pay pays; a paid link answers paid', async () => {
    const link = (
      await t.a.call('POST', '/payment-links', {
        ...VALID_LINK,
        redirect_url: 'https://shop.example/back?order=42#r',
      })
    ).json.data
    const back = (status: string) => `https://shop.example/back?order=42&id=${link._id}&status=${status}#r`
    /** The return of an attempt: id and status, then what the attempt told (its notification's fields). */
    const told = (redirect: string, status: string, code: string) => {
      const url = new URL(redirect)
      expect(`${url.origin}${url.pathname}?${[...url.searchParams.keys()].join('&')}${url.hash}`).toBe(
        'https://shop.example/back?order&id&status&attempt_id&payment_id&payment_time&payment_amount&payment_status&payment_link_id&payment_link_reference&payment_link_reference_2&payment_message&payment_currency#r',
      )
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        order: '42',
        id: link._id,
        status,
        payment_status: code,
        payment_link_id: link._id,
        payment_amount: String(Math.round(link.amount * 100)),
        payment_currency: link.currency,
      })
    }
    const cancelled = await t.a.call('POST', `/_sandbox/payment-links/${link._id}/cancel`)
    expect(cancelled.json).toMatchObject({
      success: true,
      data: link,
      outcome: 'cancelled',
      redirect_to: back('cancelled'),
    })
    for (const [verb, outcome, code] of [
      ['pending', 'pending', '2'],
      ['fail', 'failed', '3'],
    ]) {
      const answer = await t.a.call('POST', `/_sandbox/payment-links/${link._id}/${verb}`)
      expect(answer.status).toBe(200)
      expect(answer.json).toMatchObject({ success: true, data: link, outcome })
      told(answer.json.redirect_to, outcome, code)
    }
    const paid = await t.a.call('POST', `/_sandbox/payment-links/${link._id}/pay`)
    expect(paid.json).toMatchObject({ data: { _id: link._id, paid: true }, outcome: 'paid' })
    told(paid.json.redirect_to, 'paid', '1')
    const late = await t.a.call('POST', `/_sandbox/payment-links/${link._id}/cancel`)
    expect(late.json).toMatchObject({ data: { paid: true }, outcome: 'paid', redirect_to: back('paid') })
  })

  it('without redirect_url redirect_to is null; another business’s link is a 404', async () => {
    const link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    const answer = await t.a.call('POST', `/_sandbox/payment-links/${link._id}/fail`)
    expect(answer.json).toMatchObject({ outcome: 'failed', redirect_to: null })
    for (const verb of ['pay', 'pending', 'cancel', 'fail']) {
      const other = await t.b.call('POST', `/_sandbox/payment-links/${link._id}/${verb}`)
      expect([other.status, other.json]).toEqual([404, { message: 'Payment link not found.' }])
    }
    expect((await t.a.call('GET', `/payment-links/${link._id}`)).json.data.paid).toBe(false)
  })
})

describe('the faults of a started sandbox (`startSandbox` and the library)', () => {
  it('starts with rules for every business; set, list and clear act on every business; a bad rule changes nothing', async () => {
    const sandbox = await startSandbox({
      dir: tempDir('pay-started-'),
      port: 0,
      keys: [KEY_A, KEY_B],
      faults: { rules: ['GET /payment-links 503 x1'], seed: 3 },
    })
    try {
      const get = (key: string) =>
        fetch(`${sandbox.baseUrl}/payment-links`, { headers: { Authorization: `Bearer ${key}` } }).then(
          (r) => r.status,
        )
      expect([await get(KEY_A), await get(KEY_B), await get(KEY_A)]).toEqual([503, 503, 200])
      expect(sandbox.faults.list(KEY_B)).toMatchObject({
        seed: 3,
        rules: [{ rule: 'GET /payment-links 503 x1', faulted: 1 }],
      })
      expect(() => sandbox.faults.set(['GET /x 503', 'GET /x 200'])).toThrow(FaultRuleError)
      expect(sandbox.faults.list().rules).toHaveLength(1)
      expect(sandbox.faults.set(['* /payment-links 429'], { seed: 9 })).toMatchObject({
        seed: 9,
        rules: [{ rule: '* /payment-links 429' }],
      })
      expect([await get(KEY_A), await get(KEY_B)]).toEqual([429, 429])
      sandbox.faults.clear()
      expect([await get(KEY_A), await get(KEY_B)]).toEqual([200, 200])
      expect(sandbox.requests({ key: KEY_B }).map((r) => r.status)).toEqual([503, 429, 200])
    } finally {
      await sandbox.close()
    }
    await expect(
      startSandbox({ dir: tempDir('pay-bad-'), port: 0, faults: { rules: ['GET /x'] } }),
    ).rejects.toThrow(FaultRuleError)
  })
})

describe('each business’s fault seed', () => {
  it('is its own: the seed one business sets neither shows in nor drives another’s draws', async () => {
    const RULE = 'GET /payment-links 503 50%'
    /** Twenty GETs of business B after A did `before`, and B's fault list. */
    async function drawsOfB(before: (a: Client) => Promise<unknown>) {
      const sandbox = await startSandbox({
        dir: tempDir('pay-seeds-'),
        port: 0,
        keys: [KEY_A, KEY_B],
        faults: { seed: 3 },
      })
      try {
        const a = clientFor(sandbox.baseUrl, KEY_A)
        const b = clientFor(sandbox.baseUrl, KEY_B)
        await before(a)
        const listed = (await b.call('GET', '/_sandbox/faults')).json.data
        await b.call('POST', '/_sandbox/faults', { rules: [RULE] })
        const statuses: number[] = []
        for (let i = 0; i < 20; i++) statuses.push((await b.call('GET', '/payment-links')).status)
        return { listed, statuses, afterB: (await a.call('GET', '/_sandbox/faults')).json.data.seed }
      } finally {
        await sandbox.close()
      }
    }
    const alone = await drawsOfB(async () => {})
    const afterA = await drawsOfB((a) => a.call('POST', '/_sandbox/faults', { rules: [RULE], seed: 7 }))
    expect(alone.listed).toEqual({ seed: 3, rules: [] })
    expect(afterA.listed).toEqual({ seed: 3, rules: [] })
    expect(afterA.statuses).toEqual(alone.statuses)
    expect(new Set(alone.statuses)).toEqual(new Set([200, 503]))
    // And B setting its rules left A's seed as A set it.
    expect(afterA.afterB).toBe(7)
    expect(alone.afterB).toBe(3)
  })
})

describe('the payment page’s other outcomes (its form, as a browser sends it)', () => {
  it('Cancel and Fail pass the same token and origin checks as Pay', async () => {
    const link = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data
    const path = `/checkout/pay?id=${link._id}`
    const fields = formFields((await rawRequest(t.baseUrl, { path })).text)
    const post = (form: Record<string, string>, headers: Record<string, string>) =>
      rawRequest(t.baseUrl, {
        method: 'POST',
        path,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form).toString(),
      })
    const sameOrigin = { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' }
    for (const outcome of ['cancelled', 'failed']) {
      const crossSite = await post(
        { ...fields, outcome },
        { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      )
      expect(crossSite.status).toBe(403)
      const noToken = await post({ amount: fields.amount, currency: fields.currency, outcome }, sameOrigin)
      expect(noToken.status).toBe(403)
      const done = await post({ ...fields, outcome }, sameOrigin)
      expect([done.status, /<h1>([^<]+)<\/h1>/.exec(done.text)?.[1]]).toEqual([
        200,
        outcome === 'cancelled' ? 'Payment cancelled' : 'Payment failed',
      ])
    }
    const unknown = await post({ ...fields, outcome: 'refunded' }, sameOrigin)
    expect([unknown.status, /<h1>([^<]+)<\/h1>/.exec(unknown.text)?.[1]]).toEqual([
      400,
      'This form could not be read',
    ])
    expect((await t.a.call('GET', `/payment-links/${link._id}`)).json.data.paid).toBe(false)
  })
})
