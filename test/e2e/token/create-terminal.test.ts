import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Json } from '../../helpers/links.js'
import { readStore, startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/** `pay token create` in a real terminal: the missing required flags are asked for. */

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})

afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

/** The tokenizations the sandbox stored (the service has no endpoint to read them back). */
function storedTokenizations(): Json[] {
  const store = readStore(sandbox.dir)
  return Object.values(store.businesses as Record<string, Json>).flatMap((business) =>
    Object.values(business.tokenizations),
  )
}

describe.concurrent('token create on a terminal', () => {
  test('asks for e-mail (re-asking after an invalid one), title and description; shows token and activation_url', async (context) => {
    const term = await startTestTerminal(context, ['token', 'create', '--phone', '555-0100'], {
      env: sandbox.env,
    })
    await term.waitFor('Customer e-mail')
    await term.type('not an email', 'Enter')
    await term.waitFor('The email must be a valid email address.')
    await term.press('C-u')
    await term.type('jane@example.com', 'Enter')
    await term.waitFor(/^\? Title/m)
    await term.type('Card on file', 'Enter')
    await term.waitFor(/^\? Description/m)
    await term.type('Monthly billing', 'Enter')
    expect(await term.exitCode()).toBe(0)

    const screen = await term.screen()
    const token = /^token +(\S+)$/m.exec(screen)?.[1] ?? ''
    const activationUrl = /^activation_url +(\S+)$/m.exec(screen)?.[1] ?? ''
    expect(token).not.toBe('')
    expect(activationUrl.startsWith(`${sandbox.baseUrl}/`)).toBe(true)
    expect(new URL(activationUrl).pathname.split('/')).toContain(token)
    expect(screen).toMatch(/^email +jane@example\.com$/m)
    expect(screen).toMatch(/^phone_no +555-0100$/m)

    const stored = storedTokenizations().filter((record) => record.token === token)
    expect(stored).toEqual([
      expect.objectContaining({
        email: 'jane@example.com',
        phone_no: '555-0100',
        title: 'Card on file',
        description: 'Monthly billing',
        // The store keeps the page's path; the answer names the address that served it.
        activation_url: activationUrl.slice(sandbox.baseUrl.length),
      }),
    ])
    expect(stored[0]).not.toHaveProperty('redirect_url')
  })
})
