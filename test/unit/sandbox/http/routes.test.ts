import { describe, expect, it } from 'vitest'
import { createLink } from '../../../../src/sandbox/handlers/service/endpoints.js'
import { health } from '../../../../src/sandbox/http/health.js'
import { ROUTES, route, routeOf } from '../../../../src/sandbox/http/routes.js'

/** The route table (src/sandbox/http/routes.ts): every route once, each with its rules. */

const line = (r: (typeof ROUTES)[number]) => `${r.kind} ${r.method} ${r.path}: ${r.rules}`

describe('the route table', () => {
  it('declares every route once, with the rules each kind has', () => {
    expect(ROUTES.map(line)).toEqual([
      'api POST /tokenizations/create-token: key scoped idempotent bills faults recorded',
      'api GET /payment-links: key scoped bills faults recorded',
      'api POST /payment-links: key scoped idempotent bills faults recorded',
      'api GET /payment-links/{id}: key scoped bills faults recorded',
      'api PUT /payment-links/{id}: key scoped bills faults recorded',
      'api DELETE /payment-links/{id}: key scoped bills faults recorded',
      'api GET /subscriptions: key scoped bills faults recorded',
      'api POST /subscriptions: key scoped idempotent bills faults recorded',
      'api GET /subscriptions/{id}: key scoped bills faults recorded',
      'api PUT /subscriptions/{id}: key scoped bills faults recorded',
      'api DELETE /subscriptions/{id}: key scoped bills faults recorded',
      'control POST /_sandbox/reset: key scoped real-time',
      'control GET /_sandbox/clock: key',
      'control POST /_sandbox/clock: key',
      'control POST /_sandbox/seed: key scoped',
      'control GET /_sandbox/faults: key scoped',
      'control POST /_sandbox/faults: key scoped',
      'control DELETE /_sandbox/faults: key scoped',
      'control GET /_sandbox/requests: key scoped',
      'control POST /_sandbox/payment-links/{id}/pay: key scoped',
      'control POST /_sandbox/payment-links/{id}/cancel: key scoped',
      'control POST /_sandbox/payment-links/{id}/fail: key scoped',
      'control GET /_sandbox/webhooks: key scoped',
      'control POST /_sandbox/webhooks: key scoped',
      'control GET /_sandbox/webhooks/deliveries: key scoped',
      'control POST /_sandbox/webhooks/deliveries/{id}/resend: key scoped',
      'control DELETE /_sandbox/webhooks/{id}: key scoped',
      'page GET /checkout/pay: ',
      'page POST /checkout/pay: ',
      'page GET /checkout/tokens/{token}/activate: ',
      'page POST /checkout/tokens/{token}/activate: ',
      'health GET /_sandbox/health: ',
    ])
    const pairs = ROUTES.map((r) => `${r.method} ${r.path}`)
    expect(new Set(pairs).size).toBe(pairs.length)
  })

  it('reads each rule into what the server does', () => {
    const create = ROUTES.find((r) => r.method === 'POST' && r.path === '/payment-links')!
    expect(create).toMatchObject({
      key: true,
      scoped: true,
      idempotent: true,
      time: 'bills',
      faults: true,
      recorded: true,
    })
    const reset = ROUTES.find((r) => r.path === '/_sandbox/reset')!
    expect(reset).toMatchObject({
      key: true,
      scoped: true,
      idempotent: false,
      time: 'real-time',
      faults: false,
      recorded: false,
    })
    const clock = ROUTES.find((r) => r.method === 'GET' && r.path === '/_sandbox/clock')!
    expect(clock).toMatchObject({ key: true, scoped: false, time: 'clock', faults: false, recorded: false })
    const page = ROUTES.find((r) => r.kind === 'page')!
    expect(page).toMatchObject({
      key: false,
      scoped: false,
      idempotent: false,
      faults: false,
      recorded: false,
    })
  })

  it('refuses a rule it does not know, or one a route cannot have, as the table is built', () => {
    expect(() => route('GET', '/x', 'api', 'key scoped bils', createLink)).toThrow(
      'GET /x: "bils" is no rule of a route.',
    )
    expect(() => route('PUT', '/x', 'api', 'key scoped idempotent', createLink)).toThrow(
      'PUT /x: only a POST is idempotent.',
    )
    expect(() => route('POST', '/x', 'api', 'key bills real-time', health)).toThrow(
      'POST /x: "bills" or "real-time", not both.',
    )
  })
})

describe('the context a handler gets', () => {
  it('gives the caller to a scoped route only: a handler that needs it on another is a type error', () => {
    // The check is tsc's (npm run lint): were the caller given to any key route, this line would compile.
    // @ts-expect-error createLink acts on the caller's records: a route without `scoped` cannot carry it
    const unscoped = route('POST', '/x', 'api', 'key', createLink)
    expect(unscoped).toMatchObject({ key: true, scoped: false })
  })
})

describe('routing a request', () => {
  it('finds the route of a method and path, with its {…} segment as sent', () => {
    const routed = routeOf('PUT', '/payment-links/ab%2Fc')
    expect([routed.route?.method, routed.route?.path, routed.route && routed.segment]).toEqual([
      'PUT',
      '/payment-links/{id}',
      'ab%2Fc',
    ])
    expect(routeOf('POST', '/checkout/tokens/t0k/activate')).toMatchObject({
      segment: 't0k',
      recorded: false,
    })
  })

  it('answers a path it lacks by its prefix: the API (recorded, faultable), the controls, the pages', () => {
    expect(routeOf('PATCH', '/payment-links/x')).toEqual({
      route: undefined,
      kind: 'api',
      allowed: ['GET', 'PUT', 'DELETE'],
      faults: true,
      recorded: true,
    })
    expect(routeOf('GET', '/nothing/here')).toMatchObject({ kind: 'api', allowed: [], faults: true })
    expect(routeOf('POST', '/_sandbox/health')).toMatchObject({
      kind: 'control',
      allowed: ['GET'],
      faults: false,
    })
    expect(routeOf('GET', '/_sandbox/nothing')).toMatchObject({
      kind: 'control',
      allowed: [],
      recorded: false,
    })
    expect(routeOf('PUT', '/checkout/pay')).toMatchObject({ kind: 'page', allowed: ['GET', 'POST'] })
    expect(routeOf('GET', '/checkout')).toMatchObject({ kind: 'page', allowed: [], faults: false })
  })
})
