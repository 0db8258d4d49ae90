import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import {
  HOSTILE_TITLE,
  HOSTILE_TITLE_SHOWN,
  type Json,
  rawControlBytes,
  seedLink,
} from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/**
 * Server text with control characters (an SGR escape, BEL, CR and the C1 CSI U+009B) never
 * reaches stdout raw outside JSON: it is shown in caret notation. JSON keeps it exact.
 * (The table on a real terminal: test/e2e/links/get-terminal.test.ts.)
 */

let sandbox: TestSandbox
let link: Json

beforeAll(async () => {
  sandbox = await startTestSandbox()
  link = await seedLink(sandbox, {
    title: HOSTILE_TITLE,
    description: 'tab\there, newline\nthere, back\\slash',
    reference: '\u001b]0;owned\u0007',
  })
  expect(link.title).toBe(HOSTILE_TITLE)
})

afterAll(async () => {
  await sandbox.close()
})

const pay = (...args: string[]) => runCli(args, { env: sandbox.env })

describe.concurrent('control characters from the server', () => {
  test('links get, TSV: caret notation, no raw control byte', async () => {
    const result = await pay('links', 'get', link._id)
    expect(result.code).toBe(0)
    expect(rawControlBytes(Buffer.from(result.stdout))).toEqual([])
    const lines = result.stdout.split('\n')
    expect(lines).toContain(`title\t${HOSTILE_TITLE_SHOWN}`)
    // In a TSV cell, tab and newline are escaped so that the row stays one row.
    expect(lines).toContain('description\ttab\\there, newline\\nthere, back\\\\slash')
    expect(lines).toContain('reference\t^[]0;owned^G')
  })

  test('links list, TSV: caret notation, no raw control byte', async () => {
    const result = await pay('links', 'list')
    expect(result.code).toBe(0)
    expect(rawControlBytes(Buffer.from(result.stdout))).toEqual([])
    expect(result.stdout).toBe(
      `${link._id}\tActive\tfalse\t10\tEUR\tseed@example.com\t${HOSTILE_TITLE_SHOWN}\t^[]0;owned^G\t${link.created_at}\n`,
    )
  })

  test('--columns with a field holding controls', async () => {
    const result = await pay('links', 'list', '--columns', 'reference,title')
    expect(result.stdout).toBe(`^[]0;owned^G\t${HOSTILE_TITLE_SHOWN}\n`)
  })

  test('links get --json: the exact data, C1 escaped as \\u009b, no raw control byte', async () => {
    const result = await pay('links', 'get', link._id, '--json')
    expect(result.code).toBe(0)
    expect(rawControlBytes(Buffer.from(result.stdout))).toEqual([])
    const parsed = JSON.parse(result.stdout)
    expect(parsed).toEqual(link)
    expect(parsed.title).toBe(HOSTILE_TITLE)
    expect(result.stdout).toContain(String.raw`"title": "Red\u001b[31mAlert\u0007Bell\rReturn\u009bC1 end"`)
  })

  test('links list --json: the exact data', async () => {
    const result = await pay('links', 'list', '--json')
    expect(rawControlBytes(Buffer.from(result.stdout))).toEqual([])
    expect(JSON.parse(result.stdout)).toEqual([link])
  })

  test('an id holding control characters is left out, named without a raw control byte, never sent', async () => {
    // A dry run reports no failure: the id is named as left out, exit 0.
    const dry = await pay('links', 'delete', 'bad\u001b[2Jid', '--dry-run')
    expect(dry.code).toBe(0)
    expect(rawControlBytes(Buffer.from(dry.stderr))).toEqual([])
    expect(dry.stdout).toBe('')
    expect(dry.stderr).toBe(
      'Warning: Left out an entry that is not an id: "bad\\u001b[2Jid".\n' +
        'Dry run: nothing was changed.\n',
    )
    const result = await pay('links', 'delete', 'bad\u001b[2Jid', '--yes')
    expect(result.code).toBe(2)
    expect(rawControlBytes(Buffer.from(result.stderr))).toEqual([])
    expect(rawControlBytes(Buffer.from(result.stdout))).toEqual([])
    expect(result.stderr).toBe(
      'Warning: Left out an entry that is not an id: "bad\\u001b[2Jid".\n' +
        'Of 1 payment link: 0 deleted, 1 not deleted (1 invalid).\n' +
        'Error: "bad\\u001b[2Jid" is not an id: it contains a control character.\n',
    )
  })
})
