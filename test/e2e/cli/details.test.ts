import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCli, tempDir } from '../../helpers/cli.js'
import { seedLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'

/** Small things: `sandbox pay` of a paid link, `links qr --output` into a missing folder. */

let sandbox: TestSandbox

beforeAll(async () => {
  // Its first key is its directory's own, which the built-in profile sends with that PAY_SANDBOX_DIR.
  sandbox = await startTestSandbox({ ownKey: true })
})
afterAll(() => sandbox.close())

describe('sandbox pay of a link already paid says so', () => {
  test('through a running sandbox', async () => {
    const link = await seedLink(sandbox)
    const env = { PAY_SANDBOX_DIR: sandbox.dir, PAY_SANDBOX_PORT: new URL(sandbox.baseUrl).port }
    const first = await runCli(['sandbox', 'pay', link._id, '--columns', 'paid'], { env })
    expect(first).toMatchObject({
      code: 0,
      stdout: 'true\n',
      stderr: `Paid through the sandbox at ${sandbox.baseUrl}.\n`,
    })
    const again = await runCli(['sandbox', 'pay', link._id, '--columns', 'paid'], { env })
    expect(again).toMatchObject({
      code: 0,
      stdout: 'true\n',
      stderr: `Payment link ${link._id} was already paid: nothing changed.\n`,
    })
  })

  test('in the local store (no server)', async () => {
    const env = { PAY_SANDBOX_DIR: tempDir('pay-paid-local-') }
    const made = await runCli(
      [
        '-p',
        'sandbox',
        'links',
        'create',
        '--email',
        'a@b.co',
        '--currency',
        'EUR',
        '--amount',
        '1',
        '--title',
        'T',
        '-q',
      ],
      { env },
    )
    const id = made.stdout.trim()
    const first = await runCli(['sandbox', 'pay', id, '-q'], { env })
    expect(first).toMatchObject({ code: 0, stdout: `${id}\n` })
    const again = await runCli(['sandbox', 'pay', id, '--columns', 'paid'], { env })
    expect(again).toMatchObject({
      code: 0,
      stdout: 'true\n',
      stderr: `Payment link ${id} was already paid: nothing changed.\n`,
    })
  })
})

describe('links qr --output into a folder that is not there', () => {
  test('names the path the user gave, not a temporary file; writes nothing', async () => {
    const link = await seedLink(sandbox)
    const cwd = tempDir('pay-qr-')
    const file = path.join(cwd, 'missing', 'dir', 'x.png')
    const result = await runCli(['links', 'qr', link._id, '--output', file], { env: sandbox.env })
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `Error: --output ${file}: cannot write it: the folder ${path.dirname(file)} does not exist.\n`,
    })
    expect(result.stderr).not.toContain('.partial')
    expect(fs.readdirSync(cwd)).toEqual([])
  })
})
