import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import { expectServiceHeaders, fakeService, silentServer } from '../../helpers/link-service.js'
import { fakeEnv } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

describe('against a sandbox', () => {
  /** `pay token create` end to end against a real sandbox, stdout piped. */

  let sandbox: TestSandbox

  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })

  afterAll(async () => {
    await sandbox.close()
  })

  const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

  describe.concurrent('token create', () => {
    test('every flag: the token and its activation_url are shown', async () => {
      const result = await pay(
        'token',
        'create',
        '--email',
        'jane@example.com',
        '--title',
        'Card on file',
        '--description',
        'Monthly billing',
        '--phone',
        '555-0100',
        '--redirect-url',
        'https://shop.example/done',
      )
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      const fields = Object.fromEntries(
        result.stdout
          .trimEnd()
          .split('\n')
          .map((line) => line.split('\t')),
      )
      const token = fields.token
      expect(token).toMatch(/^\S{16,}$/)
      expect(fields.activation_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//)
      expect(new URL(fields.activation_url).pathname.split('/')).toContain(token)
      expect(result.stdout).toBe(
        [
          `_id\t${fields._id}`,
          `token\t${token}`,
          `activation_url\t${fields.activation_url}`,
          'email\tjane@example.com',
          'phone_no\t555-0100',
          'title\tCard on file',
          'description\tMonthly billing',
          'redirect_url\thttps://shop.example/done',
          `created_at\t${fields.created_at}`,
          `updated_at\t${fields.updated_at}`,
          '',
        ].join('\n'),
      )
      expect(fields._id).toMatch(/^[0-9a-f]{24}$/)
    })

    test('--json: the tokenization record, optional fields only when given', async () => {
      const result = await pay(
        'token',
        'create',
        '--email',
        'min@example.com',
        '--title',
        'T',
        '--description',
        'D',
        '--json',
      )
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      const record = JSON.parse(result.stdout)
      expect(Object.keys(record).sort()).toEqual(
        [
          '_id',
          'activation_url',
          'created_at',
          'description',
          'email',
          'title',
          'token',
          'updated_at',
        ].sort(),
      )
      expect(record).toMatchObject({ email: 'min@example.com', title: 'T', description: 'D' })
      expect(record.activation_url).toContain(`/${record.token}/`)
    })

    test('-q prints the id only', async () => {
      const result = await pay(
        'token',
        'create',
        '--email',
        'q@example.com',
        '--title',
        'T',
        '--description',
        'D',
        '-q',
      )
      expect(result).toMatchObject({ code: 0, stderr: '' })
      expect(result.stdout).toMatch(/^[0-9a-f]{24}\n$/)
    })

    test('missing required flags off a terminal: exit 2 naming each', async () => {
      const result = await pay('token', 'create', '--title', 'T')
      expect(result).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          'Error: Missing required flags: --email, --description\n' +
          'Pass them as flags (neither stdin nor stdout is a terminal, so pay does not ask).\n',
      })
    })

    test('a malformed --email: exit 3 under its flag', async () => {
      const result = await pay(
        'token',
        'create',
        '--email',
        'jane.example.com',
        '--title',
        'T',
        '--description',
        'D',
      )
      expect(result).toMatchObject({
        code: 3,
        stdout: '',
        stderr: 'Error: The given data was invalid.\n  --email  The email must be a valid email address.\n',
      })
    })
  })
})

describe('the request', () => {
  /**
   * What exactly goes over the wire: the command, run in this process, against a loopback
   * server that records each request (method, path, headers, raw body) and answers like the
   * service.
   */

  describe.concurrent('token create: the request', () => {
    test('POST /tokenizations/create-token with every field by its service name', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(
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
      const result = await runInProcess(
        ['token', 'create', '--email', 'a@b.co', '--title', 'T', '--description', 'D'],
        {
          env: fakeEnv(fake),
        },
      )
      expect(result.code).toBe(0)
      expect(fake.requests[0].body).toBe('{"email":"a@b.co","title":"T","description":"D"}')
    })
  })
})

describe('flag values', () => {
  /**
   * Local checks: what the user typed is rejected before any request (the recording server
   * must receive nothing), shown like a 422, one line per field under its flag.
   */

  const EMAIL_MESSAGE = 'The email must be a valid email address.'

  describe.concurrent('malformed values: exit 3, nothing sent', () => {
    test('token create --email', async (context) => {
      const fake = await silentServer(context)
      const result = await runInProcess(
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
    const HINT = 'Pass them as flags (neither stdin nor stdout is a terminal, so pay does not ask).\n'

    test('token create with no flag at all', async (context) => {
      const fake = await silentServer(context)
      const result = await runInProcess(['token', 'create'], { env: fakeEnv(fake) })
      expect(result).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `Error: Missing required flags: --email, --title, --description\n${HINT}`,
      })
      expect(fake.requests).toEqual([])
    })
  })
})
