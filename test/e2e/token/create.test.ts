import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/** `pay token create` end to end against a real sandbox, stdout piped. */

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})

afterAll(async () => {
  await sandbox.close()
})

const pay = (...args: string[]) => runCli(args, { env: sandbox.env })

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
      ['_id', 'activation_url', 'created_at', 'description', 'email', 'title', 'token', 'updated_at'].sort(),
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
        'Pass them as flags (you are not on a terminal, so pay does not ask).\n',
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
