import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { seedLink, storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/** `pay links create` end to end: bin/run.js against a real sandbox, stdout piped (TSV). */

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
    const result = await runCli(
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
    const result = await runCli(
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
    expect(link).toMatchObject({ email: 'min@example.com', currency: 'JPY', amount: 1000, title: 'Minimal' })
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
    const result = await runCli(
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
    const result = await runCli(
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
    const result = await runCli(
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
    const result = await runCli(['links', 'list', '--columns', '_id,amount,currency'], { env: sandbox.env })
    expect(result.code).toBe(0)
    const rows = result.stdout.split('\n').filter((row) => shown.has(row.split('\t')[0]))
    expect(rows.reverse()).toEqual([...shown].map(([id, text]) => `${id}\t${text}`))
  })
})
