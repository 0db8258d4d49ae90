import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'

/** `pay sandbox snapshot delete NAME`. */

describe('sandbox snapshot delete', () => {
  test('--json prints the snapshot deleted; its file is gone, the others kept', async () => {
    const dir = tempDir('pay-sandbox-')
    const env = { PAY_SANDBOX_DIR: dir }
    const saved = await Promise.all(
      ['keep', 'drop'].map(async (name) => {
        const result = await runInProcess(['sandbox', 'snapshot', 'save', name, '--json'], { env })
        return JSON.parse(result.stdout)
      }),
    )
    const deleted = await runInProcess(['sandbox', 'snapshot', 'delete', 'drop', '--json'], { env })
    expect(deleted).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(deleted.stdout)).toEqual(saved[1])
    expect(fs.readdirSync(path.join(dir, 'snapshots'))).toEqual(['keep.db'])
  })

  test('a name that is none: exit 2; no such snapshot: exit 5; nothing deleted', async () => {
    const dir = tempDir('pay-sandbox-')
    const env = { PAY_SANDBOX_DIR: dir }
    expect((await runInProcess(['sandbox', 'snapshot', 'save', 'x'], { env })).code).toBe(0)
    expect(await runInProcess(['sandbox', 'snapshot', 'delete', '../x'], { env })).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'Error: "../x" cannot name a snapshot: use letters, digits, ".", "_" and "-" (at most 64, a letter or digit first).\n',
    })
    expect(await runInProcess(['sandbox', 'snapshot', 'delete', 'nope'], { env })).toMatchObject({
      code: 5,
      stdout: '',
      stderr: 'Error: There is no snapshot "nope".\n`pay sandbox snapshot list` shows them.\n',
    })
    expect(fs.readdirSync(path.join(dir, 'snapshots'))).toEqual(['x.db'])
  })
})
