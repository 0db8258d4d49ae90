import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import { expectServiceHeaders, fakeService, ID } from '../../helpers/link-service.js'
import { fakeEnv, type Json } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { seedThreeLinks } from '../../helpers/three-links.js'

describe('against a sandbox', () => {
  /** `pay links get` and `pay links list` end to end against a real sandbox, stdout piped. */

  let sandbox: TestSandbox
  /** Oldest first: a (unpaid), b (paid with `pay sandbox pay`), c (unpaid, 300-char title). */
  let a: Json
  let b: Json
  let c: Json

  beforeAll(async () => {
    // The directory's own key, as a user's fresh directory has it: `pay sandbox pay` (the built-in
    // profile) finds its key there and says nothing of records kept before.
    sandbox = await startTestSandbox({ ownKey: true })
    ;({ a, b, c } = await seedThreeLinks(sandbox))
  })

  afterAll(async () => {
    await sandbox.close()
  })

  const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

  describe.concurrent('links get', () => {
    test('piped: key<TAB>value lines, no header, no colour', async () => {
      const result = await pay('links', 'get', a._id)
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout).toBe(
        [
          `_id\t${a._id}`,
          'status\tActive',
          'paid\tfalse',
          'amount\t10',
          'currency\tEUR',
          'email\tann@example.com',
          'phone_no\t555-0100',
          'title\tAlpha',
          'description\tFirst',
          'reference\tREF-A',
          'reference_2\tR2-A',
          'redirect_url\thttps://shop.example/a',
          `payment_url\t${sandbox.baseUrl}/checkout/pay?id=${a._id}`,
          `business_id\t${a.business_id}`,
          `created_at\t${a.created_at}`,
          `updated_at\t${a.updated_at}`,
          '',
        ].join('\n'),
      )
    })

    test('--json: the record exactly as stored', async () => {
      const result = await pay('links', 'get', b._id, '--json')
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual(b)
      expect(result.stdout).toBe(`${JSON.stringify(b, null, 2)}\n`)
    })

    test('--columns picks the fields, in the order given, as one TSV row of values', async () => {
      const result = await pay('links', 'get', a._id, '--columns', 'amount,_id,reference_2')
      expect(result).toMatchObject({ code: 0, stderr: '', stdout: `10\t${a._id}\tR2-A\n` })
    })

    test('--columns with one field prints the bare value, for $(…) in scripts', async () => {
      const result = await pay('links', 'get', a._id, '--columns', 'payment_url')
      expect(result).toMatchObject({
        code: 0,
        stderr: '',
        stdout: `${sandbox.baseUrl}/checkout/pay?id=${a._id}\n`,
      })
    })

    test('--columns takes the table headers too (ID, STATUS), in any case; an empty list is a usage error', async () => {
      expect(await pay('links', 'get', a._id, '--columns', 'ID,status,Reference')).toMatchObject({
        code: 0,
        stdout: `${a._id}\tActive\tREF-A\n`,
      })
      const empty = await pay('links', 'get', a._id, '--columns=')
      expect(empty).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          'Error: --columns: Expected at least one column name, e.g. --columns _id,status\n' +
          'See `pay links get --help`.\n',
      })
    })

    test('--columns with an unknown column: exit 2, nothing on stdout', async () => {
      const result = await pay('links', 'get', a._id, '--columns', '_id,colour')
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(
        /^Error: Unknown column "colour" for --columns\.\nAvailable: _id, status, /,
      )
      expect(result.code).toBe(2)
    })

    test('-q prints the id only', async () => {
      expect(await pay('links', 'get', c._id, '-q')).toMatchObject({
        code: 0,
        stdout: `${c._id}\n`,
        stderr: '',
      })
    })

    test('an unknown id: exit 5', async () => {
      const result = await pay('links', 'get', '0123456789abcdef01234567')
      expect(result).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Payment link not found.\n' })
    })

    test('no id: exit 2', async () => {
      const result = await pay('links', 'get')
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(/^Error: Missing 1 required arg:\nid/)
      expect(result.code).toBe(2)
    })
  })
})

describe('the request', () => {
  /**
   * What exactly goes over the wire: the command, run in this process, against a loopback
   * server that records each request (method, path, headers, raw body) and answers like the
   * service.
   */

  describe.concurrent('links get, list, delete: the requests', () => {
    test('get: GET /payment-links/ID, no body', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(['links', 'get', ID, '-q'], { env: fakeEnv(fake) })
      expect(result).toMatchObject({ code: 0, stdout: `${ID}\n` })
      expect(fake.requests).toHaveLength(1)
      expect(fake.requests[0]).toMatchObject({ method: 'GET', path: `/payment-links/${ID}`, body: '' })
      expectServiceHeaders(fake.requests[0])
    })

    test('an id pasted in quotes or angle brackets, or as a bracketed payment URL, is read as the id', async (context) => {
      const fake = await fakeService(context)
      const url = `https://pay.example/checkout/pay?id=${ID.toUpperCase()}`
      for (const pasted of [
        `"${ID}"`,
        `'${ID}'`,
        `<${ID}>`,
        `<${url}>`,
        ` "<${url}>" `,
        `\u201c${ID}\u201d`,
      ]) {
        const result = await runInProcess(['links', 'get', pasted, '-q'], { env: fakeEnv(fake) })
        expect([pasted, result.code, result.stdout, result.stderr]).toEqual([pasted, 0, `${ID}\n`, ''])
      }
      expect(fake.requests.map((r) => r.path)).toEqual(Array(6).fill(`/payment-links/${ID}`))
    })

    test('text that is no id: exit 2 saying why, nothing sent (never "not found")', async (context) => {
      const fake = await fakeService(context)
      const cases = [
        [`"${ID}",`, 'it contains a quote'],
        [`${ID} ${ID}`, 'it contains a space'],
        [`<${ID}`, 'it contains an angle bracket'],
        [`${ID},x`, 'it contains a comma (one id per line)'],
        ['..', 'only dots'],
        ['""', 'empty'],
        ['<https://pay.example/checkout/pay>', 'a URL without an id (a payment_url carries ?id=…)'],
      ]
      for (const [typed, why] of cases) {
        const result = await runInProcess(['links', 'get', typed], { env: fakeEnv(fake) })
        expect(result).toMatchObject({
          code: 2,
          stdout: '',
          stderr: `Error: ${JSON.stringify(typed)} is not an id: ${why}.\n`,
        })
      }
      expect(fake.requests).toEqual([])
    })

    test('an id is sent path-encoded', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(['links', 'get', 'a/b?c'], { env: fakeEnv(fake) })
      expect(result.code).toBe(5)
      expect(fake.requests.map((r) => r.path)).toEqual(['/payment-links/a%2Fb%3Fc'])
    })
  })
})
