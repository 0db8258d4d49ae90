import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { fakeBrowser } from '../../helpers/fake-browser.js'
import { sendJson } from '../../helpers/fake-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import { expectServiceHeaders, fakeService, ID, silentServer } from '../../helpers/link-service.js'
import { fakeEnv, linkCreateArgs, seedLink, storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

describe('against a sandbox', () => {
  /** `pay links create` in this process against a real sandbox, stdout piped (TSV). */

  let sandbox: TestSandbox

  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })

  afterAll(async () => {
    await sandbox.close()
  })

  const idOf = (tsv: string) => /^_id\t([0-9a-f]{24})\n/.exec(tsv)?.[1] ?? ''

  describe.concurrent('links create', () => {
    test('every flag of spec 4.2 is stored, and the link is printed as key<TAB>value lines', async () => {
      const result = await runInProcess(
        [
          'links',
          'create',
          '--email',
          'jane@example.com',
          '--currency',
          'EUR',
          '--amount',
          '25.50',
          '--title',
          'Invoice 1042',
          '--phone',
          '+44 20 7946 0958',
          '--description',
          'Two boxes of tea',
          '--redirect-url',
          'https://shop.example/thanks',
          '--reference',
          'ORDER-7',
          '--reference-2',
          'Q3',
          '--send-email',
        ],
        { env: sandbox.env },
      )
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      const id = idOf(result.stdout)
      const link = await storedLink(sandbox, id)
      expect(link).toEqual({
        _id: id,
        email: 'jane@example.com',
        phone_no: '+44 20 7946 0958',
        currency: 'EUR',
        amount: 25.5,
        title: 'Invoice 1042',
        description: 'Two boxes of tea',
        redirect_url: 'https://shop.example/thanks',
        reference: 'ORDER-7',
        reference_2: 'Q3',
        status: 'Active',
        payment_url: `${sandbox.baseUrl}/checkout/pay?id=${id}`,
        business_id: link.business_id,
        paid: false,
        created_at: link.created_at,
        updated_at: link.updated_at,
      })
      expect(result.stdout).toBe(
        [
          `_id\t${id}`,
          'status\tActive',
          'paid\tfalse',
          'amount\t25.5',
          'currency\tEUR',
          'email\tjane@example.com',
          'phone_no\t+44 20 7946 0958',
          'title\tInvoice 1042',
          'description\tTwo boxes of tea',
          'reference\tORDER-7',
          'reference_2\tQ3',
          'redirect_url\thttps://shop.example/thanks',
          `payment_url\t${sandbox.baseUrl}/checkout/pay?id=${id}`,
          `business_id\t${link.business_id}`,
          `created_at\t${link.created_at}`,
          `updated_at\t${link.updated_at}`,
          '',
        ].join('\n'),
      )
    })

    test('only the required flags, with --no-send-email: no optional field is stored', async () => {
      const result = await runInProcess(
        [
          'links',
          'create',
          '--email',
          'min@example.com',
          '--currency',
          'JPY',
          '--amount',
          '1000',
          '--title',
          'Minimal',
          '--no-send-email',
        ],
        { env: sandbox.env },
      )
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      const id = idOf(result.stdout)
      const link = await storedLink(sandbox, id)
      expect(Object.keys(link).sort()).toEqual(
        [
          '_id',
          'amount',
          'business_id',
          'created_at',
          'currency',
          'email',
          'paid',
          'payment_url',
          'status',
          'title',
          'updated_at',
        ].sort(),
      )
      expect(link).toMatchObject({
        email: 'min@example.com',
        currency: 'JPY',
        amount: 1000,
        title: 'Minimal',
      })
      expect(result.stdout).toBe(
        [
          `_id\t${id}`,
          'status\tActive',
          'paid\tfalse',
          'amount\t1000',
          'currency\tJPY',
          'email\tmin@example.com',
          'title\tMinimal',
          `payment_url\t${sandbox.baseUrl}/checkout/pay?id=${id}`,
          `business_id\t${link.business_id}`,
          `created_at\t${link.created_at}`,
          `updated_at\t${link.updated_at}`,
          '',
        ].join('\n'),
      )
    })

    test('--json prints the created record exactly as the service returned it', async () => {
      const result = await runInProcess(
        [
          'links',
          'create',
          '--email',
          'json@example.com',
          '--currency',
          'USD',
          '--amount',
          '0.10',
          '--title',
          'Ten cents',
          '--reference',
          'J-1',
          '--json',
        ],
        { env: sandbox.env },
      )
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout.endsWith('}\n')).toBe(true)
      const printed = JSON.parse(result.stdout)
      expect(printed).toEqual(await storedLink(sandbox, printed._id))
      expect(printed).toMatchObject({ amount: 0.1, reference: 'J-1', status: 'Active', paid: false })
    })

    test('-q prints only the new id', async () => {
      const result = await runInProcess(
        [
          'links',
          'create',
          '--email',
          'q@example.com',
          '--currency',
          'EUR',
          '--amount',
          '5',
          '--title',
          'Q',
          '-q',
        ],
        { env: sandbox.env },
      )
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/^[0-9a-f]{24}\n$/)
      expect(await storedLink(sandbox, result.stdout.trim())).toMatchObject({
        email: 'q@example.com',
        amount: 5,
      })
    })

    test('a 422 from the service is shown under the flag names, exit 3', async () => {
      // 16 significant digits pass the local decimal check; the sandbox allows at most 15.
      const result = await runInProcess(
        [
          'links',
          'create',
          '--email',
          'big@example.com',
          '--currency',
          'EUR',
          '--amount',
          '1234567890123456',
          '--title',
          'Too big',
        ],
        { env: sandbox.env },
      )
      expect(result.stdout).toBe('')
      expect(result.stderr).toBe(
        'Error: The given data was invalid.\n  --amount  The amount must not have more than 15 significant digits.\n',
      )
      expect(result.code).toBe(3)
    })

    test('piped, amounts are the plain number the service holds, in decimal notation, never rounded', async () => {
      const amounts: [string, string, string][] = [
        ['25.5', 'EUR', '25.5\tEUR'],
        ['25.50', 'EUR', '25.5\tEUR'],
        ['0.0000001', 'BTC', '0.0000001\tBTC'],
        ['1000', 'JPY', '1000\tJPY'],
        ['7', 'KWD', '7\tKWD'],
        ['123456789012345', 'USD', '123456789012345\tUSD'],
      ]
      const shown = new Map<string, string>()
      for (const [amount, currency, text] of amounts)
        shown.set((await seedLink(sandbox, { amount, currency }))._id, text)
      const result = await runInProcess(['links', 'list', '--columns', '_id,amount,currency'], {
        env: sandbox.env,
      })
      expect(result.code).toBe(0)
      const rows = result.stdout.split('\n').filter((row) => shown.has(row.split('\t')[0]))
      expect(rows.reverse()).toEqual([...shown].map(([id, text]) => `${id}\t${text}`))
    })
  })
})

describe('the request', () => {
  /**
   * What exactly goes over the wire: the command, run in this process, against a loopback
   * server that records each request (method, path, headers, raw body) and answers like the
   * service.
   */

  const REQUIRED = ['--email', 'jane@example.com', '--currency', 'EUR', '--title', 'Invoice 1042']

  describe.concurrent('links create: the request', () => {
    test('every flag: POST /payment-links, the spec headers, an Idempotency-Key, each field by its service name', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(
        [
          'links',
          'create',
          ...REQUIRED,
          '--amount',
          '25.50',
          '--phone',
          '555-0100',
          '--description',
          'Two boxes of tea',
          '--redirect-url',
          'https://shop.example/thanks',
          '--reference',
          'ORDER-7',
          '--reference-2',
          'Q3',
          '--send-email',
        ],
        { env: fakeEnv(fake) },
      )
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(fake.requests).toHaveLength(1)
      const [request] = fake.requests
      expect(request.method).toBe('POST')
      expect(request.path).toBe('/payment-links')
      expectServiceHeaders(request)
      expect(request.headers['idempotency-key']).toMatch(/^\S{16,}$/)
      expect(JSON.parse(request.body)).toEqual({
        email: 'jane@example.com',
        currency: 'EUR',
        amount: '25.50',
        title: 'Invoice 1042',
        phone_no: '555-0100',
        description: 'Two boxes of tea',
        redirect_url: 'https://shop.example/thanks',
        reference: 'ORDER-7',
        reference_2: 'Q3',
        send_email: true,
      })
      expect(request.body).toContain('"amount":"25.50"')
    })

    test.for([
      ['0.10', '"amount":"0.10"'],
      ['1000', '"amount":"1000"'],
      ['12345678901234.99', '"amount":"12345678901234.99"'],
    ])('--amount %s is sent as the exact text typed', async ([amount, raw], context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(['links', 'create', ...REQUIRED, '--amount', amount, '-q'], {
        env: fakeEnv(fake),
      })
      expect(result).toMatchObject({ code: 0, stderr: '', stdout: `${ID}\n` })
      expect(fake.requests).toHaveLength(1)
      expect(fake.requests[0].body).toContain(raw)
      expect(JSON.parse(fake.requests[0].body).amount).toBe(amount)
    })

    test('--no-send-email sends send_email: false; without the flag there is no send_email at all', async (context) => {
      const fake = await fakeService(context)
      const base = ['links', 'create', ...REQUIRED, '--amount', '5', '-q']
      const results = await Promise.all([
        runInProcess([...base, '--no-send-email'], { env: fakeEnv(fake) }),
        runInProcess(base, { env: fakeEnv(fake) }),
      ])
      for (const result of results) expect(result).toMatchObject({ code: 0, stderr: '', stdout: `${ID}\n` })
      const bodies = fake.requests.map((request) => request.body).sort()
      expect(bodies).toEqual(
        [
          '{"email":"jane@example.com","currency":"EUR","amount":"5","title":"Invoice 1042"}',
          '{"email":"jane@example.com","currency":"EUR","amount":"5","title":"Invoice 1042","send_email":false}',
        ].sort(),
      )
      // Each POST carries its own Idempotency-Key.
      const [first, second] = fake.requests.map((request) => request.headers['idempotency-key'])
      expect(first).not.toBe(second)
    })

    test('a 422 naming reference_2 and phone_no is shown under --reference-2 and --phone, exit 3', async (context) => {
      const fake = await fakeService(context, (_, response) =>
        sendJson(response, 422, {
          message: 'The given data was invalid.',
          errors: {
            reference_2: ['The reference 2 may not be greater than 20 characters.'],
            phone_no: ['The phone no format is invalid.'],
            amount: ['The amount must be a number.', 'The amount must be greater than 0.'],
          },
        }),
      )
      const result = await runInProcess(
        ['links', 'create', ...REQUIRED, '--amount', '5', '--reference-2', 'x'.repeat(30), '--phone', 'abc'],
        { env: fakeEnv(fake) },
      )
      expect(result).toMatchObject({
        code: 3,
        stdout: '',
        stderr:
          'Error: The given data was invalid.\n' +
          '  --reference-2  The reference 2 may not be greater than 20 characters.\n' +
          '  --phone        The phone no format is invalid.\n' +
          '  --amount       The amount must be a number.\n' +
          '  --amount       The amount must be greater than 0.\n',
      })
      expect(fake.requests).toHaveLength(1)
    })

    test('a 422 with --json: the error as JSON on stderr, keyed by the service field names', async (context) => {
      const errors = { reference_2: ['The reference 2 field must be a string.'] }
      const fake = await fakeService(context, (_, response) =>
        sendJson(response, 422, { message: 'The given data was invalid.', errors }),
      )
      const result = await runInProcess(
        ['links', 'create', ...REQUIRED, '--amount', '5', '--reference-2', 'R', '--json'],
        {
          env: fakeEnv(fake),
        },
      )
      expect(result.code).toBe(3)
      expect(result.stdout).toBe('')
      expect(JSON.parse(result.stderr)).toEqual({
        error: {
          status: 422,
          kind: 'validation',
          exit_code: 3,
          message: 'The given data was invalid.',
          errors,
        },
      })
    })
  })
})

describe('flag values', () => {
  /**
   * Local checks: what the user typed is rejected before any request (the recording server
   * must receive nothing), shown like a 422, one line per field under its flag.
   */

  const AMOUNT_MESSAGE = 'The amount must be a decimal number written like 25.50 (digits and one point).'
  const EMAIL_MESSAGE = 'The email must be a valid email address.'
  const COMMA_MESSAGE =
    'The amount must use a point for its decimals and no thousands separator, like 1000.50.'

  const create = (...flags: string[]) => ['links', 'create', ...flags]
  const valid = { email: 'jane@example.com', currency: 'EUR', amount: '25.50', title: 'T' }

  const withFields = (fields: Partial<typeof valid>) =>
    Object.entries({ ...valid, ...fields }).flatMap(([flag, value]) => [`--${flag}`, value])

  describe.concurrent('malformed values: exit 3, nothing sent', () => {
    test.for([
      ['1,50', COMMA_MESSAGE],
      ['-5', 'The amount must be greater than 0.'],
      ['abc', AMOUNT_MESSAGE],
      ['1e3', 'The amount must be written out in digits, not with an exponent like 1e3.'],
      [' 5', 'The amount must not begin or end with a space.'],
      ['5.', 'The amount must have digits after its decimal point, like 5.00.'],
      ['0x10', 'The amount must be written in decimal digits, without a 0x, 0o or 0b prefix.'],
    ])('links create --amount %j: what is wrong with it', async ([amount, message], context) => {
      const fake = await silentServer(context)
      const result = await runInProcess(create(...withFields({ amount })), { env: fakeEnv(fake) })
      expect(result).toMatchObject({
        code: 3,
        stdout: '',
        stderr: `Error: The given data was invalid.\n  --amount  ${message}\n`,
      })
      expect(fake.requests).toEqual([])
    })

    test('--amount 0 and 0.00 are not greater than 0', async (context) => {
      const fake = await silentServer(context)
      const results = await Promise.all(
        ['0', '0.00'].map((amount) =>
          runInProcess(create(...withFields({ amount })), { env: fakeEnv(fake) }),
        ),
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

    test.for(['jane..doe@example.com', 'ja ne@example.com', '.jane@example.com'])(
      'links create --email %j',
      async (email, context) => {
        const fake = await silentServer(context)
        const result = await runInProcess(create(...withFields({ email })), { env: fakeEnv(fake) })
        expect(result).toMatchObject({
          code: 3,
          stdout: '',
          stderr: `Error: The given data was invalid.\n  --email  ${EMAIL_MESSAGE}\n`,
        })
        expect(fake.requests).toEqual([])
      },
    )

    test('several bad fields: every one on its own line under its flag name, aligned', async (context) => {
      const fake = await silentServer(context)
      const result = await runInProcess(
        create(...withFields({ email: 'nope', currency: 'EURO', amount: '1,50' })),
        {
          env: fakeEnv(fake),
        },
      )
      expect(result).toMatchObject({
        code: 3,
        stdout: '',
        stderr:
          'Error: The given data was invalid.\n' +
          `  --email     ${EMAIL_MESSAGE}\n` +
          '  --currency  The currency must be a 3-letter currency code, like EUR.\n' +
          `  --amount    ${COMMA_MESSAGE}\n`,
      })
      expect(fake.requests).toEqual([])
    })

    test('--json: the field errors as JSON on stderr, keyed by service field names', async (context) => {
      const fake = await silentServer(context)
      const result = await runInProcess(
        [...create(...withFields({ email: 'nope', amount: 'abc' })), '--json'],
        {
          env: fakeEnv(fake),
        },
      )
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

    test.for([
      ['1.5', 'JPY', 'The amount must have no decimals for JPY.'],
      ['25.505', 'eur', 'The amount must have at most 2 decimals for EUR.'],
      ['1.2345', 'BHD', 'The amount must have at most 3 decimals for BHD.'],
    ])(
      'links create --amount %s --currency %s: more decimals than the currency has',
      async ([amount, currency, message], context) => {
        const fake = await silentServer(context)
        const result = await runInProcess(create(...withFields({ amount, currency })), { env: fakeEnv(fake) })
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
      const result = await runInProcess(create(...withFields({ amount: '0.0000001', currency: 'BTC' })), {
        env: fakeEnv(fake),
      })
      expect(fake.requests).toHaveLength(1)
      expect(JSON.parse(fake.requests[0].body)).toMatchObject({ amount: '0.0000001', currency: 'BTC' })
      expect(result.stderr).not.toContain('decimals')
    })
  })

  describe.concurrent('missing required flags off a terminal: exit 2, every one named, nothing sent', () => {
    const HINT = 'Pass them as flags (neither stdin nor stdout is a terminal, so pay does not ask).\n'

    test('links create with no flag at all', async (context) => {
      const fake = await silentServer(context)
      const result = await runInProcess(['links', 'create'], { env: fakeEnv(fake) })
      expect(result).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `Error: Missing required flags: --email, --currency, --amount, --title\n${HINT}`,
      })
      expect(fake.requests).toEqual([])
    })

    test('the words name the stream that is not a terminal: stdout piped (| cat), or stdin', async (context) => {
      const fake = await silentServer(context)
      const [piped, fromFile] = await Promise.all([
        runInProcess(['links', 'create'], {
          env: fakeEnv(fake),
          terminal: true,
          colour: false,
          stdoutTerminal: false,
        }),
        runInProcess(['links', 'create'], {
          env: fakeEnv(fake),
          terminal: true,
          colour: false,
          stdinTerminal: false,
        }),
      ])
      const missing = 'Error: Missing required flags: --email, --currency, --amount, --title\n'
      expect(piped).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `${missing}Pass them as flags (stdout is a pipe or a file, not a terminal, so pay does not ask).\n`,
      })
      expect(fromFile).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `${missing}Pass them as flags (stdin is a pipe or a file, not a terminal, so pay does not ask).\n`,
      })
      expect(fake.requests).toEqual([])
    })

    test('links create with some of them, and stdin holding text', async (context) => {
      const fake = await silentServer(context)
      const result = await runInProcess(['links', 'create', '--email', 'jane@example.com', '--amount', '5'], {
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
      const result = await runInProcess(
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

    test('an unknown flag: exit 2', async (context) => {
      const fake = await silentServer(context)
      const result = await runInProcess(create(...withFields({}), '--colour', 'red'), { env: fakeEnv(fake) })
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(/^Error: Nonexistent flag: --colour\n/)
      expect(fake.requests).toEqual([])
    })
  })
})

describe('values', () => {
  /**
   * Values that used to go wrong quietly: a redirect URL the customer never gets
   * back from, the status word pay itself prints, a currency change a link's amount cannot take, a
   * currency in lower case. Each refused locally (exit 3, under the flag, nothing sent) or sent as
   * the service spells it.
   */

  let sandbox: TestSandbox

  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })
  afterAll(() => sandbox.close())

  const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

  /** The links the sandbox holds for this customer e-mail. */
  const linksFor = async (email: string) => {
    const answer = await sandbox.request('GET', '/payment-links?per_page=500')
    return (answer.body.data.data as { email: string }[]).filter((link) => link.email === email)
  }

  const createWith = (email: string, ...more: string[]) =>
    pay('links', 'create', '--email', email, '--currency', 'EUR', '--amount', '5', '--title', 'T', ...more)

  describe('--redirect-url', () => {
    test.each([
      ['shop.example/back'],
      ['not a url'],
      ['javascript:alert(document.cookie)'],
      ['ftp://shop.example/back'],
      ['https://'],
    ])('%s: refused under the flag, exit 3, nothing created', async (url) => {
      const email = `redirect-${Buffer.from(url).toString('hex').slice(0, 12)}@example.com`
      const result = await createWith(email, '--redirect-url', url)
      expect(result).toMatchObject({
        code: 3,
        stdout: '',
        stderr:
          'Error: The given data was invalid.\n' +
          '  --redirect-url  The redirect_url must be an absolute http:// or https:// URL, like https://shop.example/thanks.\n',
      })
      expect(await linksFor(email)).toEqual([])
    })

    test('an absolute http(s) URL is sent as typed, for links and tokens', async () => {
      const link = await createWith(
        'redirect-ok@example.com',
        '--redirect-url',
        'https://shop.example/thanks?o=7',
        '--jq',
        '._id',
      )
      expect(link.code).toBe(0)
      expect(await storedLink(sandbox, link.stdout.trim())).toMatchObject({
        redirect_url: 'https://shop.example/thanks?o=7',
      })
      const token = await pay(
        ...['token', 'create', '--email', 't@example.com', '--title', 'T', '--description', 'D'],
        ...['--redirect-url', 'javascript:alert(1)'],
      )
      expect(token).toMatchObject({ code: 3, stdout: '' })
      expect(token.stderr).toContain(
        '  --redirect-url  The redirect_url must be an absolute http:// or https:// URL',
      )
    })
  })

  describe('currencies', () => {
    test('a lower-case currency is sent in capitals, so that totals by currency add up', async () => {
      const result = await pay(
        ...['links', 'create', '--email', 'usd@example.com', '--currency', 'usd'],
        ...['--amount', '7', '--title', 'Lower', '--jq', '._id'],
      )
      expect(result.code).toBe(0)
      expect(await storedLink(sandbox, result.stdout.trim())).toMatchObject({ currency: 'USD', amount: 7 })
    })
  })
})

describe('--open', () => {
  /** `links create --open`, against a real sandbox (stdout piped). */

  let sandbox: TestSandbox

  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })

  afterAll(async () => {
    await sandbox.close()
  })

  const pay = (args: string[], env: Record<string, string> = {}) =>
    runInProcess(args, { env: { ...sandbox.env, ...env } })

  describe.concurrent('links create --open', () => {
    test('creates the link, prints it, and opens its payment page', async () => {
      const browser = fakeBrowser()
      const result = await pay([...linkCreateArgs(), '--open', '--json'], {
        BROWSER: browser.command,
      })
      expect(result.code).toBe(0)
      const created = JSON.parse(result.stdout)
      expect(created.payment_url).toBe(`${sandbox.baseUrl}/checkout/pay?id=${created._id}`)
      expect(browser.opened()).toBe(`${created.payment_url}\n`)
    })

    test('is not taken with --from-csv', async () => {
      const result = await pay(['links', 'create', '--from-csv', 'rows.csv', '--open'])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('--from-csv=rows.csv cannot also be provided when using --open')
    })
  })
})

describe('the fields the service bounds: title, reference, reference_2 (50 characters), currency', () => {
  const FIFTY = '😀'.repeat(50)
  const base = ['--email', 'jane@example.com', '--currency', 'EUR', '--amount', '5']

  test('51 characters under each flag: exit 3, every one at once, nothing sent; 50 emoji are sent as typed', async (context) => {
    const fake = await silentServer(context)
    const long = await runInProcess(
      [
        'links',
        'create',
        ...base,
        '--title',
        `${FIFTY}x`,
        '--reference',
        'r'.repeat(51),
        '--reference-2',
        `${FIFTY}!`,
      ],
      { env: fakeEnv(fake) },
    )
    expect(long).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'Error: The given data was invalid.\n' +
        '  --title        The title may not be greater than 50 characters.\n' +
        '  --reference    The reference may not be greater than 50 characters.\n' +
        '  --reference-2  The reference_2 may not be greater than 50 characters.\n',
    })
    expect(fake.requests).toEqual([])
    const token = await runInProcess(
      ['token', 'create', '--email', 'a@b.co', '--title', `${FIFTY}x`, '--description', 'D'],
      { env: fakeEnv(fake) },
    )
    expect(token).toMatchObject({
      code: 3,
      stderr:
        'Error: The given data was invalid.\n  --title  The title may not be greater than 50 characters.\n',
    })
    const service = await fakeService(context)
    const fifty = await runInProcess(
      [
        'links',
        'create',
        ...base,
        '--title',
        FIFTY,
        '--reference',
        FIFTY,
        '--reference-2',
        'r'.repeat(50),
        '--json',
      ],
      { env: fakeEnv(service) },
    )
    expect(fifty.code).toBe(0)
    expect(JSON.parse(service.requests[0].body)).toMatchObject({ title: FIFTY, reference: FIFTY })
  })

  test('on a terminal, a title of 51 characters is refused as it is typed, saying why', async (context) => {
    const fake = await silentServer(context)
    const answers = ['jane@example.com', 'EUR', '5', `${FIFTY}x`]
    const refused = await runInProcess(['links', 'create'], { env: fakeEnv(fake), terminal: true, answers })
    // The test terminal gives up at the first refused answer; a person is asked again.
    expect(String((refused.raw as Error)?.message)).toBe(
      `TestIO: "${FIFTY}x" was refused: The title may not be greater than 50 characters.`,
    )
    expect(fake.requests).toEqual([])
    const service = await fakeService(context)
    const taken = await runInProcess(['links', 'create', '--json'], {
      env: fakeEnv(service),
      terminal: true,
      answers: ['jane@example.com', 'EUR', '5', FIFTY],
    })
    expect(taken.code).toBe(0)
    expect(JSON.parse(service.requests[0].body).title).toBe(FIFTY)
  })
})

describe('at 80 columns', () => {
  test('an e-mail address is never broken, and the words on stderr wrap at spaces', async () => {
    const email = 'jane.longname.with.many.parts@accounts-payable.subdomain.example-company.com'
    const result = await runInProcess(
      [
        '-p',
        'sandbox',
        'links',
        'create',
        '--email',
        email,
        '--currency',
        'EUR',
        '--amount',
        '5',
        '--title',
        'T',
      ],
      { terminal: true, colour: false, width: 80 },
    )
    expect(result.code).toBe(0)
    // The address overflows the line whole, for the terminal to fold: a copy of it is the address.
    expect(result.stdout.split('\n')).toContain(`email        ${email}`)
    expect(result.stderr).toBe(
      [
        'Warning: No sandbox is running at http://127.0.0.1:1, so the page addresses',
        'printed will not open: the sandbox ran inside this command. Serve them with',
        '`pay sandbox start` (PAY_SANDBOX_PORT sets the port).',
        '',
      ].join('\n'),
    )
  })

  test('an error, its field messages under their flags and its hint wrap at spaces too', async () => {
    const result = await runInProcess(
      ['links', 'create', '--email', 'not an address', '--currency', 'EUR', '--amount', '5', '--title', 'T'],
      {
        env: { PAY_API_KEY: 'sk_test_wrap', PAY_BASE_URL: 'http://127.0.0.1:1' },
        terminal: true,
        colour: false,
        width: 40,
      },
    )
    expect(result.code).toBe(3)
    expect(result.stderr).toBe(
      'Error: The given data was invalid.\n  --email  The email must be a valid\n           email address.\n',
    )
  })
})
