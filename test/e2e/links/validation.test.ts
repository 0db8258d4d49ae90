import { describe, expect, type TestContext, test } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { startFakeServer } from '../../helpers/fake-server.js'
import { fakeEnv } from '../../helpers/links.js'

/**
 * Local checks: what the user typed is rejected before any request (the recording server
 * must receive nothing), shown like a 422, one line per field under its flag.
 */

async function silentServer(context: TestContext) {
  const fake = await startFakeServer()
  context.onTestFinished(() => fake.close())
  return fake
}

const AMOUNT_MESSAGE = 'The amount must be a decimal number written like 25.50 (digits and one point).'
const EMAIL_MESSAGE = 'The email must be a valid email address.'

const create = (...flags: string[]) => ['links', 'create', ...flags]
const valid = { email: 'jane@example.com', currency: 'EUR', amount: '25.50', title: 'T' }

const withFields = (fields: Partial<typeof valid>) =>
  Object.entries({ ...valid, ...fields }).flatMap(([flag, value]) => [`--${flag}`, value])

describe.concurrent('malformed values: exit 3, nothing sent', () => {
  test.for(['1,50', '-5', 'abc', '1e3'])('links create --amount %j', async (amount, context) => {
    const fake = await silentServer(context)
    const result = await runCli(create(...withFields({ amount })), { env: fakeEnv(fake) })
    expect(result).toMatchObject({
      code: 3,
      stdout: '',
      stderr: `Error: The given data was invalid.\n  --amount  ${AMOUNT_MESSAGE}\n`,
    })
    expect(fake.requests).toEqual([])
  })

  test('--amount 0 and 0.00 are not greater than 0', async (context) => {
    const fake = await silentServer(context)
    const results = await Promise.all(
      ['0', '0.00'].map((amount) => runCli(create(...withFields({ amount })), { env: fakeEnv(fake) })),
    )
    for (const result of results) {
      expect(result).toMatchObject({
        code: 3,
        stdout: '',
        stderr: 'Error: The given data was invalid.\n  --amount  The amount must be greater than 0.\n',
      })
    }
    expect(fake.requests).toEqual([])
  })

  test.for(['jane@example', 'ja ne@example.com'])('links create --email %j', async (email, context) => {
    const fake = await silentServer(context)
    const result = await runCli(create(...withFields({ email })), { env: fakeEnv(fake) })
    expect(result).toMatchObject({
      code: 3,
      stdout: '',
      stderr: `Error: The given data was invalid.\n  --email  ${EMAIL_MESSAGE}\n`,
    })
    expect(fake.requests).toEqual([])
  })

  test('several bad fields: every one on its own line under its flag name, aligned', async (context) => {
    const fake = await silentServer(context)
    const result = await runCli(create(...withFields({ email: 'nope', currency: 'EURO', amount: '1,50' })), {
      env: fakeEnv(fake),
    })
    expect(result).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'Error: The given data was invalid.\n' +
        `  --email     ${EMAIL_MESSAGE}\n` +
        '  --currency  The currency must be a 3-letter currency code, like EUR.\n' +
        `  --amount    ${AMOUNT_MESSAGE}\n`,
    })
    expect(fake.requests).toEqual([])
  })

  test('--json: the field errors as JSON on stderr, keyed by service field names', async (context) => {
    const fake = await silentServer(context)
    const result = await runCli([...create(...withFields({ email: 'nope', amount: 'abc' })), '--json'], {
      env: fakeEnv(fake),
    })
    expect(result.code).toBe(3)
    expect(result.stdout).toBe('')
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        status: null,
        kind: 'validation',
        exit_code: 3,
        message: 'The given data was invalid.',
        errors: { email: [EMAIL_MESSAGE], amount: [AMOUNT_MESSAGE] },
      },
    })
    expect(fake.requests).toEqual([])
  })

  test('links update checks the flags before fetching the link', async (context) => {
    const fake = await silentServer(context)
    const result = await runCli(['links', 'update', 'some-id', '--amount', '1e3', '--email', 'x'], {
      env: fakeEnv(fake),
    })
    expect(result).toMatchObject({
      code: 3,
      stdout: '',
      stderr: `Error: The given data was invalid.\n  --email   ${EMAIL_MESSAGE}\n  --amount  ${AMOUNT_MESSAGE}\n`,
    })
    expect(fake.requests).toEqual([])
  })

  test.for([
    ['1.5', 'JPY', 'The amount must have no decimals for JPY.'],
    ['25.505', 'eur', 'The amount must have at most 2 decimals for EUR.'],
    ['1.2345', 'BHD', 'The amount must have at most 3 decimals for BHD.'],
  ])(
    'links create --amount %s --currency %s: more decimals than the currency has',
    async ([amount, currency, message], context) => {
      const fake = await silentServer(context)
      const result = await runCli(create(...withFields({ amount, currency })), { env: fakeEnv(fake) })
      expect(result).toMatchObject({
        code: 3,
        stdout: '',
        stderr: `Error: The given data was invalid.\n  --amount  ${message}\n`,
      })
      expect(fake.requests).toEqual([])
    },
  )

  test('a code that is no ISO currency takes any decimals (--currency BTC --amount 0.0000001)', async (context) => {
    const fake = await silentServer(context)
    const result = await runCli(create(...withFields({ amount: '0.0000001', currency: 'BTC' })), {
      env: fakeEnv(fake),
    })
    expect(fake.requests).toHaveLength(1)
    expect(JSON.parse(fake.requests[0].body)).toMatchObject({ amount: '0.0000001', currency: 'BTC' })
    expect(result.stderr).not.toContain('decimals')
  })

  test('token create --email', async (context) => {
    const fake = await silentServer(context)
    const result = await runCli(
      ['token', 'create', '--email', 'jane(at)example.com', '--title', 'T', '--description', 'D'],
      { env: fakeEnv(fake) },
    )
    expect(result).toMatchObject({
      code: 3,
      stdout: '',
      stderr: `Error: The given data was invalid.\n  --email  ${EMAIL_MESSAGE}\n`,
    })
    expect(fake.requests).toEqual([])
  })
})

describe.concurrent('missing required flags off a terminal: exit 2, every one named, nothing sent', () => {
  const HINT = 'Pass them as flags (you are not on a terminal, so pay does not ask).\n'

  test('links create with no flag at all', async (context) => {
    const fake = await silentServer(context)
    const result = await runCli(['links', 'create'], { env: fakeEnv(fake) })
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `Error: Missing required flags: --email, --currency, --amount, --title\n${HINT}`,
    })
    expect(fake.requests).toEqual([])
  })

  test('links create with some of them, and stdin holding text', async (context) => {
    const fake = await silentServer(context)
    const result = await runCli(['links', 'create', '--email', 'jane@example.com', '--amount', '5'], {
      env: fakeEnv(fake),
      input: 'EUR\nTitle\n',
    })
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `Error: Missing required flags: --currency, --title\n${HINT}`,
    })
    expect(fake.requests).toEqual([])
  })

  test('links create missing one', async (context) => {
    const fake = await silentServer(context)
    const result = await runCli(
      ['links', 'create', '--email', 'jane@example.com', '--amount', '5', '--currency', 'EUR', '--json'],
      { env: fakeEnv(fake) },
    )
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(JSON.parse(result.stderr).error).toMatchObject({
      kind: 'usage',
      exit_code: 2,
      message: 'Missing required flag: --title',
    })
    expect(fake.requests).toEqual([])
  })

  test('token create with no flag at all', async (context) => {
    const fake = await silentServer(context)
    const result = await runCli(['token', 'create'], { env: fakeEnv(fake) })
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `Error: Missing required flags: --email, --title, --description\n${HINT}`,
    })
    expect(fake.requests).toEqual([])
  })

  test('an unknown flag: exit 2', async (context) => {
    const fake = await silentServer(context)
    const result = await runCli(create(...withFields({}), '--colour', 'red'), { env: fakeEnv(fake) })
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/^Error: Nonexistent flag: --colour\n/)
    expect(fake.requests).toEqual([])
  })
})
