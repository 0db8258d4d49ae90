import { describe, expect, type TestContext, test } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import {
  envelope,
  type Handler,
  type RecordedRequest,
  sendJson,
  startFakeServer,
} from '../../helpers/fake-server.js'
import { FAKE_KEY, fakeEnv } from '../../helpers/links.js'

/**
 * What exactly goes over the wire: bin/run.js against a loopback server that records each
 * request (method, path, headers, raw body) and answers like the service.
 */

const ID = '65a1f0c2e4b0a1b2c3d4e5f6'

const STORED = {
  _id: ID,
  email: 'jane@example.com',
  phone_no: '555-0100',
  currency: 'EUR',
  amount: 25.5,
  title: 'Invoice 1042',
  description: 'Two boxes of tea',
  reference: 'ORDER-7',
  status: 'Active',
  payment_url: `https://pay.example/checkout/pay?id=${ID}`,
  business_id: 42,
  paid: false,
  created_at: '2026-01-01T10:00:00.000Z',
  updated_at: '2026-01-01T10:00:00.000Z',
}

/** Answers like the service: echoes a created or updated link, serves STORED, deletes anything. */
const linkService: Handler = (request, response) => {
  if (request.method === 'POST' && request.path === '/payment-links') {
    const body = JSON.parse(request.body)
    delete body.send_email
    return sendJson(response, 200, envelope({ ...STORED, ...body, amount: Number(body.amount) }))
  }
  if (request.method === 'POST' && request.path === '/tokenizations/create-token') {
    const body = JSON.parse(request.body)
    return sendJson(
      response,
      200,
      envelope({ _id: ID, ...body, token: 'tok_1', activation_url: 'https://pay.example/t/tok_1/activate' }),
    )
  }
  if (request.method === 'GET' && request.path === `/payment-links/${ID}`) {
    return sendJson(response, 200, envelope(STORED))
  }
  if (request.method === 'PUT' && request.path === `/payment-links/${ID}`) {
    const body = JSON.parse(request.body)
    return sendJson(response, 200, envelope({ ...STORED, ...body, amount: Number(body.amount) }))
  }
  if (request.method === 'GET' && request.path === '/payment-links') {
    return sendJson(response, 200, envelope([STORED]))
  }
  if (request.method === 'DELETE') {
    response.writeHead(204).end()
    return
  }
  sendJson(response, 404, { message: 'Not found.' })
}

/** A fake service closed when the test ends (the test's own hook: tests here run concurrently). */
async function fakeService(context: TestContext, handler: Handler = linkService) {
  const fake = await startFakeServer(handler)
  context.onTestFinished(() => fake.close())
  return fake
}

const REQUIRED = ['--email', 'jane@example.com', '--currency', 'EUR', '--title', 'Invoice 1042']

/** The headers every request carries (docs/spec/payment-service-api.md section 5). */
function expectServiceHeaders(request: RecordedRequest) {
  expect(request.headers.accept).toBe('application/json')
  expect(request.headers['content-type']).toBe('application/json')
  expect(request.headers.authorization).toBe(`Bearer ${FAKE_KEY}`)
}

describe.concurrent('links create: the request', () => {
  test('every flag: POST /payment-links, the spec headers, an Idempotency-Key, each field by its service name', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(
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
    const result = await runCli(['links', 'create', ...REQUIRED, '--amount', amount, '-q'], {
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
      runCli([...base, '--no-send-email'], { env: fakeEnv(fake) }),
      runCli(base, { env: fakeEnv(fake) }),
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
    const result = await runCli(
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
    const result = await runCli(
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

describe.concurrent('links get, list, delete: the requests', () => {
  test('get: GET /payment-links/ID, no body', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(['links', 'get', ID, '-q'], { env: fakeEnv(fake) })
    expect(result).toMatchObject({ code: 0, stdout: `${ID}\n` })
    expect(fake.requests).toHaveLength(1)
    expect(fake.requests[0]).toMatchObject({ method: 'GET', path: `/payment-links/${ID}`, body: '' })
    expectServiceHeaders(fake.requests[0])
  })

  test('an id is sent path-encoded', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(['links', 'get', 'a/b?c'], { env: fakeEnv(fake) })
    expect(result.code).toBe(5)
    expect(fake.requests.map((r) => r.path)).toEqual(['/payment-links/a%2Fb%3Fc'])
  })

  test('list: GET /payment-links (a bare data array is accepted)', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(['links', 'list', '-q'], { env: fakeEnv(fake) })
    expect(result).toMatchObject({ code: 0, stdout: `${ID}\n`, stderr: '' })
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /payment-links'])
  })

  test('delete --yes: one DELETE per id', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(['links', 'delete', ID, 'other-id', '--yes', '-q'], { env: fakeEnv(fake) })
    expect(result).toMatchObject({ code: 0, stdout: `${ID}\nother-id\n` })
    expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.body}`).sort()).toEqual([
      `DELETE /payment-links/${ID} `,
      'DELETE /payment-links/other-id ',
    ])
    for (const request of fake.requests) expectServiceHeaders(request)
  })

  test('delete --dry-run reads each link to describe it, and sends no DELETE', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(['links', 'delete', ID, 'other-id', '--dry-run'], { env: fakeEnv(fake) })
    expect(result.code).toBe(0)
    expect(result.stderr.endsWith('Dry run: nothing was changed.\n')).toBe(true)
    expect(fake.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      `GET /payment-links/${ID}`,
      'GET /payment-links/other-id',
    ])
  })

  test('delete off a terminal without --yes reads the link to describe it, and sends no DELETE', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(['links', 'delete', ID], { env: fakeEnv(fake) })
    expect(result.code).toBe(2)
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /payment-links/${ID}`])
  })
})

describe.concurrent('links update: GET, then PUT of the whole merged link', () => {
  test('required fields + existing optional ones + the changed ones', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(
      [
        'links',
        'update',
        ID,
        '--title',
        'Invoice 1042 (corrected)',
        '--reference-2',
        'Q3',
        '--send-email',
        '--json',
      ],
      { env: fakeEnv(fake) },
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /payment-links/${ID}`,
      `PUT /payment-links/${ID}`,
    ])
    const put = fake.requests[1]
    expectServiceHeaders(put)
    expect(JSON.parse(put.body)).toEqual({
      email: 'jane@example.com',
      currency: 'EUR',
      amount: '25.5',
      title: 'Invoice 1042 (corrected)',
      phone_no: '555-0100',
      description: 'Two boxes of tea',
      reference: 'ORDER-7',
      reference_2: 'Q3',
      send_email: true,
    })
    expect(JSON.parse(result.stdout)).toMatchObject({ title: 'Invoice 1042 (corrected)', reference_2: 'Q3' })
  })

  test('--amount replaces the stored amount with the exact text typed', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(['links', 'update', ID, '--amount', '0.10', '-q'], { env: fakeEnv(fake) })
    expect(result.code).toBe(0)
    expect(fake.requests[1].body).toContain('"amount":"0.10"')
    expect(JSON.parse(fake.requests[1].body)).not.toHaveProperty('send_email')
  })

  test('nothing to change: no request at all, exit 2', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(['links', 'update', ID, '--json'], { env: fakeEnv(fake) })
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(fake.requests).toEqual([])
  })

  test('the link does not exist: the GET is answered 404, no PUT, exit 5', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(['links', 'update', 'missing', '--title', 'X'], { env: fakeEnv(fake) })
    expect(result).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Not found.\n' })
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /payment-links/missing'])
  })
})

describe.concurrent('token create: the request', () => {
  test('POST /tokenizations/create-token with every field by its service name', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(
      [
        'token',
        'create',
        '--email',
        'jane@example.com',
        '--title',
        'Card',
        '--description',
        'Billing',
        '--phone',
        '555-0100',
        '--redirect-url',
        'https://shop.example/done',
      ],
      { env: fakeEnv(fake) },
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(fake.requests).toHaveLength(1)
    const [request] = fake.requests
    expect(request.method).toBe('POST')
    expect(request.path).toBe('/tokenizations/create-token')
    expectServiceHeaders(request)
    expect(request.headers['idempotency-key']).toMatch(/^\S{16,}$/)
    expect(JSON.parse(request.body)).toEqual({
      email: 'jane@example.com',
      title: 'Card',
      description: 'Billing',
      phone_no: '555-0100',
      redirect_url: 'https://shop.example/done',
    })
    expect(result.stdout).toContain('token\ttok_1\nactivation_url\thttps://pay.example/t/tok_1/activate\n')
  })

  test('only the required flags: the body has nothing else', async (context) => {
    const fake = await fakeService(context)
    const result = await runCli(
      ['token', 'create', '--email', 'a@b.co', '--title', 'T', '--description', 'D'],
      {
        env: fakeEnv(fake),
      },
    )
    expect(result.code).toBe(0)
    expect(fake.requests[0].body).toBe('{"email":"a@b.co","title":"T","description":"D"}')
  })
})
