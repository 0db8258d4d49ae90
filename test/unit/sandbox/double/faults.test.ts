import { describe, expect, it } from 'vitest'
import { FaultSets } from '../../../../src/sandbox/handlers/double/fault-sets.js'
import {
  FaultRuleError,
  parseFaultHeader,
  parseFaultRule,
} from '../../../../src/sandbox/handlers/double/faults.js'
import {
  keptBody,
  RecordedRequests,
  redactBody,
  redactPath,
  redactText,
} from '../../../../src/sandbox/handlers/double/recorded-requests.js'

/**
 * Fault rules as written, read and picked, and the redaction of what is recorded of a request.
 * The server carrying them out is test/unit/sandbox/double/double.test.ts.
 */

const errorOf = (rule: string) => {
  try {
    parseFaultRule(rule)
  } catch (error) {
    expect(error).toBeInstanceOf(FaultRuleError)
    return (error as Error).message
  }
  throw new Error(`"${rule}" was read`)
}

describe('the rule grammar: METHOD PATH EFFECT [WHEN] [after]', () => {
  it('reads every effect, count, chance and "after", and writes each rule back the same way', () => {
    const cases: [string, string, Partial<ReturnType<typeof parseFaultRule>>][] = [
      ['POST /payment-links 503', 'POST /payment-links 503', { effect: { kind: 'status', status: 503 } }],
      ['get /payment-links/* 429 x1', 'GET /payment-links/* 429 x1', { when: { kind: 'times', count: 1 } }],
      [
        '* /subscriptions/* 500 20%',
        '* /subscriptions/* 500 20%',
        { when: { kind: 'percent', percent: 20 } },
      ],
      ['  PUT   /payment-links/*/   reset  after ', 'PUT /payment-links/* reset after', { after: true }],
      [
        'POST /payment-links hang after x2',
        'POST /payment-links hang x2 after',
        { effect: { kind: 'hang' } },
      ],
      [
        'GET /payment-links latency=300ms',
        'GET /payment-links latency=300ms',
        { effect: { kind: 'latency', ms: 300 } },
      ],
      ['GET /payment-links latency=1.5s 12.5%', 'GET /payment-links latency=1500ms 12.5%', {}],
      [
        'DELETE /payment-links/* latency=2s',
        'DELETE /payment-links/* latency=2s',
        { effect: { kind: 'latency', ms: 2000 } },
      ],
      ['GET / 404', 'GET / 404', { segments: [''] }],
    ]
    for (const [written, text, parts] of cases) {
      const rule = parseFaultRule(written)
      expect({ written, text: rule.text, ...pick(rule, parts) }).toEqual({ written, text, ...parts })
      expect(parseFaultRule(rule.text).text).toBe(text)
    }
  })

  it('names what is wrong in a rule it cannot read', () => {
    expect(errorOf('POST /payment-links')).toBe(
      '"POST /payment-links" is not a fault rule: it needs a method, a path and an effect (METHOD PATH EFFECT [xN|P%] [after], e.g. "POST /payment-links 503 x2").',
    )
    expect(errorOf('FETCH /payment-links 503')).toBe(
      '"FETCH" is not a method: give GET, POST, PUT, PATCH, DELETE, HEAD or * (in "FETCH /payment-links 503").',
    )
    expect(errorOf('GET payment-links 503')).toBe(
      '"payment-links" is not a path: it starts with / (in "GET payment-links 503").',
    )
    expect(errorOf('GET /payment-links?page=2 503')).toBe(
      '"/payment-links?page=2" holds a query or a fragment: a rule matches the path alone (in "GET /payment-links?page=2 503").',
    )
    expect(errorOf('GET /payment-links/ab* 503')).toBe(
      '"/payment-links/ab*": * stands for a whole segment (/payment-links/*), not part of one (in "GET /payment-links/ab* 503").',
    )
    expect(errorOf('GET //x 503')).toBe('"//x" has an empty segment (in "GET //x 503").')
    expect(errorOf('DELETE /_sandbox/faults 503')).toBe(
      '"/_sandbox/faults": the sandbox\'s own routes (/_sandbox/…) are never faulted, so that faults can always be cleared.',
    )
    expect(errorOf('GET /x 302')).toBe(
      '302 is not a status a fault can answer: give one from 400 to 599 (in "GET /x 302").',
    )
    expect(errorOf('GET /x 600')).toBe(
      '600 is not a status a fault can answer: give one from 400 to 599 (in "GET /x 600").',
    )
    expect(errorOf('GET /x latency=3m')).toBe(
      '"latency=3m" is not a latency: write latency=300ms or latency=2s (in "GET /x latency=3m").',
    )
    expect(errorOf('GET /x latency=0ms')).toBe(
      'latency=0ms: a latency is from 1ms to 10 minutes (in "GET /x latency=0ms").',
    )
    expect(errorOf('GET /x latency=601s')).toBe(
      'latency=601s: a latency is from 1ms to 10 minutes (in "GET /x latency=601s").',
    )
    expect(errorOf('GET /x boom')).toBe(
      '"boom" is not an effect: give a status from 400 to 599, latency=300ms, reset or hang (in "GET /x boom").',
    )
    expect(errorOf('GET /x 503 x0')).toBe('x0: a count is from x1 to x1000000 (in "GET /x 503 x0")')
    expect(errorOf('GET /x 503 0%')).toBe('0%: a chance is above 0% and at most 100% (in "GET /x 503 0%")')
    expect(errorOf('GET /x 503 101%')).toBe(
      '101%: a chance is above 0% and at most 100% (in "GET /x 503 101%")',
    )
    for (const [rule, word] of [
      ['GET /x 503 x2 x3', 'x3'],
      ['GET /x 503 after after', 'after'],
      ['GET /x 503 later', 'later'],
    ]) {
      expect(errorOf(rule)).toBe(
        `"${word}" is not understood in "${rule}": after the effect comes xN (the next N requests), P% (a chance), then "after", each at most once.`,
      )
    }
  })

  it('reads the Pay-Sandbox-Fault header: EFFECT or EFFECT after', () => {
    expect(parseFaultHeader('503')).toEqual({
      effect: { kind: 'status', status: 503 },
      after: false,
      label: '503 (header)',
    })
    expect(parseFaultHeader(' reset  AFTER ')).toEqual({
      effect: { kind: 'reset' },
      after: true,
      label: 'reset after (header)',
    })
    expect(parseFaultHeader('latency=250ms')).toMatchObject({ effect: { kind: 'latency', ms: 250 } })
    for (const value of ['', '503 x2', 'reset after now', 'GET /x 503']) {
      expect(() => parseFaultHeader(value)).toThrow(
        `The Pay-Sandbox-Fault header must be EFFECT or EFFECT after (a status 400-599, latency=300ms, reset or hang), not "${value.trim()}".`,
      )
    }
    expect(() => parseFaultHeader('99')).toThrow('99 is not a status a fault can answer')
  })
})

function pick(rule: object, parts: object): object {
  return Object.fromEntries(Object.keys(parts).map((key) => [key, (rule as Record<string, unknown>)[key]]))
}

const rules = (...lines: string[]) => lines.map(parseFaultRule)

describe('which requests a business’s rules fault', () => {
  it('xN faults the next N matching requests and then none; a path with * matches one segment of the method named', () => {
    const sets = new FaultSets([1, 2], rules('GET /payment-links/* 503 x2'), 7)
    expect(sets.active).toBe(true)
    const seen = [
      sets.pick(1, 'GET', '/payment-links'),
      sets.pick(1, 'POST', '/payment-links/abc'),
      sets.pick(1, 'GET', '/payment-links/abc/pay'),
      sets.pick(1, 'GET', '/payment-links/abc'),
      sets.pick(1, 'GET', '/payment-links/def'),
      sets.pick(1, 'GET', '/payment-links/ghi'),
    ].map((fault) => fault?.label)
    expect(seen).toEqual([undefined, undefined, undefined, '503 x2', '503 x2', undefined])
    expect(sets.list(1).rules).toEqual([
      {
        rule: 'GET /payment-links/* 503 x2',
        method: 'GET',
        path: '/payment-links/*',
        effect: '503',
        when: 'x2',
        after: false,
        matched: 2,
        faulted: 2,
        remaining: 0,
      },
    ])
    // Each business has its own counters: business 2's first two are faulted too.
    expect(sets.pick(2, 'GET', '/payment-links/abc')?.label).toBe('503 x2')
  })

  it('the first rule that matches and fires wins; one that does not fire lets the next try', () => {
    const sets = new FaultSets([1], rules('* /payment-links reset after x1', 'POST /payment-links 429'), 1)
    expect(sets.pick(1, 'POST', '/payment-links')).toEqual({
      effect: { kind: 'reset' },
      after: true,
      label: 'reset x1 after',
    })
    expect(sets.pick(1, 'POST', '/payment-links')).toEqual({
      effect: { kind: 'status', status: 429 },
      after: false,
      label: '429',
    })
    expect(sets.pick(1, 'GET', '/payment-links')).toBeUndefined()
  })

  it('P% is drawn from the seed: the same seed gives the same sequence, another seed another, about P% of them', () => {
    const run = (seed: number, business = 1) => {
      const sets = new FaultSets(
        [1, 2],
        rules('GET /payment-links 503 20%', 'GET /payment-links 500 50%'),
        seed,
      )
      return Array.from({ length: 400 }, () => sets.pick(business, 'GET', '/payment-links')?.effect).map(
        (e) => (e?.kind === 'status' ? e.status : 200),
      )
    }
    const first = run(42)
    expect(run(42)).toEqual(first)
    expect(run(42, 2)).toEqual(first)
    expect(run(43)).not.toEqual(first)
    const count = (status: number) => first.filter((s) => s === status).length
    // 20% of 400, and half of the other 320: wide bounds, the sequence being fixed by the seed.
    expect(count(503)).toBeGreaterThan(50)
    expect(count(503)).toBeLessThan(110)
    expect(count(500)).toBeGreaterThan(120)
    expect(count(500)).toBeLessThan(200)
  })

  it('setting rules for one business leaves the others; none anywhere means inactive', () => {
    const sets = new FaultSets([1, 2], [], 5)
    expect(sets.active).toBe(false)
    sets.set(1, rules('GET /x 503'))
    expect([sets.active, sets.pick(1, 'GET', '/x')?.label, sets.pick(2, 'GET', '/x')]).toEqual([
      true,
      '503',
      undefined,
    ])
    expect(sets.list(2)).toEqual({ seed: 5, rules: [] })
    sets.set(1, [], 9)
    expect([sets.active, sets.list(1)]).toEqual([false, { seed: 9, rules: [] }])
  })
})

const KEY = 'sk_test_journal_key_0123456789'

describe('what is recorded of a request', () => {
  it('redacts card-like numbers (13-19 digits, with spaces or dashes) and keys, and nothing else', () => {
    const cases: [string, string][] = [
      ['4242424242424242', '[REDACTED]'],
      ['card 4242 4242 4242 4242 ok', 'card [REDACTED] ok'],
      ['5555-5555-5555-4444', '[REDACTED]'],
      ['1234567890123', '[REDACTED]'],
      ['1234567890123456789', '[REDACTED]'],
      ['123456789012', '123456789012'],
      ['12345678901234567890', '12345678901234567890'],
      ['+234 803 123 4567', '+[REDACTED]'],
      ['+1 415-555-0132', '+1 415-555-0132'],
      ['2026-03-01T10:00:00Z', '2026-03-01T10:00:00Z'],
      ['25.50', '25.50'],
      ['order_4111111111111111', 'order_[REDACTED]'],
      // Ids and words are kept whole, whatever digits they hold.
      ['/payment-links/6928051234567890abcdef12', '/payment-links/6928051234567890abcdef12'],
      ['/subscriptions/abcdef1234567890123456ff', '/subscriptions/abcdef1234567890123456ff'],
      ['ref4242424242424242', 'ref4242424242424242'],
      [`Bearer ${KEY}`, 'Bearer [REDACTED]'],
    ]
    expect(cases.map(([text]) => [text, redactText(text, [KEY])])).toEqual(cases)
  })

  it('redacts a body through and through: secret-named fields, nested values, numbers, names', () => {
    expect(
      redactBody(
        {
          email: 'ada@example.com',
          amount: '25.50',
          card_number: '4000 0000 0000 0002',
          api_key: 'anything',
          password: '',
          nested: { note: `key ${KEY}`, list: ['4111111111111111', 12], pan: null },
          number: 4242424242424242,
          [KEY]: 'named by the key',
        },
        [KEY],
      ),
    ).toEqual({
      email: 'ada@example.com',
      amount: '25.50',
      card_number: '[REDACTED]',
      api_key: '[REDACTED]',
      password: '',
      nested: { note: 'key [REDACTED]', list: ['[REDACTED]', 12], pan: null },
      number: '[REDACTED]',
      '[REDACTED]': 'named by the key',
    })
    expect(keptBody(undefined, [])).toBeNull()
    expect(keptBody({ text: 'x'.repeat(20_000) }, [])).toBe('[a body of 20011 characters, not kept]')
  })

  it('redacts a path and its query the same way, and parameters named like secrets', () => {
    expect(redactPath(`/payment-links/4242424242424242?page=2&token=abc&q=${KEY}&flag`, [KEY])).toBe(
      '/payment-links/[REDACTED]?page=2&token=[REDACTED]&q=[REDACTED]&flag',
    )
  })

  it('keeps the last N of each business, newest last; after and limit pick from them', async () => {
    const recorded = new RecordedRequests(3)
    const entry = (path: string) => ({
      time: '2026-01-01T00:00:00.000Z',
      method: 'GET',
      path,
      status: 200,
      ms: 1,
      idempotency_key: null,
      body: null,
      fault: null,
    })
    for (const path of ['/a', '/b', '/c', '/d', '/e']) recorded.record(1, entry(path))
    recorded.record(2, entry('/other'))
    const paths = (list: { seq: number; path: string }[]) => list.map((e) => `${e.seq}${e.path}`)
    expect(paths(recorded.read(1))).toEqual(['3/c', '4/d', '5/e'])
    expect(paths(recorded.read(1, { after: 3 }))).toEqual(['4/d', '5/e'])
    expect(paths(recorded.read(1, { limit: 1 }))).toEqual(['5/e'])
    expect(paths(recorded.read(2))).toEqual(['1/other'])
    expect(recorded.read(3)).toEqual([])
    // A wait ends at the next request of its business, not another's.
    let woken = false
    const waiting = recorded.wait(1, 5, 60_000, new Promise(() => {})).then(() => {
      woken = true
    })
    recorded.record(2, entry('/not-mine'))
    await new Promise((resolve) => setImmediate(resolve))
    expect(woken).toBe(false)
    recorded.record(1, entry('/f'))
    await waiting
    expect(paths(recorded.read(1, { after: 5 }))).toEqual(['6/f'])
  })
})
