import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import '../../helpers/cli.js'
import { runInProcess } from '../../helpers/in-process.js'
import { expectServiceHeaders, fakeService, ID, silentServer } from '../../helpers/link-service.js'
import { fakeEnv, seedLink, storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

describe('against a sandbox', () => {
  /** `pay links update` end to end: only the flags given change, the record keeps the rest. */

  let sandbox: TestSandbox

  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })

  afterAll(async () => {
    await sandbox.close()
  })

  const FULL = {
    email: 'jane@example.com',
    currency: 'EUR',
    amount: '25.50',
    title: 'Invoice 1042',
    phone_no: '555-0100',
    description: 'Two boxes of tea',
    redirect_url: 'https://shop.example/thanks',
    reference: 'ORDER-7',
    reference_2: 'Q3',
  }

  const pay = (...args: string[]) => runInProcess(args, { env: sandbox.env })

  describe.concurrent('links update', () => {
    test('--title and --amount change; every other field is kept', async () => {
      const before = await seedLink(sandbox, FULL)
      const result = await pay(
        'links',
        'update',
        before._id,
        '--title',
        'Invoice 1042 (corrected)',
        '--amount',
        '30.00',
      )
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      const after = await storedLink(sandbox, before._id)
      expect(after).toEqual({
        ...before,
        title: 'Invoice 1042 (corrected)',
        amount: 30,
        updated_at: after.updated_at,
      })
      expect(after.updated_at > before.updated_at).toBe(true)
      expect(result.stdout).toBe(
        [
          `_id\t${before._id}`,
          'status\tActive',
          'paid\tfalse',
          'amount\t30',
          'currency\tEUR',
          'email\tjane@example.com',
          'phone_no\t555-0100',
          'title\tInvoice 1042 (corrected)',
          'description\tTwo boxes of tea',
          'reference\tORDER-7',
          'reference_2\tQ3',
          'redirect_url\thttps://shop.example/thanks',
          `payment_url\t${before.payment_url}`,
          `business_id\t${before.business_id}`,
          `created_at\t${before.created_at}`,
          `updated_at\t${after.updated_at}`,
          '',
        ].join('\n'),
      )
    })

    test('every other flag changes its field; title and amount are kept', async () => {
      const before = await seedLink(sandbox, FULL)
      const result = await pay(
        'links',
        'update',
        before._id,
        '--email',
        'john@example.com',
        '--currency',
        'usd',
        '--phone',
        '555-0199',
        '--description',
        'Three boxes',
        '--redirect-url',
        'https://shop.example/v2',
        '--reference',
        'ORDER-8',
        '--reference-2',
        'Q4',
        '--no-send-email',
        '--json',
      )
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      const after = await storedLink(sandbox, before._id)
      expect(JSON.parse(result.stdout)).toEqual(after)
      expect(after).toEqual({
        ...before,
        email: 'john@example.com',
        // Sent in capitals, as every currency pay sends.
        currency: 'USD',
        phone_no: '555-0199',
        description: 'Three boxes',
        redirect_url: 'https://shop.example/v2',
        reference: 'ORDER-8',
        reference_2: 'Q4',
        updated_at: after.updated_at,
      })
    })

    test('a link without optional fields keeps having none', async () => {
      const before = await seedLink(sandbox, { email: 'bare@example.com', amount: '7', title: 'Bare' })
      const result = await pay('links', 'update', before._id, '--send-email', '-q')
      expect(result).toMatchObject({ code: 0, stderr: '', stdout: `${before._id}\n` })
      expect(await storedLink(sandbox, before._id)).toEqual(before)
    })

    test('nothing to change: exit 2, and the link is untouched', async () => {
      const before = await seedLink(sandbox, FULL)
      const result = await pay('links', 'update', before._id)
      expect(result).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          'Error: Nothing to change.\n' +
          'Give at least one of --email, --currency, --amount, --title, --phone, --description, ' +
          '--redirect-url, --reference, --reference-2, --send-email.\n',
      })
      expect(await storedLink(sandbox, before._id)).toEqual(before)
    })

    test('a tiny amount shown and sent back in plain decimal notation (never 1e-7)', async () => {
      const link = await seedLink(sandbox, { currency: 'BTC', amount: '0.0000001', title: 'tiny' })
      const result = await pay(
        'links',
        'update',
        link._id,
        '--title',
        'still tiny',
        '--columns',
        'title,amount',
      )
      expect(result).toMatchObject({ code: 0, stderr: '', stdout: 'still tiny\t0.0000001\n' })
      expect(await storedLink(sandbox, link._id)).toMatchObject({ amount: 1e-7, title: 'still tiny' })
    })

    test('--amount with more decimals than the link’s currency (fetched): exit 3, nothing changed', async () => {
      const link = await seedLink(sandbox, { currency: 'JPY', amount: '1000' })
      const result = await pay('links', 'update', link._id, '--amount', '999.5')
      expect(result).toMatchObject({
        code: 3,
        stdout: '',
        stderr: 'Error: The given data was invalid.\n  --amount  The amount must have no decimals for JPY.\n',
      })
      expect(await storedLink(sandbox, link._id)).toEqual(link)
    })

    test('a paid link is not changed off a terminal without --yes (exit 2); with --yes it is, with a warning', async () => {
      const link = await seedLink(sandbox, { amount: '25.50' })
      await sandbox.markPaid(link._id)
      const paid = await storedLink(sandbox, link._id)
      const warning =
        `Warning: Payment link ${link._id} is already paid (25.50 EUR); ` +
        'changing it does not change what the customer paid.\n'
      const refused = await pay('links', 'update', link._id, '--amount', '30.00')
      expect(refused).toMatchObject({
        code: 2,
        stdout: '',
        stderr:
          `${warning}Error: Refusing to change without confirmation: there is no terminal to confirm on.\n` +
          'Pass --yes to confirm. Nothing was sent.\n',
      })
      expect(await storedLink(sandbox, link._id)).toEqual(paid)
      const confirmed = await pay('links', 'update', link._id, '--amount', '30.00', '--yes', '--json')
      expect(confirmed).toMatchObject({ code: 0, stderr: warning })
      expect(JSON.parse(confirmed.stdout)).toMatchObject({ amount: 30, paid: true })
    })

    test('an unknown id: exit 5', async () => {
      const result = await pay('links', 'update', '0123456789abcdef01234567', '--title', 'X')
      expect(result).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Payment link not found.\n' })
    })
  })
})

describe('the request', () => {
  /**
   * What exactly goes over the wire: the command, run in this process, against a loopback
   * server that records each request (method, path, headers, raw body) and answers like the
   * service.
   */

  describe.concurrent('links update: GET, then PUT of the whole merged link', () => {
    test('required fields + existing optional ones + the changed ones', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(
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
      expect(JSON.parse(result.stdout)).toMatchObject({
        title: 'Invoice 1042 (corrected)',
        reference_2: 'Q3',
      })
    })

    test('--amount replaces the stored amount with the exact text typed', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(['links', 'update', ID, '--amount', '0.10', '-q'], {
        env: fakeEnv(fake),
      })
      expect(result.code).toBe(0)
      expect(fake.requests[1].body).toContain('"amount":"0.10"')
      expect(JSON.parse(fake.requests[1].body)).not.toHaveProperty('send_email')
    })

    test('nothing to change: no request at all, exit 2', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(['links', 'update', ID, '--json'], { env: fakeEnv(fake) })
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(fake.requests).toEqual([])
    })

    test('the link does not exist: the GET is answered 404, no PUT, exit 5', async (context) => {
      const fake = await fakeService(context)
      const result = await runInProcess(['links', 'update', 'missing', '--title', 'X'], {
        env: fakeEnv(fake),
      })
      expect(result).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Not found.\n' })
      expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /payment-links/missing'])
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
    test('links update checks the flags before fetching the link', async (context) => {
      const fake = await silentServer(context)
      const result = await runInProcess(['links', 'update', 'some-id', '--amount', '1e3', '--email', 'x'], {
        env: fakeEnv(fake),
      })
      expect(result).toMatchObject({
        code: 3,
        stdout: '',
        stderr: `Error: The given data was invalid.\n  --email   ${EMAIL_MESSAGE}\n  --amount  The amount must be written out in digits, not with an exponent like 1e3.\n`,
      })
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

  describe('currencies', () => {
    test('links update --currency JPY of a 10.50 EUR link: the link’s amount is the problem, said under --currency', async () => {
      const link = await seedLink(sandbox, { amount: '10.50', currency: 'EUR', title: 'To yen' })
      const result = await pay('links', 'update', link._id, '--currency', 'JPY')
      expect(result).toMatchObject({
        code: 3,
        stdout: '',
        stderr:
          'Error: The given data was invalid.\n' +
          "  --currency  The link's amount, 10.5, has decimals JPY does not allow (no decimals): give a new --amount with --currency JPY.\n",
      })
      expect(await storedLink(sandbox, link._id)).toMatchObject({ currency: 'EUR', amount: 10.5 })
      const both = await pay(
        'links',
        'update',
        link._id,
        '--currency',
        'jpy',
        '--amount',
        '1500',
        '--jq',
        '.currency',
      )
      expect(both).toMatchObject({ code: 0, stdout: 'JPY\n' })
      expect(await storedLink(sandbox, link._id)).toMatchObject({ currency: 'JPY', amount: 1500 })
    })
  })
})
