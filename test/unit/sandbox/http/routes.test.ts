import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { payLink } from '../../../../src/sandbox/handlers/double/controls.js'
import { createLink, getLink, linkFound } from '../../../../src/sandbox/handlers/service/endpoints.js'
import { health } from '../../../../src/sandbox/http/health.js'
import { routeOf } from '../../../../src/sandbox/http/route-match.js'
import { own, ROUTES, type Route, serve, tableOf } from '../../../../src/sandbox/http/routes.js'
import {
  authOf,
  ENDPOINT_NAMES,
  ENDPOINTS,
  type EndpointName,
  fillPath,
  takesIdempotencyKey,
} from '../../../../src/shared/endpoints.js'
import { startTestSandbox, type TestSandbox, VALID_LINK } from '../../../helpers/sandbox.js'

/**
 * The route table (src/sandbox/http/routes.ts): every endpoint of the endpoint table served once,
 * by name, with the method and path the table gives it and the rules of its kind; the sandbox's
 * own routes beside them; the table refused as it is built when one is missing or named wrong;
 * and the router's checks of a body, from the table's fields.
 */

const routeOfEndpoint = (name: EndpointName) => ROUTES.find((r) => r.endpoint === name) as Route

describe('the route table', () => {
  it('serves each endpoint of the table once, with its method and path: the service’s as api, the sandbox’s own as control', () => {
    for (const name of ENDPOINT_NAMES) {
      const { method, path, sandbox } = ENDPOINTS[name]
      const serving = ROUTES.filter((r) => r.endpoint === name).map((r) => [r.method, r.path, r.kind])
      expect([name, serving]).toEqual([name, [[method, path, sandbox ? 'control' : 'api']]])
    }
    const pairs = ROUTES.map((r) => `${r.method} ${r.path}`)
    expect(new Set(pairs).size).toBe(pairs.length)
  })

  it('gives each kind the rules it must have', () => {
    for (const r of ROUTES) {
      const endpoint = r.endpoint && ENDPOINTS[r.endpoint]
      const auth = endpoint && authOf(endpoint)
      const expected =
        r.kind === 'api' && endpoint && auth !== 'key'
          ? // The account's: its access token (all but the sign-in, which gives it).
            auth === 'account'
            ? 'account'
            : ''
          : r.kind === 'api' && endpoint
            ? // The service's: the caller's records, billed first, faulted and recorded; its creates idempotent.
              `key scoped${takesIdempotencyKey(endpoint) ? ' idempotent' : ''} bills faults recorded`
            : r.kind === 'control'
              ? // The sandbox's own: a key, never faulted, recorded or idempotent.
                expect.stringMatching(/^key( scoped)?( real-time)?$/)
              : // A page and health: public.
                ''
      expect([r.endpoint ?? `${r.method} ${r.path}`, r.rules]).toEqual([
        r.endpoint ?? `${r.method} ${r.path}`,
        expected,
      ])
    }
  })

  it('owns the customer pages and health, which are no endpoints of the table', () => {
    expect(
      ROUTES.filter((r) => r.endpoint === undefined).map((r) => `${r.kind} ${r.method} ${r.path}`),
    ).toEqual([
      'page GET /checkout/pay',
      'page POST /checkout/pay',
      'page GET /checkout/tokens/{token}/activate',
      'page POST /checkout/tokens/{token}/activate',
      'health GET /_sandbox/health',
    ])
  })

  it('routes a request to each endpoint’s path, an id in it, to that endpoint’s route', () => {
    for (const name of ENDPOINT_NAMES) {
      const endpoint = ENDPOINTS[name]
      const path = fillPath(endpoint, 'lnk_1', { business: '12', integration: 'int_1' }) as string
      const routed = routeOf(endpoint.method, path)
      expect([name, routed.route?.endpoint]).toEqual([name, name])
    }
  })

  it('reads each rule into what the server does', () => {
    expect(routeOfEndpoint('createLink')).toMatchObject({
      key: true,
      scoped: true,
      idempotent: true,
      time: 'bills',
      faults: true,
      recorded: true,
    })
    expect(routeOfEndpoint('sandboxReset')).toMatchObject({
      key: true,
      scoped: true,
      idempotent: false,
      time: 'real-time',
      faults: false,
      recorded: false,
    })
    expect(routeOfEndpoint('sandboxClock')).toMatchObject({
      key: true,
      scoped: false,
      time: 'clock',
      faults: false,
      recorded: false,
    })
    expect(ROUTES.find((r) => r.kind === 'page')).toMatchObject({
      key: false,
      scoped: false,
      idempotent: false,
      faults: false,
      recorded: false,
    })
  })
})

describe('the table refused as it is built', () => {
  it('a handler for a name the endpoint table lacks', () => {
    expect(() => serve('noSuchEndpoint' as EndpointName, 'key scoped', payLink)).toThrow(
      'noSuchEndpoint: no endpoint of the table (src/shared/endpoints.ts) has this name.',
    )
    expect(() => serve('toString' as EndpointName, 'key scoped', payLink)).toThrow('toString: no endpoint')
  })

  it('an endpoint of the table with no route, or with two', () => {
    for (const name of ['createLink', 'removeSandboxWebhook'] as const) {
      const { method, path } = ENDPOINTS[name]
      expect(() => tableOf(ROUTES.filter((r) => r.endpoint !== name))).toThrow(
        `${name} (${method} ${path}) has no route: serve it in ROUTES.`,
      )
    }
    expect(() => tableOf([...ROUTES, routeOfEndpoint('getLink')])).toThrow(
      `getLink (GET ${ENDPOINTS.getLink.path}) is served 2 times.`,
    )
  })

  it('a route of the sandbox’s own at the method and path of an endpoint', () => {
    expect(() => tableOf([...ROUTES, own('GET', ENDPOINTS.getLink.path, 'page', health)])).toThrow(
      `GET ${ENDPOINTS.getLink.path} is routed twice.`,
    )
  })

  it('rules that say another authorisation than the table’s', () => {
    expect(() => serve('approvedBusinesses', 'key scoped', payLink)).toThrow(
      'approvedBusinesses: the table says it is authorised by account, its rules by key.',
    )
    expect(() => serve('getLink', 'account', payLink as never)).toThrow(
      'getLink: the table says it is authorised by key, its rules by account.',
    )
    expect(() => serve('signIn', 'account', payLink as never)).toThrow(
      'signIn: the table says it is authorised by none, its rules by account.',
    )
    expect(() => serve('approvedBusinesses', 'account faults' as 'account', payLink as never)).toThrow(
      'approvedBusinesses: "account" goes alone.',
    )
  })

  it('a rule it does not know, or one a route cannot have', () => {
    expect(() => serve('getLink', 'key scoped bils', getLink)).toThrow(
      'getLink: "bils" is no rule of a route.',
    )
    expect(() => serve('getLink', 'key scoped idempotent', getLink)).toThrow(
      'getLink: only a POST is idempotent.',
    )
    expect(() => serve('sandboxClock', 'key bills real-time', health)).toThrow(
      'sandboxClock: "bills" or "real-time", not both.',
    )
    expect(() => serve('getLink', 'key bills faults recorded', health)).toThrow(
      'getLink: a route of the service\'s is "key scoped".',
    )
  })

  it('checks a line adds where the table’s say all, or for a field its body lacks', () => {
    expect(() => serve('sandboxPay', 'key scoped', payLink, { found: linkFound })).toThrow(
      'sandboxPay: a control checks its own request.',
    )
    expect(() =>
      serve('createLink', 'key scoped idempotent', createLink, { fields: { package_id: () => undefined } }),
    ).toThrow('createLink: its body has no field package_id to check.')
  })
})

describe('the context a handler gets', () => {
  it('gives the caller to a scoped route only, and the checked fields to a route of the service’s with a body', () => {
    // The checks are tsc's (npm run lint): were either given to another route, these lines would compile.
    // @ts-expect-error payLink acts on the caller's records: a route without `scoped` cannot carry it
    const unscoped = serve('sandboxPay', 'key', payLink)
    expect(unscoped).toMatchObject({ key: true, scoped: false })
    // @ts-expect-error createLink reads the checked fields of a body: Get Payment Link has none
    const bodiless = serve('getLink', 'key scoped bills faults recorded', createLink)
    expect(bodiless).toMatchObject({ endpoint: 'getLink', scoped: true })
  })
})

describe('routing a request', () => {
  it('finds the route of a method and path, with its {…} segment as sent', () => {
    const routed = routeOf('PUT', fillPath(ENDPOINTS.updateLink, 'ab/c') as string)
    expect([routed.route?.endpoint, routed.route && routed.segment]).toEqual(['updateLink', 'ab%2Fc'])
    expect(routeOf('POST', '/checkout/tokens/t0k/activate')).toMatchObject({
      segment: 't0k',
      recorded: false,
    })
  })

  it('answers a path it lacks by its prefix: the API (recorded, faultable), the controls, the pages', () => {
    expect(routeOf('PATCH', fillPath(ENDPOINTS.getLink, 'x') as string)).toEqual({
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
    expect(routeOf('POST', ENDPOINTS.sandboxDeliveries.path)).toMatchObject({
      kind: 'control',
      allowed: ['GET'],
    })
    expect(routeOf('PUT', '/checkout/pay')).toMatchObject({ kind: 'page', allowed: ['GET', 'POST'] })
    expect(routeOf('GET', '/checkout')).toMatchObject({ kind: 'page', allowed: [], faults: false })
  })
})

describe('the router’s checks of a body, from the table', () => {
  let t: TestSandbox
  let linkId: string
  beforeAll(async () => {
    t = await startTestSandbox()
    linkId = (await t.a.call('POST', ENDPOINTS.createLink.path, VALID_LINK)).json.data._id
  })
  afterAll(() => t.close())

  const MESSAGE = '"message":"The given data was invalid."'

  it('names every field that fails at once, in the order the service checks them (its keys in that order)', async () => {
    const empty = await t.a.call('POST', ENDPOINTS.createLink.path, {})
    expect([empty.status, empty.text]).toEqual([
      422,
      `{${MESSAGE},"errors":{"currency":["The currency field is required."],"email":["The email field is required."],"amount":["The amount field is required."],"title":["The title field is required."]}}`,
    ])
    const token = await t.a.call('POST', ENDPOINTS.createToken.path, { phone_no: 5 })
    expect(Object.keys(token.json.errors)).toEqual(['email', 'title', 'description', 'phone_no'])
  })

  it('checks what the table cannot say with the handler’s own: a package of the caller’s, once an email is given', async () => {
    const path = ENDPOINTS.createSubscription.path
    expect((await t.a.call('POST', path, { package_id: 'unknown' })).text).toBe(
      `{${MESSAGE},"errors":{"email":["The email field is required."]}}`,
    )
    expect((await t.a.call('POST', path, { email: 'nope', package_id: 'unknown', phone_no: 5 })).text).toBe(
      `{${MESSAGE},"errors":{"email":["The email must be a valid email address."],"package_id":["The selected package_id is invalid."],"phone_no":["The phone_no must be a string."]}}`,
    )
    const made = await t.a.call('POST', path, { email: 'a@b.co', package_id: t.packageIds[0] })
    expect([made.status, made.json.data.package_id]).toEqual([200, t.packageIds[0]])
  })

  it('finds the record the path names before it checks the body: 404 before 422', async () => {
    const missing = await t.a.call('PUT', fillPath(ENDPOINTS.updateLink, 'no-such-link') as string, {})
    expect([missing.status, missing.json]).toEqual([404, { message: 'Payment link not found.' }])
    const there = await t.a.call('PUT', fillPath(ENDPOINTS.updateLink, linkId) as string, {})
    expect(there.status).toBe(422)
  })
})
