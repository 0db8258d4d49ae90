import { Writable } from 'node:stream'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorFromResponse, parseBody, readDeleted, readPage, readRecord } from '../../src/api/reader.js'
import { PayError } from '../../src/errors.js'
import type { BulkResult } from '../../src/lib/bulk.js'
import { Output } from '../../src/render/output.js'
import { sanitizeCell, sanitizeText } from '../../src/render/sanitize.js'
import { LINK_VIEW, PROFILE_VIEW, SUBSCRIPTION_VIEW, TOKEN_VIEW, type View } from '../../src/render/views.js'
import { envelope, type FakeServer, sendJson, startFakeServer } from '../helpers/fake-server.js'
import { argvFor, COMMANDS, expected, expectModel, inputArbitrary } from '../helpers/flag-model.js'
import { runInProcess } from '../helpers/in-process.js'
import { LINK_TEXT_FIELDS, rawControlBytes } from '../helpers/links.js'
import {
  ANSWER_TEXT,
  HOSTILE_KEY,
  KEY,
  LIST_ANSWER_TEXT,
  RECORD_ANSWER_TEXT,
  RECORD_TEXT,
  SERVER_RECORD,
  SERVER_TEXT,
  SERVER_VALUE,
} from '../helpers/server-json.js'

/**
 * Property-based tests, in this process (milliseconds a run): the commands' flag handling
 * against a model, the renderers and the tolerant reader against any JSON a server may send,
 * the sanitiser against any text, and amounts sent exactly as typed. The same flag model runs
 * through bin/run.js in properties-cli.test.ts. Runs per property are in RUNS.
 */

const RUNS = { flags: 150, amounts: 250, renderers: 400, readers: 1000, commands: 300, sanitiser: 1000 }

let server: FakeServer
/** What the server answers to GET /payment-links/{id} in the current run. */
let current: Record<string, unknown> = {}
/** Answers for the current run, in turn; the last one repeats. */
let answers: { status: number; text: string }[] = []

beforeAll(async () => {
  server = await startFakeServer((request, response) => {
    if (answers.length > 0) {
      const answer = answers.length > 1 ? answers.shift()! : answers[0]
      const text = answer.text.replaceAll('{BASE}', server.baseUrl)
      response.writeHead(answer.status, {
        'content-type': text.startsWith('<') ? 'text/html' : 'application/json',
      })
      response.end(text)
      return
    }
    if (request.method === 'GET') return sendJson(response, 200, envelope(current))
    sendJson(response, 200, envelope({ _id: 'rec_1', ...JSON.parse(request.body || '{}') }))
  })
})
afterAll(() => server.close())

const env = () => ({ PAY_API_KEY: 'sk_test_property', PAY_BASE_URL: server.baseUrl })

async function run(args: string[]) {
  server.requests.length = 0
  return runInProcess(args, env())
}

/** A payment link as the service may hold it (any scalar types; links update reads it). */
const currentLink = fc.record(
  Object.fromEntries(
    LINK_TEXT_FIELDS.map((field) => [
      field,
      fc.oneof(SERVER_TEXT, fc.double({ noNaN: true }), fc.integer(), fc.boolean(), fc.constant(null)),
    ]),
  ),
  { requiredKeys: [] },
)

describe('(a) any flag values: a clear error, or exactly the request the flags describe', () => {
  it.each(COMMANDS.map((spec) => [spec.name, spec] as const))('%s', async (_, spec) => {
    let requests = 0
    await fc.assert(
      fc.asyncProperty(inputArbitrary(spec), currentLink, async (input, link) => {
        current = JSON.parse(JSON.stringify(link)) // as the server sends it
        const result = await run(argvFor(spec, input))
        expectModel(expected(spec, input, current), result, server.requests)
        if (result.code === 0) requests += 1
        else expect(result.raw === undefined || result.raw instanceof Error).toBe(true)
      }),
      { numRuns: RUNS.flags },
    )
    // The model must not only ever predict errors.
    expect(requests).toBeGreaterThan(RUNS.flags / 10)
  })
})

describe('(d) amounts are sent byte for byte as typed', () => {
  const AMOUNT = fc
    .oneof(
      fc.stringMatching(/^[0-9]{1,12}(\.[0-9]{1,8})?$/),
      fc
        .tuple(
          fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 40 }),
          fc.option(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 40 })),
        )
        .map(([whole, fraction]) => (fraction === null ? whole : `${whole}.${fraction}`)),
    )
    .filter((amount) => /[1-9]/.test(amount))

  it('links create --amount X sends "amount":"X"', async () => {
    await fc.assert(
      fc.asyncProperty(AMOUNT, async (amount) => {
        const result = await run([
          'links',
          'create',
          '--email',
          'a@b.co',
          '--currency',
          'EUR',
          '--title',
          'T',
          '--amount',
          amount,
        ])
        expect(result.code).toBe(0)
        expect(server.requests).toHaveLength(1)
        expect(server.requests[0].body).toContain(`"amount":${JSON.stringify(amount)}`)
        expect(JSON.parse(server.requests[0].body).amount).toBe(amount)
      }),
      { numRuns: RUNS.amounts },
    )
  })

  it('links update ID --amount X sends "amount":"X", whatever the current amount', async () => {
    await fc.assert(
      fc.asyncProperty(AMOUNT, fc.oneof(fc.double({ noNaN: true }), fc.integer()), async (amount, was) => {
        current = { _id: 'lnk_1', email: 'a@b.co', currency: 'EUR', amount: was, title: 'T' }
        const result = await run(['links', 'update', 'lnk_1', '--amount', amount])
        expect(result.code).toBe(0)
        expect(server.requests.map((r) => r.method)).toEqual(['GET', 'PUT'])
        expect(JSON.parse(server.requests[1].body).amount).toBe(amount)
      }),
      { numRuns: RUNS.amounts },
    )
  })
})

/** A stream that keeps what was written; a terminal of `columns` columns when `tty`. */
class Sink extends Writable {
  readonly chunks: Buffer[] = []
  constructor(
    readonly isTTY: boolean,
    readonly columns: number,
  ) {
    super()
  }
  _write(chunk: Buffer, _: BufferEncoding, done: () => void) {
    this.chunks.push(Buffer.from(chunk))
    done()
  }
  get bytes(): Buffer {
    return Buffer.concat(this.chunks)
  }
}

const VIEWS: View[] = [LINK_VIEW, TOKEN_VIEW, SUBSCRIPTION_VIEW, PROFILE_VIEW]

const MODE = fc.record({
  json: fc.boolean(),
  quiet: fc.boolean(),
  columns: fc.option(
    fc.array(
      fc.oneof(
        KEY,
        HOSTILE_KEY,
        fc.constantFrom('id', '_id', 'package.name', 'package.amount', 'amount', 'status'),
      ),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    { nil: undefined },
  ),
  terminal: fc.boolean(),
  colour: fc.boolean(),
  width: fc.integer({ min: 0, max: 160 }),
})

type Mode = typeof MODE extends fc.Arbitrary<infer T> ? T : never

function outputFor(mode: Mode) {
  const stdout = new Sink(mode.terminal, mode.width)
  const stderr = new Sink(false, 0)
  const out = new Output({
    json: mode.json,
    quiet: mode.quiet,
    columns: mode.columns,
    stdout,
    stderr,
    env: mode.colour ? {} : { NO_COLOR: '1' },
  })
  return { out, stdout, stderr }
}

/** Only a PayError may come out of `render`. */
function onlyPayErrors(render: () => void): PayError | undefined {
  try {
    render()
    return undefined
  } catch (error) {
    expect(error, String((error as Error)?.stack)).toBeInstanceOf(PayError)
    return error as PayError
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the SGR sequences pay itself writes
const PAY_SGR = /\u001b\[(?:1|22|2|31|32|33|36|39)m/g

/** Table or TSV bytes hold no control byte but tab and newline (and pay's own colours). */
function expectNoRawControls(bytes: Buffer, mode: Mode) {
  const text =
    mode.terminal && mode.colour ? bytes.toString('utf8').replace(PAY_SGR, '') : bytes.toString('utf8')
  expect(rawControlBytes(Buffer.from(text, 'utf8'), [0x09, 0x0a])).toEqual([])
}

const BULK: fc.Arbitrary<BulkResult[]> = fc.array(
  fc.record({
    id: SERVER_TEXT,
    ok: fc.boolean(),
    status: fc.oneof(
      fc.constantFrom('deleted', 'cancelled', 'already_cancelled', 'not_found', 'failed', 'not_done'),
      SERVER_TEXT,
    ),
    error: fc.option(SERVER_TEXT, { nil: null }),
  }),
  { maxLength: 5 },
)

describe('(b) renderers: any server JSON, every mode: output or a PayError, nothing else', () => {
  it('Output.record, Output.list and Output.bulk', () => {
    fc.assert(
      fc.property(
        MODE,
        fc.constantFrom(...VIEWS),
        SERVER_RECORD,
        fc.array(SERVER_RECORD, { maxLength: 5 }),
        BULK,
        (mode, view, record, list, bulk) => {
          for (const render of [
            (out: Output) => out.record(record, view),
            (out: Output) => out.list(list, view),
            (out: Output) => out.bulk(bulk),
          ]) {
            const { out, stdout } = outputFor(mode)
            const error = onlyPayErrors(() => render(out))
            if (error)
              expect(error.kind).toBe('usage') // an unknown --columns name
            else if (!mode.json && !mode.quiet) expectNoRawControls(stdout.bytes, mode)
          }
        },
      ),
      { numRuns: RUNS.renderers },
    )
  })

  it('Output.error, note and warn, with any message, field errors and hint', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        SERVER_TEXT,
        fc.option(fc.dictionary(KEY, fc.array(SERVER_TEXT, { maxLength: 3 })), { nil: undefined }),
        fc.option(SERVER_TEXT, { nil: undefined }),
        (json, message, errors, hint) => {
          const stderr = new Sink(false, 0)
          const out = new Output({ json, stdout: new Sink(false, 0), stderr, env: {} })
          out.error(new PayError(message, { kind: 'validation', errors, hint }))
          out.note(message)
          out.warn(message)
          // Under --json the error is one line of JSON with every control escaped.
          if (json) {
            const [line] = stderr.bytes.toString('utf8').split('\n')
            expect(rawControlBytes(Buffer.from(line), [])).toEqual([])
            expect(JSON.parse(line).error.message).toBe(message)
          }
          expect(rawControlBytes(stderr.bytes)).toEqual([])
        },
      ),
      { numRuns: RUNS.renderers },
    )
  })
})

describe('(b) the tolerant reader: any answer is a value or a PayError', () => {
  it('readRecord, readPage and readDeleted, on any JSON', () => {
    fc.assert(
      fc.property(SERVER_VALUE, (body) => {
        onlyPayErrors(() => readRecord(body, 'payment link'))
        onlyPayErrors(() => readPage(body, 'payment link'))
        onlyPayErrors(() => readDeleted(body))
      }),
      { numRuns: RUNS.readers },
    )
  })

  it('parseBody and errorFromResponse, on any text, status and content type', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.oneof(ANSWER_TEXT, fc.string({ unit: 'binary' })),
        fc.option(fc.constantFrom('application/json', 'text/html', 'text/plain', ''), { nil: undefined }),
        (status, text, contentType) => {
          onlyPayErrors(() => parseBody(status, text, contentType))
          const error = errorFromResponse(status, text, contentType)
          expect(error).toBeInstanceOf(PayError)
          expect(typeof error.message).toBe('string')
        },
      ),
      { numRuns: RUNS.readers },
    )
  })
})

const VALID = {
  'links create': ['--email', 'a@b.co', '--currency', 'EUR', '--amount', '1', '--title', 'T'],
  'token create': ['--email', 'a@b.co', '--title', 'T', '--description', 'D'],
  'subs create': ['--package-id', 'pkg_1', '--email', 'a@b.co'],
}

const READING_COMMANDS: string[][] = [
  ['links', 'get', 'lnk_1'],
  ['links', 'list'],
  ['links', 'list', '--all', '--status', 'active', '--paid', '--email', 'a@b.co', '--reference', 'r'],
  ['links', 'update', 'lnk_1', '--title', 'T'],
  ['links', 'delete', 'lnk_1', 'lnk_2', '--yes'],
  ['links', 'create', ...VALID['links create']],
  ['token', 'create', ...VALID['token create']],
  ['subs', 'get', 'sub_1'],
  ['subs', 'list', '--all', '--status', 'cancel', '--email', 'a@b.co'],
  ['subs', 'update', 'sub_1', '--status', 'cancel'],
  ['subs', 'cancel', 'sub_1', 'sub_2', '--yes'],
  ['subs', 'delete', 'sub_1', '--yes'],
  ['subs', 'create', ...VALID['subs create']],
]

/** Only a PayError reached catch(); an exit code of its kind; no stack trace, no raw control byte. */
function expectCleanFailure(result: Awaited<ReturnType<typeof run>>, flags: string[]) {
  if (result.raw !== undefined) {
    expect(result.raw, String((result.raw as Error).stack)).toBeInstanceOf(PayError)
  }
  // 2 only for a --columns name that neither the view nor any record has.
  expect(flags[0] === '--columns' ? [0, 1, 2, 3, 4, 5, 6, 7] : [0, 1, 3, 4, 5, 6, 7]).toContain(result.code)
  expect(result.stderr).not.toMatch(/^\s+at /m)
  expect(rawControlBytes(Buffer.from(result.stderr))).toEqual([])
}

const OUTPUT_FLAGS = fc.oneof(
  fc.constant([] as string[]),
  fc.constant(['--json'] as string[]),
  fc.constant(['-q'] as string[]),
  fc
    .array(fc.constantFrom('_id', 'status', 'amount', 'email', 'package.name', 'title'), {
      minLength: 1,
      maxLength: 3,
    })
    .map((columns) => ['--columns', columns.join(',')]),
)

describe('(b) every command that reads answers: only a PayError, never an unexpected exception', () => {
  it('answers of the right shape holding fields of any type (filters, merges, cancels, ids, tables)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...READING_COMMANDS),
        OUTPUT_FLAGS,
        fc.array(RECORD_ANSWER_TEXT, { minLength: 1, maxLength: 4 }),
        LIST_ANSWER_TEXT,
        async (args, flags, records, list) => {
          const lists = args[1] === 'list'
          answers = lists ? [{ status: 200, text: list }] : records.map((text) => ({ status: 200, text }))
          try {
            expectCleanFailure(await run([...args, ...flags]), flags)
          } finally {
            answers = []
          }
        },
      ),
      { numRuns: RUNS.commands },
    )
  })

  it('any answer: any status, any body', async () => {
    const ANSWER = fc.record({
      // No 408/429/5xx: their retries wait; test/api covers them.
      status: fc.oneof(
        { weight: 4, arbitrary: fc.constant(200) },
        { weight: 1, arbitrary: fc.constantFrom(201, 204, 400, 401, 403, 404, 409, 422) },
      ),
      text: ANSWER_TEXT,
    })
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...READING_COMMANDS),
        OUTPUT_FLAGS,
        fc.array(ANSWER, { minLength: 1, maxLength: 4 }),
        async (args, flags, script) => {
          answers = [...script]
          try {
            expectCleanFailure(await run([...args, ...flags]), flags)
          } finally {
            answers = []
          }
        },
      ),
      { numRuns: RUNS.commands },
    )
  })
})

describe('(b) answers nested deeper than anything can print', () => {
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

  it.each(
    [
      ['links', 'get', 'lnk_1'],
      ['links', 'get', 'lnk_1', '--json'],
      ['links', 'list', '-q'],
      ['links', 'update', 'lnk_1', '--title', 'T'],
    ].map((args) => [args.join(' '), args]),
  )('%s: an unexpected answer (exit 6), not a stack overflow', async (_, args) => {
    answers = [{ status: 200, text: `{"data":{"_id":"lnk_1","title":${deep(100_000)}}}` }]
    try {
      const result = await run(args)
      expect(result.raw).toBeInstanceOf(PayError)
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr.split('\n')[0] }).toEqual({
        code: 6,
        stdout: '',
        stderr: args.includes('--json')
          ? expect.stringContaining(
              '"message":"Unexpected answer from the service: status 200 with JSON nested deeper than 256 levels."',
            )
          : 'Error: Unexpected answer from the service: status 200 with JSON nested deeper than 256 levels.',
      })
    } finally {
      answers = []
    }
  })

  it('an error answer nested that deep is reported by its status', async () => {
    answers = [{ status: 404, text: `{"message":"gone","errors":{"id":${deep(100_000)}}}` }]
    try {
      const result = await run(['links', 'get', 'lnk_1'])
      expect(result.code).toBe(5)
      expect(result.stderr).toMatch(
        /^Error: The service answered 404: \{"message":"gone","errors":\{"id":\[+…\n$/,
      )
    } finally {
      answers = []
    }
  })
})

describe('(c) the sanitiser', () => {
  const TEXT = fc.oneof(fc.string({ unit: 'binary' }), SERVER_TEXT, fc.string({ unit: 'grapheme' }))

  it('sanitizeText keeps no control character but tab and newline, and keeps those', () => {
    fc.assert(
      fc.property(TEXT, (text) => {
        const shown = sanitizeText(text)
        // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be left
        expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
        expect(shown.split('\t').length).toBe(text.split('\t').length)
        expect(shown.split('\n').length).toBe(text.split('\n').length)
        // Text without controls is left as it is.
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls sanitizeText replaces
        if (!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(text)) expect(shown).toBe(text)
      }),
      { numRuns: RUNS.sanitiser },
    )
  })

  it('sanitizeCell keeps no control character at all, and different cells stay different', () => {
    fc.assert(
      fc.property(TEXT, TEXT, (a, b) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be left
        expect(sanitizeCell(a)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
        if (sanitizeText(a) !== sanitizeText(b)) expect(sanitizeCell(a)).not.toBe(sanitizeCell(b))
      }),
      { numRuns: RUNS.sanitiser },
    )
  })

  it('TSV keeps one line per record and one cell per column, with no control byte inside a cell', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.constantFrom(...LINK_VIEW.listColumns), TEXT), { maxLength: 5 }),
        (records) => {
          const { out, stdout } = outputFor({
            json: false,
            quiet: false,
            columns: undefined,
            terminal: false,
            colour: false,
            width: 80,
          })
          out.list(records, LINK_VIEW)
          const lines = stdout.bytes.toString('utf8').split('\n')
          expect(lines.pop()).toBe('')
          expect(lines).toHaveLength(records.length)
          for (const line of lines) {
            const cells = line.split('\t')
            expect(cells).toHaveLength(LINK_VIEW.listColumns.length)
            for (const cell of cells) expect(rawControlBytes(Buffer.from(cell), [])).toEqual([])
          }
        },
      ),
      { numRuns: RUNS.sanitiser / 2 },
    )
  })

  it('a table on a terminal, with or without colour, shows no control byte but tab and newline', () => {
    fc.assert(
      fc.property(
        fc.array(
          RECORD_TEXT.map((text) => JSON.parse(text)),
          { minLength: 1, maxLength: 4 },
        ),
        fc.boolean(),
        fc.integer({ min: 10, max: 160 }),
        (records, colour, width) => {
          const mode = { json: false, quiet: false, columns: undefined, terminal: true, colour, width }
          for (const render of [
            (out: Output) => out.list(records, LINK_VIEW),
            (out: Output) => out.record(records[0], SUBSCRIPTION_VIEW),
          ]) {
            const { out, stdout } = outputFor(mode)
            render(out)
            expectNoRawControls(stdout.bytes, mode)
            if (!colour) expect(stdout.bytes.includes(0x1b)).toBe(false)
          }
        },
      ),
      { numRuns: RUNS.renderers },
    )
  })
})
