import fc from 'fast-check'
import { expect } from 'vitest'
import { PayError } from '../../src/errors.js'

/**
 * Random answers a server might send, as JSON text (parsed by the test exactly as pay parses
 * it). Objects are written as text so that keys such as `__proto__` become own properties,
 * as JSON.parse makes them; keys are drawn from the fields pay reads and from names that trip
 * naive code (`toString`, `valueOf`, `constructor`).
 */

/** Names that trip code reading fields with `obj[name]` or converting with String(). */
export const HOSTILE_KEY = fc.constantFrom(
  'toString',
  'valueOf',
  'toJSON',
  '__proto__',
  'constructor',
  'hasOwnProperty',
)

export const KEY = fc.oneof(
  HOSTILE_KEY,
  fc.constantFrom(
    '_id',
    'id',
    'status',
    'amount',
    'currency',
    'paid',
    'email',
    'title',
    'phone_no',
    'reference',
    'package',
    'name',
    'frequency',
    'payment_links',
    'created_at',
    'data',
    'success',
    'message',
    'errors',
    'error',
    'next_page_url',
    'links',
    'next',
    'toString',
    'valueOf',
    'toJSON',
    '__proto__',
    'constructor',
    'hasOwnProperty',
    'length',
  ),
  fc.string({ maxLength: 6 }),
)

/** Text a server may put anywhere: controls, escapes, long words, other scripts. */
export const SERVER_TEXT = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.constantFrom(
    'Active',
    'created',
    'cancel',
    'CANCEL',
    'EUR',
    'JPY',
    'KWD',
    'eur',
    '',
    ' ',
    '\u001b[2J',
    '\u009b',
  ),
  HOSTILE_KEY,
  fc.string({
    unit: fc.constantFrom(
      '\u0000',
      '\u0007',
      '\t',
      '\n',
      '\r',
      '\u001b',
      '\u007f',
      '\u0085',
      '\u009b',
      'a',
      '[',
      '\u2028',
    ),
    maxLength: 12,
  }),
)

const LEAF = fc.oneof(
  SERVER_TEXT,
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 25.5, 1e21, 1e-7, Number.MAX_SAFE_INTEGER + 2),
  fc.boolean(),
  fc.constant(null),
)

const objectText = (entries: [string, string][]) =>
  `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`

/** Values that break String(value), `${value}` and JSON.stringify, or nest deep. */
const HOSTILE_VALUE = fc.constantFrom(
  '{"toString":null,"valueOf":null}',
  '{"toString":1}',
  '{"__proto__":{"toString":null}}',
  '{"toJSON":null}',
  '[{"toString":null}]',
  `${'['.repeat(300)}${']'.repeat(300)}`,
)

const tree = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    LEAF.map((leaf) => JSON.stringify(leaf)),
    HOSTILE_VALUE,
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc.array(fc.tuple(KEY, tie('value')), { maxLength: 6 }).map(objectText),
}))

/** Any JSON value, as text. */
export const JSON_TEXT: fc.Arbitrary<string> = tree.value

/** The fields pay reads: to filter, merge, colour and show. */
const READ_FIELDS = [
  '_id',
  'status',
  'email',
  'amount',
  'currency',
  'title',
  'paid',
  'reference',
  'reference_2',
  'package',
  'name',
  'phone_no',
  'description',
  'redirect_url',
  'payment_links',
]
const FIELD = fc.constantFrom(...READ_FIELDS)

/** A JSON object holding some of the fields pay reads, each of any type, and any others. */
export const RECORD_TEXT: fc.Arbitrary<string> = fc
  .tuple(
    fc.array(fc.tuple(FIELD, fc.oneof(JSON_TEXT, HOSTILE_VALUE)), { maxLength: 6 }),
    fc.array(fc.tuple(KEY, JSON_TEXT), { maxLength: 4 }),
    fc.option(SERVER_TEXT.map((id) => JSON.stringify(id))),
  )
  .map(([fields, others, id]) =>
    objectText(id === null ? [...fields, ...others] : [['_id', id], ...fields, ...others]),
  )

/** A record as pay gets it: parsed from the text. */
export const SERVER_RECORD: fc.Arbitrary<Record<string, unknown>> = RECORD_TEXT.map((text) =>
  JSON.parse(text),
)

/** Any JSON value as pay gets it. */
export const SERVER_VALUE: fc.Arbitrary<unknown> = JSON_TEXT.map((text) => JSON.parse(text))

/** A record whose fields pay reads are each there half the time, with a value of any kind. */
export const FIELDS_RECORD_TEXT: fc.Arbitrary<string> = fc
  .record(
    Object.fromEntries(
      READ_FIELDS.map((field) => [
        field,
        fc.oneof(
          LEAF.map((leaf) => JSON.stringify(leaf)),
          HOSTILE_VALUE,
          JSON_TEXT,
        ) as fc.Arbitrary<string>,
      ]),
    ),
    { requiredKeys: [] },
  )
  .map((record) => objectText(Object.entries(record) as [string, string][]))

/** A record in the success envelope, with any field values. */
export const RECORD_ANSWER_TEXT: fc.Arbitrary<string> = FIELDS_RECORD_TEXT.map(
  (record) => `{"success":true,"data":${record},"errors":null}`,
)

/** A list as `data: [...]` or as a page, with any field values. */
export const LIST_ANSWER_TEXT: fc.Arbitrary<string> = fc
  .tuple(fc.array(FIELDS_RECORD_TEXT, { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([records, paged]) =>
    paged
      ? `{"data":{"data":[${records.join(',')}],"next_page_url":null}}`
      : `{"data":[${records.join(',')}]}`,
  )

/** A body the service might answer: an envelope, a bare record or list, a page, or anything. */
export const ANSWER_TEXT: fc.Arbitrary<string> = fc.oneof(
  RECORD_TEXT.map((record) => `{"success":true,"data":${record},"errors":null}`),
  RECORD_TEXT,
  fc.array(RECORD_TEXT, { maxLength: 4 }).map((records) => `{"data":[${records.join(',')}]}`),
  fc.array(RECORD_TEXT, { maxLength: 4 }).map((records) => `[${records.join(',')}]`),
  fc
    .tuple(
      fc.array(RECORD_TEXT, { maxLength: 3 }),
      fc.oneof(
        JSON_TEXT,
        fc
          .constantFrom(
            '?page=2',
            '/payment-links?page=3',
            'http://[',
            '//evil.example/x',
            'https://other.example/p',
            '{BASE}/subscriptions?page=2',
            '',
          )
          .map((next) => JSON.stringify(next)),
      ),
    )
    .map(([records, next]) => `{"data":{"data":[${records.join(',')}],"next_page_url":${next}}}`),
  fc
    .tuple(SERVER_TEXT, JSON_TEXT)
    .map(([message, errors]) => `{"success":false,"message":${JSON.stringify(message)},"errors":${errors}}`),
  JSON_TEXT,
  SERVER_TEXT,
  SERVER_TEXT.map((title) => `<html><title>${title}</title></html>`),
)

/** Only a PayError may come out of `render`. */
export function onlyPayErrors(render: () => void): PayError | undefined {
  try {
    render()
    return undefined
  } catch (error) {
    expect(error, String((error as Error)?.stack)).toBeInstanceOf(PayError)
    return error as PayError
  }
}
