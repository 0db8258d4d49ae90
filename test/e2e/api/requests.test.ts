import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli, tempDir } from '../../helpers/cli.js'
import { type Json, seedLink } from '../../helpers/links.js'
import { OBJECT_ID, startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/** `pay api` end to end against a real sandbox, stdout piped (compact JSON). */

let sandbox: TestSandbox
let journal: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  journal = path.join(tempDir('pay-api-journal-'), 'journal.jsonl')
})
afterAll(() => sandbox.close())

const pay = (args: string[], input?: string) =>
  runCli(['api', ...args], { env: { ...sandbox.env, PAY_JOURNAL_FILE: journal }, input })

const CREATE = [
  '-f',
  'email=jane@example.com',
  '-f',
  'currency=EUR',
  '-f',
  'amount=25.50',
  '-f',
  'title=Invoice 1042',
]

describe('pay api', () => {
  test('a POST with -f fields creates, and prints the answer as it came, compact when piped', async () => {
    const result = await pay(['/payment-links', ...CREATE])
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(result.stdout.endsWith('}\n')).toBe(true)
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1)
    const answer = JSON.parse(result.stdout)
    expect(answer).toMatchObject({
      success: true,
      data: {
        email: 'jane@example.com',
        currency: 'EUR',
        amount: 25.5,
        title: 'Invoice 1042',
        status: 'Active',
      },
    })
    expect(answer.data._id).toMatch(OBJECT_ID)
    // What the sandbox holds, and what the journal says was sent (never the body).
    expect((await sandbox.request('GET', `/payment-links/${answer.data._id}`)).body.data.title).toBe(
      'Invoice 1042',
    )
    const entries = fs
      .readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .slice(-2)
    expect(entries.map((e) => [e.phase, e.command, e.method, e.path, e.resource, e.status])).toEqual([
      ['intent', 'pay api', 'POST', '/payment-links', 'payment link', undefined],
      ['outcome', 'pay api', 'POST', '/payment-links', 'payment link', 200],
    ])
    expect(entries[1].id).toBeUndefined()
    expect(entries[0].idempotency_key).toMatch(/^[0-9a-f-]{36}$/)
  })

  test('GET is the default; a path without its slash is under the base URL; --jq shapes the answer', async () => {
    const link = await seedLink(sandbox, { title: 'Shaped' })
    const result = await pay([`payment-links/${link._id}`, '--jq', '.data | [.title, .amount, .paid]'])
    expect(result).toEqual({ code: 0, signal: null, stdout: '["Shaped",10,false]\n', stderr: '' })
    const raw = await pay([`/payment-links/${link._id}`, '--jq', '.data.title'])
    expect(raw.stdout).toBe('Shaped\n')
  })

  test('a 404 exits 5 and still prints the body; the message goes to stderr', async () => {
    const result = await pay(['/payment-links/65a1f0c2e4b0a1b2c3d4e5f6'])
    expect(result).toEqual({
      code: 5,
      signal: null,
      stdout: '{"message":"Payment link not found."}\n',
      stderr: 'Error: Payment link not found.\n',
    })
    // With --json the error is JSON on stderr too.
    const json = await pay(['/nowhere', '--json'])
    expect(json.code).toBe(5)
    expect(json.stdout).toBe('{"message":"Not found."}\n')
    expect(JSON.parse(json.stderr)).toEqual({
      error: { status: 404, kind: 'not_found', exit_code: 5, message: 'Not found.' },
    })
  })

  test('a 422 exits 3 with the body on stdout and each field under its name as sent', async () => {
    const result = await pay(['/payment-links', '-f', 'email=jane@example.com', '-F', 'amount=25.50'])
    expect(result.code).toBe(3)
    expect(JSON.parse(result.stdout)).toEqual({
      message: 'The given data was invalid.',
      errors: {
        currency: ['The currency field is required.'],
        amount: ['The amount must be a string.'],
        title: ['The title field is required.'],
      },
    })
    expect(result.stderr).toBe(
      'Error: The given data was invalid.\n' +
        '  currency  The currency field is required.\n' +
        '  amount    The amount must be a string.\n' +
        '  title     The title field is required.\n',
    )
  })

  test('-X PUT with a field changes a subscription; -i shows status and headers on stderr', async () => {
    const created = await sandbox.request('POST', '/subscriptions', {
      package_id: sandbox.packageIds[0],
      email: 'sub@example.com',
    })
    const id = created.body.data._id
    const result = await pay([
      '-X',
      'PUT',
      `/subscriptions/${id}`,
      '-f',
      'status=cancel',
      '-i',
      '--jq',
      '.data.status',
    ])
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('cancel\n')
    const head = result.stderr.split('\n')
    expect(head[0]).toBe('HTTP/1.1 200 OK')
    expect(head).toContain('Content-Type: application/json')
    expect(head).toContain('X-Pay-Sandbox: 1')
    expect(result.stderr.endsWith('\n\n')).toBe(true)
    expect((await sandbox.request('GET', `/subscriptions/${id}`)).body.data.status).toBe('cancel')
    const last = JSON.parse(fs.readFileSync(journal, 'utf8').trim().split('\n').at(-1)!)
    expect([last.method, last.resource, last.id, last.status]).toEqual(['PUT', 'subscription', id, 200])
  })

  test('--input - sends stdin as the body, exactly; -F @file reads a file', async () => {
    const body = '{"email":"in@example.com","currency":"JPY","amount":"300","title":"From stdin"}'
    const result = await pay(
      ['/payment-links', '--input', '-', '--jq', '.data | "\\(.title) \\(.amount)"'],
      body,
    )
    expect(result).toMatchObject({ code: 0, stdout: 'From stdin 300\n', stderr: '' })
    const notes = path.join(tempDir('pay-api-file-'), 'notes.txt')
    fs.writeFileSync(notes, 'two\nlines')
    const described = await pay([
      '/payment-links',
      ...CREATE,
      '-F',
      `description=@${notes}`,
      '--jq',
      '.data.description',
    ])
    expect(described.stdout).toBe('two\nlines\n')
  })

  test('--paginate follows next_page_url and prints the items of every page as one array', async () => {
    const fresh = await startTestSandbox()
    try {
      for (let i = 0; i < 7; i += 1) await seedLink(fresh, { title: `Page item ${i}` })
      const args = ['api', '/payment-links', '-X', 'GET', '-F', 'per_page=3', '--paginate']
      const result = await runCli(args, { env: fresh.env })
      expect(result).toMatchObject({ code: 0, stderr: '' })
      const items = JSON.parse(result.stdout)
      expect(items.map((item: Json) => item.title)).toEqual(
        [6, 5, 4, 3, 2, 1, 0].map((i) => `Page item ${i}`),
      )
      const count = await runCli([...args, '--jq', 'length', '-i'], { env: fresh.env })
      expect(count.stdout).toBe('7\n')
      // -i shows each page's status line: 3 pages.
      expect(count.stderr.match(/^HTTP\/1\.1 200 OK$/gm)).toHaveLength(3)
      // A path that is no list cannot be paginated.
      const one = await runCli(['api', `/payment-links/${items[0]._id}`, '--paginate'], { env: fresh.env })
      expect(one).toMatchObject({
        code: 6,
        stdout: '',
        stderr:
          'Error: Unexpected answer from the service: expected a list of items, got an object without the expected fields.\n' +
          'Run again with --debug to see the exchange.\n',
      })
    } finally {
      await fresh.close()
    }
  })

  test('the key goes nowhere but the base URL: another origin and an Authorization header are refused', async () => {
    const elsewhere = await pay(['https://api.example.com/payment-links'])
    expect(elsewhere).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr:
        `Error: Refusing to send the API key to https://api.example.com: pay sends it only to ${sandbox.baseUrl}, the profile's base URL.\n` +
        'Give a path relative to the base URL, e.g. /payment-links.\n',
    })
    const sameOrigin = await pay([`${sandbox.baseUrl}/payment-links`, '--jq', '.success'])
    expect(sameOrigin.stdout).toBe('true\n')
    const header = await pay(['/payment-links', '-H', 'Authorization: Bearer sk_other_0123456789'])
    expect(header).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr:
        "Error: -H Authorization: pay api sends the profile's key as Authorization itself, and no other.\n" +
        'Choose the key with --profile or PAY_API_KEY.\n',
    })
  })

  test('usage errors exit 2 with one clean message', async () => {
    for (const [args, stderr] of [
      [[], 'Error: Missing 1 required arg:\npath  Path under the base URL (/payment-links)'],
      [['/x', '-H', 'Host: evil.example'], 'Error: -H Host: pay sets this header itself.\n'],
      [['/x', '-X', 'TRACE'], 'Error: -X TRACE: pay api sends GET, POST, PUT, PATCH, DELETE.\n'],
      [['/x', '-f', 'oops'], 'Error: -f oops: expected key=value.\n'],
      [['/x', '--paginate', '-X', 'DELETE'], 'Error: --paginate follows the pages of a GET, not a DELETE.\n'],
    ] as const) {
      const result = await pay([...args])
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' })
      expect(result.stderr.startsWith(stderr)).toBe(true)
    }
  })
})
