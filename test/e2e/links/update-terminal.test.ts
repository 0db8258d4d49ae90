import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { seedLink, storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/** `pay links update` of a paid link on a terminal: a warning, then a question. */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

async function paidLink() {
  const link = await seedLink(sandbox, { amount: '25.50' })
  await sandbox.markPaid(link._id)
  return storedLink(sandbox, link._id)
}

describe.concurrent('links update of a paid link on a terminal', () => {
  test('warns and asks; "y" changes it', async (context) => {
    const link = await paidLink()
    const term = await startTestTerminal(context, ['links', 'update', link._id, '--title', 'Re-issued'], {
      env: sandbox.env,
    })
    const screen = await term.waitFor('Change the paid link anyway? (y/N)')
    // Wrapped at a space, not folded mid-word by the terminal.
    expect(screen).toContain(
      `Warning: Payment link ${link._id} is already paid (25.50 EUR);\n` +
        'changing it does not change what the customer paid.\n',
    )
    await term.type('y', 'Enter')
    expect(await term.exitCode()).toBe(0)
    expect(await storedLink(sandbox, link._id)).toMatchObject({ title: 'Re-issued', paid: true })
  })

  test('"n": exit 130, "Cancelled." and nothing changed', async (context) => {
    const link = await paidLink()
    const term = await startTestTerminal(context, ['links', 'update', link._id, '--amount', '99'], {
      env: sandbox.env,
    })
    await term.waitFor('Change the paid link anyway? (y/N)')
    await term.type('n', 'Enter')
    expect(await term.exitCode()).toBe(130)
    expect(await term.screen()).toMatch(/^Cancelled\.\nNothing was changed\.$/m)
    expect(await storedLink(sandbox, link._id)).toEqual(link)
  })
})
