import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PayError } from '../../../src/errors.js'
import { tempDir } from '../../helpers/cli.js'
import { commandMap, commandsCalling, idOnlyCommands, undeclaredRequests } from '../../helpers/endpoints.js'
import { envelope, type FakeServer, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import { argvFor, COMMANDS, expected, expectModel, inputArbitrary } from '../../helpers/flag-model.js'
import { runInProcess } from '../../helpers/in-process.js'
import { LINK_TEXT_FIELDS, rawControlBytes } from '../../helpers/links.js'
import { commandOf } from '../../helpers/manifest.js'
import { ANSWER_TEXT, LIST_ANSWER_TEXT, RECORD_ANSWER_TEXT, SERVER_TEXT } from '../../helpers/server-json.js'

/**
 * Property-based tests of the commands, run in this process (milliseconds a run) against a fake
 * server: their flag handling against a model, amounts sent exactly as typed, and any answer a
 * server may send ending in a clean PayError. The same flag model runs through bin/run.js in
 * test/e2e/reliability/properties-cli.test.ts. Runs per property are in RUNS.
 */

const RUNS = { flags: 150, amounts: 250, commands: 300 }

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

/**
 * A profile signed in to an account (`pay login --email`), for the commands of the account's
 * endpoints (`-p shop`): its access token and integration in the config file.
 */
const CONFIG_DIR = tempDir('pay-properties-config-')
fs.writeFileSync(
  path.join(CONFIG_DIR, 'config.json'),
  JSON.stringify({
    profiles: {
      shop: {
        api_key: 'sk_test_property',
        base_url: 'http://127.0.0.1:1',
        access_token: 'sat_property_token',
        account_email: 'merchant@example.com',
        business_id: '12',
        integration_id: 'int_1',
        signature_key: 'sig_property',
      },
    },
  }),
  { mode: 0o600 },
)

const env = () => ({
  PAY_API_KEY: 'sk_test_property',
  PAY_BASE_URL: server.baseUrl,
  PAY_CONFIG_DIR: CONFIG_DIR,
})

async function run(args: string[]) {
  server.requests.length = 0
  return runInProcess(args, { env: env() })
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
    // The model must not only ever predict errors. links create needs four valid fields at once:
    // 14 to 31 of 150 runs reach the server, so the bound sits well below that.
    expect(requests).toBeGreaterThan(RUNS.flags / 30)
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
          // A code that is no ISO currency: any number of decimals goes.
          '--currency',
          'BTC',
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
        current = { _id: 'lnk_1', email: 'a@b.co', currency: 'BTC', amount: was, title: 'T' }
        const result = await run(['links', 'update', 'lnk_1', '--amount', amount])
        expect(result.code).toBe(0)
        expect(server.requests.map((r) => r.method)).toEqual(['GET', 'PUT'])
        expect(JSON.parse(server.requests[1].body).amount).toBe(amount)
      }),
      { numRuns: RUNS.amounts },
    )
  })
})

const VALID = {
  'links create': ['--email', 'a@b.co', '--currency', 'EUR', '--amount', '1', '--title', 'T'],
  'token create': ['--email', 'a@b.co', '--title', 'T', '--description', 'D'],
  'subs create': ['--package-id', 'pkg_1', '--email', 'a@b.co'],
}

const HAND_WRITTEN: string[][] = [
  ['links', 'get', 'lnk_1'],
  ['links', 'list'],
  ['links', 'list', '--all', '--status', 'active', '--paid', '--email', 'a@b.co', '--reference', 'r'],
  ['links', 'update', 'lnk_1', '--title', 'T', '--yes'],
  ['links', 'delete', 'lnk_1', 'lnk_2', '--yes'],
  ['links', 'create', ...VALID['links create']],
  ['token', 'create', ...VALID['token create']],
  ['subs', 'get', 'sub_1'],
  ['subs', 'list', '--all', '--status', 'cancel', '--email', 'a@b.co'],
  ['subs', 'update', 'sub_1', '--status', 'cancel'],
  ['subs', 'cancel', 'sub_1', 'sub_2', '--yes'],
  ['subs', 'delete', 'sub_1', '--yes'],
  ['subs', 'create', ...VALID['subs create']],
  // The account's, with the access token of the profile signed in (CONFIG_DIR).
  ['businesses', 'list', '-p', 'shop'],
  ['webhooks', 'list', '-p', 'shop'],
  ['webhooks', 'add', 'https://shop.example/hook', '-p', 'shop'],
  ['webhooks', 'enable', 'ev_1', '-p', 'shop'],
  ['webhooks', 'disable', 'ev_1', '-p', 'shop'],
  ['webhooks', 'remove', 'ev_1', '--yes', '-p', 'shop'],
]

/** The integration's one webhook event, as `webhooks remove` finds it before it removes it. */
const EVENTS = JSON.stringify({
  data: { data: [{ _id: 'ev_1', name: 'payment.created', url: 'https://x' }] },
})

/**
 * The commands that call an endpoint of the service (src/shared/endpoints.ts) that (b) and (c) do
 * not feed random answers to, and why. Any other such command missing from READING_COMMANDS
 * fails the test below: a command declared to call the service is fed random answers from the
 * day it is declared.
 */
const NOT_FED_RANDOM_ANSWERS: Record<string, string> = {
  'links:open': 'hands the payment URL to a browser (test/commands/links/open.test.ts)',
  'links:qr': 'draws the payment URL (test/commands/links/qr.test.ts)',
  'links:wait': 'polls until paid: a random answer would keep it waiting (test/commands/links/wait.test.ts)',
  login: 'reads one page to check a key it then stores (test/commands/login.test.ts)',
  mcp:
    'a server whose requests come from tool calls on stdin, each answer a tool error when it is not a record ' +
    '(test/commands/mcp.test.ts, test/e2e/agent/mcp.test.ts)',
  'sandbox:pay':
    'acts only through a sandbox that proves it is the user’s (test/commands/sandbox/pay.test.ts)',
}

/**
 * Every command the properties feed random answers to: those above, and each command that only
 * sends a request about one record by id (test/helpers/endpoints.ts idOnlyCommands), with an id of
 * its noun, so a new one is fed random answers from the day it is declared.
 */
const READING_COMMANDS: string[][] = [
  ...HAND_WRITTEN,
  ...idOnlyCommands()
    .filter(({ command }) => !HAND_WRITTEN.some((args) => commandOf(args) === command.replace(/ /g, ':')))
    .filter(({ command }) => !(command.replace(/ /g, ':') in NOT_FED_RANDOM_ANSWERS))
    .map(({ command, noun }) => [...command.split(' '), noun === 'subscription' ? 'sub_1' : 'lnk_1']),
]

describe('the commands these properties cover come from the endpoint declarations', () => {
  const callingTheService = commandsCalling((endpoint) => !endpoint.sandbox)

  it('READING_COMMANDS holds every command that calls the service, but those said why', () => {
    const fed = new Set(READING_COMMANDS.map((args) => commandOf(args)))
    expect(callingTheService.filter((id) => !fed.has(id) && !(id in NOT_FED_RANDOM_ANSWERS))).toEqual([])
    expect(Object.keys(NOT_FED_RANDOM_ANSWERS).filter((id) => !callingTheService.includes(id))).toEqual([])
  })

  it('each of READING_COMMANDS sends only what the command map says it does', async () => {
    const undeclared: string[] = []
    for (const args of READING_COMMANDS) {
      current = { _id: 'lnk_1', email: 'a@b.co', currency: 'EUR', amount: '1', title: 'T', status: 'Active' }
      if (args[1] === 'list') answers = [{ status: 200, text: JSON.stringify({ data: [current] }) }]
      if (args[0] === 'webhooks' && args[1] === 'remove')
        answers = [
          { status: 200, text: EVENTS },
          { status: 200, text: '{}' },
        ]
      const result = await run(args).finally(() => {
        answers = []
      })
      expect([args.join(' '), result.code]).toEqual([args.join(' '), 0])
      expect(server.requests.length).toBeGreaterThan(0)
      undeclared.push(...undeclaredRequests(args.slice(0, 2).join(' '), server.requests))
    }
    expect(undeclared).toEqual([])
  })

  it('the flag model (test/helpers/flag-model.ts) models every command that sends a body of its flags, with its fields', () => {
    // `pay mcp` sends the bodies of its tools' arguments, not of flags (test/unit/agent/).
    const declared = [...commandMap()]
      .filter(([command]) => command !== 'mcp')
      .flatMap(([command, endpoints]) =>
        endpoints
          // A preset (`subs cancel`'s status) is a body of no flags; so are the account's (its bodies are a
          // password read from stdin, a URL argument, a fixed `enabled`: test/commands/webhooks/, login).
          .filter(
            (e) =>
              !e.sandbox &&
              e.body &&
              e.auth === undefined &&
              !e.presets?.some((preset) => command.endsWith(` ${preset.verb}`)),
          )
          .map((endpoint) => ({
            name: command,
            fields: endpoint.body!.map((field) => field.name).sort(),
            required: endpoint
              .body!.filter((field) => field.required)
              .map((field) => field.name)
              .sort(),
          })),
      )
    const modelled = COMMANDS.map((spec) => ({
      name: spec.name,
      fields: spec.flags.map((flag) => flag.field).sort(),
      // An update sends the record's fields merged with the flags: it needs none of the flags.
      required:
        (spec.takesId ? declared.find((d) => d.name === spec.name)?.required : spec.required.sort()) ?? [],
    }))
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name)
    expect(modelled.sort(byName)).toEqual(declared.sort(byName))
  })
})

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
      ['links', 'update', 'lnk_1', '--title', 'T', '--yes'],
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
