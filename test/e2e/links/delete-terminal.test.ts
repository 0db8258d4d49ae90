import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { seedLink, storedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/**
 * `pay -p sandbox links delete` in a real terminal, 80 columns wide: the confirmation shows the
 * profile, the base URL and what each link is (fetched); ids that do not exist are left out and
 * reported; "n" cancels (exit 130), "y" deletes. The built-in sandbox profile talks to the test
 * sandbox through PAY_SANDBOX_PORT.
 */

let sandbox: TestSandbox
let env: Record<string, string>

beforeAll(async () => {
  // Its first business is its directory's own, the one `-p sandbox` sends there.
  sandbox = await startTestSandbox({ ownKey: true })
  env = { PAY_SANDBOX_PORT: new URL(sandbox.baseUrl).port, PAY_SANDBOX_DIR: sandbox.dir }
})

afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

/**
 * The plan: each link described, or with --yes (nothing fetched) the bare ids. At 80 columns a
 * link's line wraps at a space, its state whole under its description.
 */
const confirmation = (ids: string[], described = true) =>
  `About to delete ${ids.length} payment link${ids.length === 1 ? '' : 's'}:\n` +
  '  profile:  sandbox\n' +
  `  base URL: ${sandbox.baseUrl}\n` +
  (described
    ? ids
        .map(
          (id) =>
            `  ${id}  Seeded link · 10.00 EUR · seed@example.com\n` +
            `                            [Active, unpaid]\n`,
        )
        .join('')
    : `  ids:      ${ids.join(', ')}\n`)

describe.concurrent('links delete on a terminal', () => {
  test('answering n: exit 130, nothing deleted', async (context) => {
    const link = await seedLink(sandbox)
    const term = await startTestTerminal(context, ['-p', 'sandbox', 'links', 'delete', link._id], { env })
    const screen = await term.waitFor('Delete 1 payment link?')
    expect(screen).toContain(confirmation([link._id]))
    await term.type('n', 'Enter')
    expect(await term.exitCode()).toBe(130)
    expect(await term.screen()).toMatch(/^Cancelled\.\nNothing was deleted\.$/m)
    expect(await storedLink(sandbox, link._id)).toEqual(link)
  })

  test('answering y: the links are deleted and a result table is shown', async (context) => {
    const one = await seedLink(sandbox)
    const two = await seedLink(sandbox)
    const term = await startTestTerminal(context, ['-p', 'sandbox', 'links', 'delete', one._id, two._id], {
      env,
    })
    const screen = await term.waitFor('Delete 2 payment links?')
    expect(screen).toContain(confirmation([one._id, two._id]))
    await term.type('y', 'Enter')
    expect(await term.exitCode()).toBe(0)
    const after = await term.screen()
    expect(after).toMatch(/^ID +RESULT +ERROR$/m)
    expect(after).toMatch(new RegExp(`^${one._id} +deleted$`, 'm'))
    expect(after).toMatch(new RegExp(`^${two._id} +deleted$`, 'm'))
    expect(await storedLink(sandbox, one._id)).toBeUndefined()
    expect(await storedLink(sandbox, two._id)).toBeUndefined()
  })

  test('an id that does not exist is left out of the question and reported (exit 7)', async (context) => {
    const link = await seedLink(sandbox)
    const gone = '0123456789abcdef01234567'
    const term = await startTestTerminal(context, ['-p', 'sandbox', 'links', 'delete', gone, link._id], {
      env,
    })
    const screen = await term.waitFor('Delete 1 payment link?')
    expect(screen).toContain(`Warning: Not found, left out: ${gone}.\n${confirmation([link._id])}`)
    await term.type('y', 'Enter')
    expect(await term.exitCode()).toBe(7)
    const after = await term.screen()
    expect(after).toMatch(new RegExp(`^${gone} +not_found +Payment link not found\\.$`, 'm'))
    expect(after).toMatch(new RegExp(`^${link._id} +deleted$`, 'm'))
    expect(after).toMatch(/^Error: 1 of 2 payment links not deleted \(1 not found\)\.$/m)
    expect(await storedLink(sandbox, link._id)).toBeUndefined()
  })

  test('just Enter takes the default, which is no', async (context) => {
    const link = await seedLink(sandbox)
    const term = await startTestTerminal(context, ['-p', 'sandbox', 'links', 'delete', link._id], { env })
    await term.waitFor('Delete 1 payment link? (y/N)')
    await term.press('Enter')
    expect(await term.exitCode()).toBe(130)
    expect(await storedLink(sandbox, link._id)).toEqual(link)
  })

  test('--yes on a terminal does not ask', async (context) => {
    const link = await seedLink(sandbox)
    const term = await startTestTerminal(context, ['-p', 'sandbox', 'links', 'delete', link._id, '--yes'], {
      env,
    })
    expect(await term.exitCode()).toBe(0)
    const screen = await term.screen()
    expect(screen).toContain(confirmation([link._id], false))
    expect(screen).not.toContain('Delete 1 payment link?')
    expect(await storedLink(sandbox, link._id)).toBeUndefined()
  })
})
