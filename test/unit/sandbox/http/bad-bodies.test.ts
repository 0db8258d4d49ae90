import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_BODY_BYTES } from '../../../../src/sandbox/constants.js'
import { listPackages } from '../../../../src/sandbox/domain/business.js'
import { MAX_JSON_DEPTH } from '../../../../src/sandbox/http/request.js'
import { LINK_FIELDS } from '../../../../src/shared/fields.js'
import { type Json, LINK_TEXT_FIELDS } from '../../../helpers/links.js'
import {
  invalid,
  KEY_A,
  rawRequest,
  startTestSandbox,
  storeText,
  type TestSandbox,
  VALID_LINK,
  VALID_TOKEN,
} from '../../../helpers/sandbox.js'

/** Bad bodies get a 4xx on every endpoint that takes one. */

describe('bad bodies on every endpoint that takes one', () => {
  let t: TestSandbox
  let linkId: string
  let subscriptionId: string
  beforeAll(async () => {
    t = await startTestSandbox()
    linkId = (await t.a.call('POST', '/payment-links', VALID_LINK)).json.data._id
    subscriptionId = (
      await t.a.call('POST', '/subscriptions', {
        package_id: listPackages(KEY_A)[0]._id,
        email: 'a@example.com',
      })
    ).json.data._id
  })
  afterAll(() => t.sandbox.close())

  const STRING_FIELDS = {
    token: ['email', 'title', 'description', 'phone_no', 'redirect_url'],
    link: LINK_TEXT_FIELDS,
    subCreate: ['package_id', 'email', 'phone_no'],
    subUpdate: ['email', 'phone_no', 'status'],
  }
  interface BodyEndpoint {
    method: string
    route: () => string
    valid: () => Json
    stringFields: string[]
    booleanFields: string[]
  }
  const ENDPOINTS: [string, BodyEndpoint][] = [
    [
      'POST /tokenizations/create-token',
      {
        method: 'POST',
        route: () => '/tokenizations/create-token',
        valid: () => VALID_TOKEN,
        stringFields: STRING_FIELDS.token,
        booleanFields: [],
      },
    ],
    [
      'POST /payment-links',
      {
        method: 'POST',
        route: () => '/payment-links',
        valid: () => VALID_LINK,
        stringFields: STRING_FIELDS.link,
        booleanFields: ['send_email'],
      },
    ],
    [
      'PUT /payment-links/{id}',
      {
        method: 'PUT',
        route: () => `/payment-links/${linkId}`,
        valid: () => ({ ...VALID_LINK, title: 'Changed' }),
        stringFields: STRING_FIELDS.link,
        booleanFields: ['send_email'],
      },
    ],
    [
      'POST /subscriptions',
      {
        method: 'POST',
        route: () => '/subscriptions',
        valid: () => ({ package_id: listPackages(KEY_A)[0]._id, email: 'a@example.com' }),
        stringFields: STRING_FIELDS.subCreate,
        booleanFields: [],
      },
    ],
    [
      'PUT /subscriptions/{id}',
      {
        method: 'PUT',
        route: () => `/subscriptions/${subscriptionId}`,
        valid: () => ({ email: 'changed@example.com' }),
        stringFields: STRING_FIELDS.subUpdate,
        booleanFields: [],
      },
    ],
  ]

  const MALFORMED = [
    '{',
    '{"email": ',
    '{"email": "a@b.co",}',
    "{'email': 'a@b.co'}",
    '{"a": 1}}',
    'NaN',
    '{"a": 01}',
    '\u0000',
    '['.repeat(300_000),
  ]
  const NOT_OBJECTS = [
    '[]',
    '[{"email": "a@b.co"}]',
    '"text"',
    '42',
    'null',
    'true',
    `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
  ]
  const NOT_STRINGS: [string, string][] = [
    ['a number', '42'],
    ['a decimal', '25.5'],
    ['true', 'true'],
    ['false', 'false'],
    ['an object', '{"value": "x"}'],
    ['a list', '["x"]'],
    ['a nested object', `${'{"a":'.repeat(20)}"x"${'}'.repeat(20)}`],
  ]
  /** The link's fields that take a JSON number as well as text (`numberToo`): a number is no bad body there. */
  const TAKE_NUMBERS = LINK_FIELDS.filter((f) => f.rules?.includes('numberToo')).map((f) => f.name as string)
  const NUMBERS = new Set(['a number', 'a decimal'])
  const NOT_BOOLEANS: [string, string][] = [
    ['"yes"', '"yes"'],
    ['"true"', '"true"'],
    ['2', '2'],
    ['an object', '{}'],
    ['a list', '[true]'],
  ]
  const MALFORMED_MESSAGE = { message: 'Malformed JSON body.' }
  const NOT_OBJECT_MESSAGE = { message: 'The JSON body must be an object.' }
  const TOO_LARGE_MESSAGE = { message: `The request body is larger than ${MAX_BODY_BYTES} bytes.` }

  /** `valid` as JSON text with `field` set to the JSON text `value` (which may be too deep to build as an object). */
  const withField = (valid: Json, field: string, value: string) =>
    JSON.stringify({ ...valid, [field]: '\u0000placeholder' }).replace('"\\u0000placeholder"', value)

  it.each(ENDPOINTS)(
    '%s answers each with its 4xx, changes nothing, and keeps serving',
    async (_name, endpoint) => {
      const route = endpoint.route()
      const headers = { Authorization: `Bearer ${KEY_A}`, 'Content-Type': 'application/json' }
      const cases: {
        label: string
        send: () => Promise<{ status: number; text: string }>
        status: number
        json: Json
      }[] = []
      const textCase = (
        label: string,
        body: string,
        status: number,
        json: Json,
        contentType = 'application/json',
      ) =>
        cases.push({
          label,
          send: () => t.a.call(endpoint.method, route, body, { 'Content-Type': contentType }),
          status,
          json,
        })
      for (const body of MALFORMED) textCase(`malformed ${body.slice(0, 20)}`, body, 400, MALFORMED_MESSAGE)
      for (const body of NOT_OBJECTS)
        textCase(`not an object ${body.slice(0, 20)}`, body, 400, NOT_OBJECT_MESSAGE)
      cases.push({
        label: 'invalid UTF-8',
        send: () =>
          rawRequest(t.sandbox.baseUrl, {
            method: endpoint.method,
            path: route,
            headers,
            body: [Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
          }),
        status: 400,
        json: MALFORMED_MESSAGE,
      })
      for (const field of endpoint.stringFields) {
        const numbersToo = route.startsWith('/payment-links') && TAKE_NUMBERS.includes(field)
        const kind = numbersToo ? 'a string or a number' : 'a string'
        for (const [what, value] of NOT_STRINGS)
          if (!(numbersToo && NUMBERS.has(what)))
            textCase(
              `${field} as ${what}`,
              withField(endpoint.valid(), field, value),
              422,
              invalid({ [field]: [`The ${field} must be ${kind}.`] }),
            )
      }
      for (const field of endpoint.booleanFields)
        for (const [what, value] of NOT_BOOLEANS)
          textCase(
            `${field} as ${what}`,
            withField(endpoint.valid(), field, value),
            422,
            invalid({ [field]: [`The ${field} field must be true or false.`] }),
          )
      // Deeper than any body of the API: refused before anything walks it.
      for (const field of endpoint.stringFields.slice(0, 1)) {
        // The body's own object and 63 more: as deep as allowed, judged as a field.
        textCase(
          `${field} nested ${MAX_JSON_DEPTH - 1} levels deep`,
          withField(
            endpoint.valid(),
            field,
            `${'{"a":'.repeat(MAX_JSON_DEPTH - 1)}"x"${'}'.repeat(MAX_JSON_DEPTH - 1)}`,
          ),
          422,
          invalid({
            [field]: [
              `The ${field} must be a string${route.startsWith('/payment-links') && TAKE_NUMBERS.includes(field) ? ' or a number' : ''}.`,
            ],
          }),
        )
        for (const depth of [MAX_JSON_DEPTH, 50_000])
          textCase(
            `${field} nested ${depth} levels deep`,
            withField(endpoint.valid(), field, `${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}`),
            400,
            { message: `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.` },
          )
      }
      const oversized = JSON.stringify({ ...endpoint.valid(), description: 'x'.repeat(MAX_BODY_BYTES) })
      textCase('over the size limit, with Content-Length', oversized, 413, TOO_LARGE_MESSAGE)
      cases.push({
        label: 'over the size limit, chunked',
        send: () =>
          rawRequest(t.sandbox.baseUrl, {
            method: endpoint.method,
            path: route,
            headers,
            body: Array.from({ length: 20 }, () => Buffer.alloc(64 * 1024, ' ')),
          }),
        status: 413,
        json: TOO_LARGE_MESSAGE,
      })
      textCase(
        'sent as text/plain',
        JSON.stringify(endpoint.valid()),
        415,
        {
          message: 'The request body must be JSON, sent with Content-Type: application/json.',
        },
        'text/plain',
      )

      const before = storeText(t.dir)
      const expected: Record<string, [number, Json]> = {}
      const actual: Record<string, [number, Json]> = {}
      for (const c of cases) {
        expected[c.label] = [c.status, c.json]
        const answer = await c.send()
        actual[c.label] = [answer.status, JSON.parse(answer.text)]
      }
      expect(actual).toEqual(expected)
      expect(Object.keys(actual)).toHaveLength(cases.length) // labels are unique
      expect(storeText(t.dir)).toBe(before)
      expect((await t.a.call(endpoint.method, route, endpoint.valid())).status).toBe(200)
    },
  )
})

// ---- 5. Loopback unless told otherwise ----

/** Addresses of this machine other than loopback (link-local IPv6 needs a scope: left out). */
