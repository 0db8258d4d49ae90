import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BIN } from '../../helpers/cli.js'
import { type Json, seedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/**
 * List tables at the widths support staff use: ids, amounts and statuses are never cut; free
 * text gives way, then columns of little value are dropped. On a terminal at most 30 rows are
 * shown unless --limit says otherwise.
 */

let sandbox: TestSandbox
let links: Json[]

beforeAll(async () => {
  sandbox = await startTestSandbox()
  links = []
  for (let i = 1; i <= 3; i += 1) {
    links.push(
      await seedLink(sandbox, {
        email: `customer-${i}@example.com`,
        amount: `125.0${i}`,
        title: `Invoice 104${i} for consulting services in November`,
        reference: `ORDER-${i}`,
      }),
    )
  }
  links.push(
    await seedLink(sandbox, {
      email: 'tiny@example.com',
      currency: 'BTC',
      amount: '0.0000001',
      title: 'tiny',
    }),
  )
  links.reverse()
  // Paid: support staff must see it at any width, in words.
  await sandbox.markPaid(links[2]._id)
})

afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

const NO_COLOR = { NO_COLOR: '1' }

describe.concurrent('links list on a terminal', () => {
  test('at 80 columns: paid or not under STATUS in words, ids and amounts whole, date and reference dropped', async (context) => {
    const term = await startTestTerminal(context, ['links', 'list'], { env: { ...sandbox.env, ...NO_COLOR } })
    expect(await term.exitCode()).toBe(0)
    const lines = (await term.screen()).trimEnd().split('\n')
    expect(lines).toEqual([
      'ID                        STATUS          AMOUNT         EMAIL       TITLE',
      `${links[0]._id}  Active, unpaid  0.0000001 BTC  tiny@exam…  tiny`,
      `${links[1]._id}  Active, unpaid  125.03 EUR     customer-…  Invoice 10…`,
      `${links[2]._id}  Active, paid    125.02 EUR     customer-…  Invoice 10…`,
      `${links[3]._id}  Active, unpaid  125.01 EUR     customer-…  Invoice 10…`,
    ])
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80)
  })

  test('at 60 columns: e-mail and title go before paid or not does', async (context) => {
    const term = await startTestTerminal(context, ['links', 'list'], {
      env: { ...sandbox.env, ...NO_COLOR },
      width: 60,
    })
    expect(await term.exitCode()).toBe(0)
    const lines = (await term.screen()).trimEnd().split('\n')
    expect(lines[0]).toBe('ID                        STATUS          AMOUNT')
    expect(lines[3]).toBe(`${links[2]._id}  Active, paid    125.02 EUR`)
  })

  test('at 120 columns: e-mails whole, the title shortened, only the date dropped', async (context) => {
    const term = await startTestTerminal(context, ['links', 'list'], {
      env: { ...sandbox.env, ...NO_COLOR },
      width: 120,
    })
    expect(await term.exitCode()).toBe(0)
    const lines = (await term.screen()).trimEnd().split('\n')
    expect(lines[0]).toBe(
      'ID                        STATUS          AMOUNT         EMAIL                   TITLE                         REFERENCE',
    )
    expect(lines[2]).toBe(
      `${links[1]._id}  Active, unpaid  125.03 EUR     customer-3@example.com  Invoice 1043 for consulting…  ORDER-3`,
    )
  })

  test('piped, paid stays a column of its own (true/false) for scripts', async (context) => {
    const term = await startTestTerminal(context, [], {
      env: sandbox.env,
      command: ['/bin/sh', '-c', `"${process.execPath}" "${BIN}" links list | cut -f 1-3 | tr '\\t' '|'`],
    })
    expect(await term.exitCode()).toBe(0)
    expect((await term.screen()).trimEnd().split('\n')[2]).toBe(`${links[2]._id}|Active|true`)
  })

  test('--limit caps the rows on a terminal and says so', async (context) => {
    const term = await startTestTerminal(context, ['links', 'ls', '--limit', '2', '-q'], { env: sandbox.env })
    expect(await term.exitCode()).toBe(0)
    expect((await term.screen()).trimEnd().split('\n')).toEqual([
      links[0]._id,
      links[1]._id,
      'Showing the first 2 payment links: a higher --limit shows more.',
    ])
  })

  test('--limit 1 says so in good English', async (context) => {
    const term = await startTestTerminal(context, ['links', 'ls', '--limit', '1', '-q'], { env: sandbox.env })
    expect(await term.exitCode()).toBe(0)
    expect((await term.screen()).trimEnd().split('\n')).toEqual([
      links[0]._id,
      'Showing the first payment link: a higher --limit shows more.',
    ])
  })
})
