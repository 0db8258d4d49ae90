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
