import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { pathOf } from '../../../src/api/client.js'
import { PayError } from '../../../src/errors.js'
import { checkBody } from '../../../src/sandbox/domain/rules.js'
import { ROUTES } from '../../../src/sandbox/http/routes.js'
import {
  ENDPOINT_LIST,
  ENDPOINT_NAMES,
  ENDPOINTS,
  type Endpoint,
  type EndpointName,
  endpointAt,
  fillPath,
} from '../../../src/shared/endpoints.js'
import {
  type Field,
  LINK_FIELDS,
  type LinkInput,
  type SubscriptionInput,
  type SubscriptionUpdate,
  type TokenInput,
} from '../../../src/shared/fields.js'
import { kindOf } from '../../../src/work/history/history.js'
import { ROOT } from '../../helpers/cli.js'
import { commandMap } from '../../helpers/endpoints.js'
import { MANIFEST } from '../../helpers/manifest.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/**
 * The endpoint table (src/shared/endpoints.ts): the same endpoints as the sandbox serves and as
 * the spec states, well formed, and the journal's kinds they give.
 */

/**
 * The sandbox's routes that take a key (its API and its own controls; not health, not the
 * customer pages): each the endpoint it serves, and its method and path as the route has them.
 */
const sandboxRoutes = () =>
  ROUTES.filter((route) => route.kind === 'api' || route.kind === 'control').map((route) => ({
    endpoint: route.endpoint,
    request: `${route.method} ${route.path}`,
  }))

const declared = (endpoints: readonly Endpoint[]) =>
  endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`)

const SPEC = fs.readFileSync(path.join(ROOT, 'docs/spec/payment-service-api.md'), 'utf8')

/**
 * Section 4 of the spec: each endpoint's title, `METHOD /path` and its body's table, `{x_id}` as
 * `{id}`.
 */
function specEndpoints(): { title: string; endpoint: string; fields: [string, boolean][] }[] {
  const section = SPEC.slice(SPEC.indexOf('\n## 4.'), SPEC.indexOf('\n## 5.'))
  return section
    .split('\n### ')
    .slice(1)
    .map((part) => {
      const [, title] = /^[\d.]+ (.+)$/m.exec(part) ?? []
      const [, method, route] = /^`([A-Z]+) (\/[^`]*)`$/m.exec(part) ?? []
      const rows = [...part.matchAll(/^\| (\w+) \| [^|]+ \| ([^|]+) \|$/gm)].filter(
        ([, name]) => name !== 'Field',
      )
      return {
        title,
        endpoint: `${method} ${route.replace(/\{\w+_id\}/, '{id}')}`,
        fields: rows.map(([, name, rule]): [string, boolean] => [name, rule.startsWith('required')]),
      }
    })
}

/**
 * Section 7's rule 2: the fields a body with none is refused naming, in order, of each endpoint
 * it names (`for Create Payment Link: currency, email, amount, title`).
 */
function specMissingFields(): { title: string; fields: string[] }[] {
  const [, lists] = /^2\. Every missing required field .*\((.*)\)\.$/m.exec(SPEC) ?? []
  return lists.split('; ').map((list) => {
    const [, title, fields] = /^(?:for )?([^:]+): (.+)$/.exec(list) ?? []
    return { title, fields: fields.split(', ') }
  })
}

/** Values for the path parameters beyond `{id}` (`{business}`, `{integration}`). */
const PARAMS = { business: '12', integration: 'int_1' }

const fieldsOf = (fields: readonly Field[] = []) => fields.map((f): [string, boolean] => [f.name, f.required])

describe('the client and the sandbox cover the same endpoints', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await startTestSandbox()
  })
  afterAll(() => t.close())

  it('each endpoint the client declares, the sandbox serves at its method and path, and no other', () => {
    const served = sandboxRoutes()
    expect(served.length).toBeGreaterThan(20)
    expect({
      'declared, not served': ENDPOINT_NAMES.filter((name) => !served.some((r) => r.endpoint === name)),
      'served, not declared': served.filter((r) => r.endpoint === undefined || !(r.endpoint in ENDPOINTS)),
      'served elsewhere': served.filter(
        (r) => r.endpoint && declared([ENDPOINTS[r.endpoint]])[0] !== r.request,
      ),
    }).toEqual({ 'declared, not served': [], 'served, not declared': [], 'served elsewhere': [] })
  })

  it('each endpoint is answered over HTTP at its path by its route, not as a path or method the sandbox lacks', async () => {
    for (const name of ENDPOINT_NAMES) {
      const endpoint: Endpoint = ENDPOINTS[name]
      const body = endpoint.body ? {} : undefined
      const path = fillPath(endpoint, 'no-such-record', PARAMS) as string
      const answer = await t.a.call(endpoint.method, path, body)
      // The router's miss: 405 (another method of the path), or 404 `Not found.` (no such path).
      const missed = answer.status === 405 || (answer.status === 404 && answer.json?.message === 'Not found.')
      expect([name, answer.status, missed]).toEqual([name, answer.status, false])
    }
  })

  it('the spec’s section 4 is declared, with its bodies’ fields and rules', () => {
    const spec = specEndpoints()
    expect(spec).toHaveLength(11)
    const service = ENDPOINT_LIST.filter((endpoint) => !endpoint.sandbox)
    // pay may call more than the spec states (where docs/choices.md says so), never less.
    expect(spec.map((s) => s.endpoint).filter((endpoint) => !declared(service).includes(endpoint))).toEqual(
      [],
    )
    for (const { endpoint, fields } of spec) {
      const [method, route] = endpoint.split(' ')
      const body = service.find((e) => e.method === method && e.path === route)?.body
      // Update Payment Link: "the same fields and rules as Create Payment Link" (spec 4.3).
      const expected = endpoint === 'PUT /payment-links/{id}' ? fieldsOf(LINK_FIELDS) : fields
      expect([endpoint, fieldsOf(body)]).toEqual([endpoint, expected])
    }
  })

  it('the spec’s section 7 rule 2: a body with no field is refused naming the fields it lists, in its order', () => {
    const missing = specMissingFields()
    expect(missing.map((m) => m.title)).toEqual([
      'Create Tokenization',
      'Create Payment Link',
      'Create Subscription',
    ])
    const spec = specEndpoints()
    for (const { title, fields } of missing) {
      const [method, route] = (spec.find((s) => s.title === title)?.endpoint ?? '').split(' ')
      const endpoint = endpointAt(method, route) as Endpoint
      const checked = checkBody(endpoint.body ?? [], {})
      expect([title, checked.ok ? [] : Object.keys(checked.errors)]).toEqual([title, fields])
    }
  })
})

describe('each declaration', () => {
  it('is declared once, and found again from a request to it', () => {
    expect(new Set(declared(ENDPOINT_LIST)).size).toBe(ENDPOINT_LIST.length)
    for (const endpoint of ENDPOINT_LIST) {
      expect(
        endpointAt(
          endpoint.method,
          pathOf(endpoint, endpoint.path.includes('{id}') ? 'a b' : undefined, {}, PARAMS),
        ),
      ).toBe(endpoint)
    }
    expect(endpointAt('POST', '/_sandbox/seed?once=true')).toBe(ENDPOINTS.sandboxSeed)
    expect(endpointAt('PATCH', '/payment-links/lnk_1')).toBeUndefined()
    expect(endpointAt('GET', '/payment-links/lnk_1/x')).toBeUndefined()
    expect(endpointAt('GET', '/_sandbox/health')).toBeUndefined()
  })

  it('is the sandbox’s when under /_sandbox/; changes state (and has a kind) unless a GET; a body only on POST, PUT and PATCH (a DELETE’s, of optional fields, as the plugins send it)', () => {
    for (const endpoint of ENDPOINT_LIST) {
      const { method, path: route } = endpoint
      expect({
        route,
        sandbox: endpoint.sandbox,
        changesState: endpoint.changesState,
        kind: endpoint.kind !== undefined,
        body:
          endpoint.body !== undefined &&
          !['POST', 'PUT', 'PATCH'].includes(method) &&
          !(method === 'DELETE' && endpoint.body.every((field) => !field.required)),
        list: endpoint.answer === 'list' && (method !== 'GET' || route.includes('{id}')),
      }).toEqual({
        route,
        sandbox: route.startsWith('/_sandbox/'),
        changesState: method !== 'GET',
        kind: method !== 'GET',
        body: false,
        list: false,
      })
    }
    // The service's lists are the collections it answers page by page.
    for (const endpoint of ENDPOINT_LIST.filter((endpoint) => endpoint.answer === 'list'))
      expect([endpoint.path, endpoint.sandbox, endpoint.verb]).toEqual([endpoint.path, false, 'list'])
  })

  it('is called by a command, and every command calls only endpoints of the table', () => {
    const called = new Set([...commandMap()].flatMap(([, endpoints]) => endpoints))
    for (const endpoint of ENDPOINT_LIST)
      expect([endpoint.path, called.has(endpoint)]).toEqual([endpoint.path, true])
    for (const command of Object.values(MANIFEST.commands))
      expect([command.id, (command.calls ?? []).filter((name) => !(name in ENDPOINTS))]).toEqual([
        command.id,
        [],
      ])
  })
})

describe('request bodies', () => {
  it('the input types are the declared fields: required ones required, the rest optional', () => {
    expectTypeOf<TokenInput>().toEqualTypeOf<{
      email: string
      phone_no?: string
      redirect_url?: string
      title: string
      description: string
    }>()
    expectTypeOf<LinkInput>().toEqualTypeOf<{
      email: string
      currency: string
      amount: string
      title: string
      phone_no?: string
      description?: string
      redirect_url?: string
      reference?: string
      reference_2?: string
      send_email?: boolean
    }>()
    expectTypeOf<SubscriptionInput>().toEqualTypeOf<{
      package_id: string
      email: string
      phone_no?: string
    }>()
    expectTypeOf<SubscriptionUpdate>().toEqualTypeOf<{ email?: string; phone_no?: string; status?: string }>()
  })
})

describe('paths', () => {
  it('an id is one segment, percent-encoded; the query’s given values follow', () => {
    expect(pathOf(ENDPOINTS.getLink, 'lnk 1/x?')).toBe('/payment-links/lnk%201%2Fx%3F')
    expect(pathOf(ENDPOINTS.sandboxSeed, undefined, { once: true })).toBe('/_sandbox/seed?once=true')
    expect(pathOf(ENDPOINTS.sandboxSeed, undefined, { once: undefined })).toBe('/_sandbox/seed')
    expect(pathOf(ENDPOINTS.sandboxRequests, undefined, { after: 3, limit: undefined, wait: 5 })).toBe(
      '/_sandbox/requests?after=3&wait=5',
    )
  })

  it.each(['', '.', '..'])('%j cannot be an id: a usage error, nothing sent', (id) => {
    expect(() => pathOf(ENDPOINTS.deleteLink, id)).toThrow(
      new PayError(`${JSON.stringify(id)} is not a valid id.`, { kind: 'usage' }),
    )
  })
})

describe('the journal’s kinds come from the declarations', () => {
  /** What `pay history` printed for every change before the declarations: the method's verb and the noun. */
  function kindBefore(entry: { command: string; method: string; resource: string }): string {
    const noun =
      { 'payment link': 'link', subscription: 'sub', token: 'token' }[entry.resource] ?? entry.resource
    if (entry.command === 'pay subs cancel') return `cancel ${noun}`
    const verb = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' }[entry.method]
    if (verb && entry.command !== 'pay api') return `${verb} ${noun}`
    return `${entry.method} ${noun}`.trim()
  }

  const entry = (endpoint: Endpoint, command: string) => ({
    command: `pay ${command}`,
    method: endpoint.method,
    path: pathOf(endpoint, endpoint.path.includes('{id}') ? 'abc' : undefined),
    resource: endpoint.noun,
  })

  /**
   * The endpoints that changed state when `pay history` named changes by hand (the method's verb and
   * the noun): their kinds must stay what it printed, so old journals read the same. An endpoint
   * declared later names its own kind. (Data of pay's past: test/fixtures/kinds-named-by-hand.json.)
   */
  const NAMED_BY_HAND = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'test/fixtures/kinds-named-by-hand.json'), 'utf8'),
  ) as EndpointName[]

  it('each change of each command: its endpoint’s kind (a preset’s for its command), as history printed it before', () => {
    const seen: string[][] = []
    for (const [command, endpoints] of commandMap()) {
      for (const endpoint of endpoints.filter((e) => NAMED_BY_HAND.some((name) => ENDPOINTS[name] === e))) {
        const change = entry(endpoint, command)
        const preset = endpoint.presets?.find((p) => command.split(' ').at(-1) === p.verb)
        expect([command, kindOf(change)]).toEqual([command, preset?.kind ?? endpoint.kind])
        expect(kindOf(change)).toBe(kindBefore(change))
        seen.push([command, kindOf(change)])
      }
    }
    expect(seen).toContainEqual(['subs cancel', 'cancel sub'])
    expect(seen).toContainEqual(['links create', 'create link'])
    expect(seen).toContainEqual(['sandbox pay', 'create sandbox payment'])
  })

  it.each([
    ['pay api', 'POST', '/payment-links', 'payment link', 'POST link'],
    ['pay api', 'DELETE', '/v1/subscriptions/s1', 'subscription', 'DELETE sub'],
    ['pay api', 'PATCH', '/payment-links/l1', 'payment link', 'PATCH link'],
    ['pay api', 'POST', '/_sandbox/reset', '/_sandbox/reset', 'POST /_sandbox/reset'],
    ['pay links update', 'PATCH', '/payment-links/l1', 'payment link', 'update link'],
    ['pay links create', 'POST', '/elsewhere', 'payment link', 'create link'],
    ['pay links create', 'POST', '/payment-links', 'link', 'create link'],
    ['pay subs cancel', 'PUT', '/subscriptions/s1', 'subscription', 'cancel sub'],
    ['pay subs update', 'PUT', '/subscriptions/s1', 'subscription', 'update sub'],
  ])('%s %s %s (%s): %s, as before', (command, method, path, resource, kind) => {
    expect(kindOf({ command, method, path, resource })).toBe(kind)
    expect(kindBefore({ command, method, resource })).toBe(kind)
  })

  it('a journal line missing fields is named as before, not thrown on', () => {
    const line = JSON.parse('{"change": "c1"}')
    expect(kindOf(line)).toBe(kindBefore(line))
    const noPath = JSON.parse(
      '{"change": "c1", "command": "pay links create", "method": "POST", "resource": "payment link"}',
    )
    expect(kindOf(noPath)).toBe('create link')
  })
})
