import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/**
 * Questions that lose no work (80 columns, tmux): an amount the currency cannot have is refused
 * at its own question and asked again, keeping every answer given; the package question checks
 * an id's shape, and with the sandbox profile offers the seeded packages.
 */

let sandbox: TestSandbox

beforeAll(async () => {
  // Its first business is its directory's own, the one `-p sandbox` sends there.
  sandbox = await startTestSandbox({ ownKey: true })
})
afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

const idOn = (screen: string) => /^_id +([0-9a-f]{24})$/m.exec(screen)?.[1] ?? ''

describe.concurrent('questions that lose no work', () => {
  test('12.345 EUR is refused at the amount question and asked again; nothing typed is lost', async (context) => {
    const term = await startTestTerminal(context, ['links', 'create'], { env: sandbox.env })
    await term.waitFor('Customer e-mail')
    await term.type('jane@example.com', 'Enter')
    await term.waitFor('Currency (e.g. EUR)')
    // Typed in lower case, shown and sent in capitals.
    await term.type('eur', 'Enter')
    await term.waitFor('Amount (e.g. 25.50)')
    await term.type('12.345', 'Enter')
    const refused = await term.waitFor('The amount must have at most 2 decimals for EUR.')
    expect(refused).not.toMatch(/^. Title/m)
    await term.press('C-u')
    await term.type('12.34', 'Enter')
    await term.waitFor(/^\? Title/m)
    await term.type('Tape measure', 'Enter')
    expect(await term.exitCode()).toBe(0)
    const screen = await term.screen()
    expect(screen).toMatch(/^✔ Customer e-mail jane@example\.com$/m)
    expect(screen).toMatch(/^✔ Currency \(e\.g\. EUR\) EUR$/m)
    expect(screen).toMatch(/^✔ Amount \(e\.g\. 25\.50\) 12\.34$/m)
    expect(await storedLink(sandbox, idOn(screen))).toMatchObject({
      email: 'jane@example.com',
      currency: 'EUR',
      amount: 12.34,
      title: 'Tape measure',
    })
  })

  test('--amount 12.345 given: a currency it does not fit is refused at the currency question', async (context) => {
    const term = await startTestTerminal(
      context,
      ['links', 'create', '--amount', '12.345', '--email', 'bh@example.com', '--title', 'Dinar'],
      { env: sandbox.env },
    )
    await term.waitFor('Currency (e.g. EUR)')
    await term.type('JPY', 'Enter')
    await term.waitFor('JPY allows no decimals, and the amount 12.345 has 3')
    await term.press('C-u')
    await term.type('bhd', 'Enter')
    expect(await term.exitCode()).toBe(0)
    const screen = await term.screen()
    expect(screen).toMatch(/^amount +12\.345 BHD$/m)
    expect(await storedLink(sandbox, idOn(screen))).toMatchObject({ currency: 'BHD', amount: 12.345 })
  })

  test('the package question refuses an e-mail address: an id has no @', async (context) => {
    const term = await startTestTerminal(context, ['subs', 'create', '--email', 'pkg@example.com'], {
      env: sandbox.env,
    })
    await term.waitFor('Package id')
    await term.type('pkg@example.com', 'Enter')
    await term.waitFor('> The package_id must be an id: letters, digits, - and _ only.')
    await term.press('C-u')
    await term.type(sandbox.packageIds[2], 'Enter')
    expect(await term.exitCode()).toBe(0)
    expect(await term.screen()).toMatch(/^package\.name +Monthly$/m)
  })

  test('with the sandbox profile, the seeded packages are offered as choices', async (context) => {
    const term = await startTestTerminal(context, ['-p', 'sandbox', 'subs', 'create'], {
      env: { PAY_SANDBOX_DIR: sandbox.dir },
    })
    await term.waitFor('↑↓')
    const [starter, business, monthly] = sandbox.packageIds
    expect((await term.screen()).split('\n').slice(0, 4)).toEqual([
      '? Package id',
      `❯ Starter · 120.00 USD yearly · ${starter}`,
      `  Business · 1250.50 USD yearly · ${business}`,
      `  Monthly · 15.00 USD monthly · ${monthly}`,
    ])
    await term.press('Down')
    await term.press('Enter')
    await term.waitFor('Customer e-mail')
    await term.type('picked@example.com', 'Enter')
    expect(await term.exitCode()).toBe(0)
    const screen = await term.screen()
    expect(screen).toMatch(new RegExp(`^✔ Package id Business · 1250\\.50 USD yearly · ${business}$`, 'm'))
    expect(screen).toMatch(new RegExp(`^package_id +${business}$`, 'm'))
  })
})
