import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from '../helpers/cli.js'
import { runInProcess } from '../helpers/in-process.js'
import { COMMAND_IDS, commandTestFile, typed } from '../helpers/manifest.js'

/**
 * test/commands/ mirrors src/commands: each command of pay (oclif.manifest.json, as the build
 * wrote it) has its tests at test/commands/<topic>/<verb>.test.ts, and they run it, in this
 * process. A command added without tests fails here; so does a test file left behind by a
 * command that is gone or renamed.
 */

const relative = (file: string) => path.relative(ROOT, file)

/** The command's words as a test would pass them: `'links', 'create'` or `links create`. */
const invocation = (id: string) =>
  new RegExp(
    id
      .split(':')
      .map((word) => word.replace(/[-]/g, '\\-'))
      .join(`['"\`]?,?\\s*['"\`]?`),
  )

describe('every command of the manifest', () => {
  test.each(COMMAND_IDS.map((id) => [typed(id), id]))(
    'pay %s has its tests in test/commands, and they run it in process',
    (_, id) => {
      const file = commandTestFile(id)
      expect(fs.existsSync(file), `${relative(file)} is missing: write the tests of pay ${typed(id)}`).toBe(
        true,
      )
      const text = fs.readFileSync(file, 'utf8')
      expect(text, `${relative(file)} never runs a command in process`).toMatch(/\brunInProcess\b/)
      expect(text, `${relative(file)} never names pay ${typed(id)}`).toMatch(invocation(id))
      expect(text, `${relative(file)} asserts nothing`).toMatch(/\bexpect\(/)
    },
  )

  test('every file in test/commands is the tests of a command of the manifest', () => {
    const dir = path.join(ROOT, 'test/commands')
    const files = (fs.readdirSync(dir, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => path.join(dir, file))
      .filter((file) => file !== import.meta.filename)
    const expected = new Set(COMMAND_IDS.map(commandTestFile))
    expect(files.filter((file) => !expected.has(file)).map(relative)).toEqual([])
  })
})

describe.concurrent('habits', () => {
  test('-h shows the help of every command (exit 0)', async () => {
    const ids = COMMAND_IDS
    expect(ids.length).toBeGreaterThan(15)
    const results = await Promise.all(ids.map((id) => runInProcess([...id.split(':'), '-h'])))
    for (const [i, result] of results.entries()) {
      expect({ id: ids[i], code: result.code }).toEqual({ id: ids[i], code: 0 })
      expect(result.stdout).toContain(`$ pay ${ids[i].replace(/:/g, ' ')}`)
    }
  })
})
