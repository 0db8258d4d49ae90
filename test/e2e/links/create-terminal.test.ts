import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/** `pay links create` in a real terminal (tmux): missing flags are asked for, one by one. */

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})

afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

/** The column where the value starts on each `key  value` line of a key/value table. */
function valueColumns(screen: string, keys: string[]): number[] {
  return keys.map((key) => {
    const match = new RegExp(`^${key}( +)\\S`, 'm').exec(screen)
    return match ? key.length + match[1].length : -1
  })
}

/** The links the sandbox holds for this customer e-mail. */
const linksFor = async (email: string) => {
  const answer = await sandbox.request('GET', '/payment-links?per_page=500')
  return (answer.body.data.data as { email: string }[]).filter((link) => link.email === email)
}

describe.concurrent('links create on a terminal', () => {
  test('asks for each missing flag, re-asks after an invalid e-mail, creates exactly what was typed', async (context) => {
    const term = await startTestTerminal(context, ['links', 'create', '--reference', 'TMUX-1'], {
      env: sandbox.env,
    })

    await term.waitFor('Customer e-mail')
    await term.type('jane.example.com', 'Enter')
    await term.waitFor('The email must be a valid email address.')
    // The rejected answer stays in the input: clear it, then type a valid one.
    await term.press('C-u')
    await term.type('jane@example.com', 'Enter')
    await term.waitFor('Currency (e.g. EUR)')
    await term.type('EUR', 'Enter')
    await term.waitFor('Amount (e.g. 25.50)')
    await term.type('12.30', 'Enter')
    await term.waitFor(/^\? Title/m)
    await term.type('Tape measure, 5 m', 'Enter')

    expect(await term.exitCode()).toBe(0)
    const screen = await term.screen()
    const id = /^_id +([0-9a-f]{24})$/m.exec(screen)?.[1] ?? ''
    expect(id).not.toBe('')
    expect(await storedLink(sandbox, id)).toEqual({
      _id: id,
      email: 'jane@example.com',
      currency: 'EUR',
      amount: 12.3,
      title: 'Tape measure, 5 m',
      reference: 'TMUX-1',
      status: 'Active',
      payment_url: `${sandbox.baseUrl}/checkout/pay?id=${id}`,
      business_id: expect.any(Number),
      paid: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })

    // Only the missing flags were asked for, each answer shown once accepted.
    expect(screen).toMatch(/Customer e-mail jane@example\.com$/m)
    expect(screen).toMatch(/Currency \(e\.g\. EUR\) EUR$/m)
    expect(screen).toMatch(/Amount \(e\.g\. 25\.50\) 12\.30$/m)
    expect(screen).toMatch(/Title Tape measure, 5 m$/m)
    expect(screen).not.toContain('Reference')

    // A key/value table (not TSV): every value starts in one column, after the longest key.
    expect(screen).toMatch(/^amount +12\.30 EUR$/m)
    expect(screen).toMatch(/^title +Tape measure, 5 m$/m)
    expect(screen).toMatch(/^reference +TMUX-1$/m)
    const keys = [
      '_id',
      'status',
      'paid',
      'amount',
      'email',
      'title',
      'reference',
      'payment_url',
      'updated_at',
    ]
    expect(new Set(valueColumns(screen, keys))).toEqual(new Set(['payment_url'.length + 2]))
    const raw = await term.rawOutput()
    expect(raw.includes('\t')).toBe(false)
  })

  test('all flags given: no question, the table straight away', async (context) => {
    const term = await startTestTerminal(
      context,
      [
        'links',
        'create',
        '--email',
        'a@example.com',
        '--currency',
        'USD',
        '--amount',
        '7',
        '--title',
        'Flags',
      ],
      { env: sandbox.env },
    )
    expect(await term.exitCode()).toBe(0)
    const screen = await term.screen()
    expect(screen).not.toMatch(/^. (Customer e-mail|Currency|Amount|Title)/m)
    expect(screen).toMatch(/^amount +7\.00 USD$/m)
    expect(screen).toMatch(/^title +Flags$/m)
  })

  test('Ctrl-C at a question: exit 130, nothing created', async (context) => {
    const term = await startTestTerminal(context, ['links', 'create', '--email', 'ctrl-c@example.com'], {
      env: sandbox.env,
    })
    await term.waitFor('Currency (e.g. EUR)')
    await term.type('EU')
    await term.press('C-c')
    expect(await term.exitCode()).toBe(130)
    expect(await term.screen()).toMatch(/^Cancelled\.$/m)
    expect(await term.screen()).not.toMatch(/Error/)
    expect(await linksFor('ctrl-c@example.com')).toEqual([])
  })

  test('no API key configured: said at once, before any question, exit 4', async (context) => {
    const term = await startTestTerminal(context, ['links', 'create', '--amount', '5'])
    expect(await term.exitCode()).toBe(4)
    const screen = await term.screen()
    expect(screen).toMatch(/^Error: No profile is selected and no API key is set\.$/m)
    expect(screen).not.toContain('Customer e-mail')
  })

  test('token create with a plain-http remote base URL: refused before any question, exit 2', async (context) => {
    const term = await startTestTerminal(context, ['token', 'create'], {
      env: { PAY_API_KEY: sandbox.key, PAY_BASE_URL: 'http://pay.example' },
    })
    expect(await term.exitCode()).toBe(2)
    const screen = await term.screen()
    expect(screen).toMatch(/^Error: Refusing to send the API key over plain http to pay\.example\.$/m)
    expect(screen).not.toContain('Customer e-mail')
  })
})
