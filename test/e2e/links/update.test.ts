import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { seedLink, storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

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

const pay = (...args: string[]) => runCli(args, { env: sandbox.env })

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
        'amount\t30.00 EUR',
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
      currency: 'usd',
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

  test('an unknown id: exit 5', async () => {
    const result = await pay('links', 'update', '0123456789abcdef01234567', '--title', 'X')
    expect(result).toMatchObject({ code: 5, stdout: '', stderr: 'Error: Payment link not found.\n' })
  })
})
