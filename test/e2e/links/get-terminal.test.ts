import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  HOSTILE_TITLE,
  HOSTILE_TITLE_SHOWN,
  type Json,
  rawControlBytes,
  seedLink,
} from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/**
 * Tables on a real terminal, with server text holding control characters (SGR, BEL, CR, the
 * C1 CSI): the bytes that reach the terminal carry none of them raw, only caret notation.
 */

let sandbox: TestSandbox
let link: Json

beforeAll(async () => {
  sandbox = await startTestSandbox()
  link = await seedLink(sandbox, { title: HOSTILE_TITLE, reference: 'REF-1' })
})

afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

/** The tty writes each \n as \r\n; any other CR in the output would be the program's. */
const withoutNewlineCr = (bytes: Buffer) =>
  Buffer.from(bytes.toString('latin1').replace(/\r\n/g, '\n'), 'latin1')

/** The SGR codes pay itself writes: bold, dim, their reset, green, the colour reset. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
const PAY_SGR = /\u001b\[(1|2|22|32|39)m/g

describe.concurrent('tables on a terminal', () => {
  test('links get with NO_COLOR: a key/value table, not one raw control byte', async (context) => {
    const term = await startTestTerminal(context, ['links', 'get', link._id], {
      env: { ...sandbox.env, NO_COLOR: '1' },
    })
    expect(await term.exitCode()).toBe(0)
    const screen = await term.screen()
    expect(screen).toContain(`\ntitle        ${HOSTILE_TITLE_SHOWN}\n`)
    expect(screen).toMatch(/^status {7}Active$/m)
    expect(screen).toMatch(/^amount {7}10\.00 EUR$/m)
    const raw = await term.rawOutput()
    expect(rawControlBytes(withoutNewlineCr(raw))).toEqual([])
    expect(raw.toString('utf8')).toContain(HOSTILE_TITLE_SHOWN)
  })

  test('links list in colour: a header row, status coloured, no escape but pay’s own colours', async (context) => {
    const term = await startTestTerminal(context, ['links', 'list'], { env: sandbox.env, width: 200 })
    expect(await term.exitCode()).toBe(0)
    const screen = await term.screen()
    expect(screen).toMatch(/^ID +STATUS +AMOUNT +EMAIL +TITLE +REFERENCE +CREATED$/m)
    expect(screen).toContain(
      `${link._id}  Active, unpaid  10.00 EUR  seed@example.com  ${HOSTILE_TITLE_SHOWN}  REF-1`,
    )
    const raw = (await term.rawOutput()).toString('utf8')
    // Paid or not is a word; its colour only helps.
    expect(raw).toContain('\u001b[32mActive\u001b[39m, \u001b[2munpaid\u001b[22m')
    expect(rawControlBytes(withoutNewlineCr(Buffer.from(raw.replace(PAY_SGR, ''))))).toEqual([])
  })
})
