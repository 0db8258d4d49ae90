import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'
import { VALID_LINK } from '../../../helpers/sandbox.js'

/**
 * `pay sandbox snapshot save|restore|list|delete NAME`, the whole round on the
 * local store: exact output, exit codes. A restore under a running server:
 * test/e2e/sandbox/snapshot.test.ts; the store-level rules (links, modes, names):
 * test/unit/sandbox/store/snapshots.test.ts.
 */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('pay sandbox snapshot', () => {
  test('save, list, restore, delete: exact output, --json, exit 2 for a bad name, 5 for none', async () => {
    const dir = tempDir('pay-sandbox-')
    const env = { PAY_SANDBOX_DIR: dir }
    const file = path.join(dir, 'snapshots', 'base.db')

    const saved = await runInProcess(['sandbox', 'snapshot', 'save', 'base'], { env })
    expect(saved.code).toBe(0)
    const stat = fs.statSync(file)
    expect(saved.stdout).toBe(`name\tbase\nsaved_at\t${stat.mtime.toISOString()}\nbytes\t${stat.size}\n`)
    expect(saved.stderr).toBe(`Saved the sandbox database of ${dir} as snapshot "base".\n`)
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700)
    expect(stat.mode & 0o777).toBe(0o600)

    const replaced = await runInProcess(['sandbox', 'snapshot', 'save', 'base'], { env })
    expect(replaced.stderr).toBe(
      `Saved the sandbox database of ${dir} as snapshot "base" (it replaced the one of that name).\n`,
    )
    const json = await runInProcess(['sandbox', 'snapshot', 'save', 'next', '--json'], { env })
    expect(json).toMatchObject({ code: 0, stderr: '' })
    const next = JSON.parse(json.stdout)
    expect(next).toEqual({ name: 'next', saved_at: next.saved_at, bytes: next.bytes })
    expect(next.saved_at).toMatch(ISO)

    const listed = await runInProcess(['sandbox', 'snapshot', 'list', '--json'], { env })
    expect(listed.code).toBe(0)
    expect(JSON.parse(listed.stdout).map((s: { name: string }) => s.name)).toEqual(['base', 'next'])
    const quiet = await runInProcess(['sandbox', 'snapshot', 'list', '-q'], { env })
    expect(quiet.stdout).toBe('base\nnext\n')

    const made = await runInProcess(['-p', 'sandbox', 'links', 'create', ...linkFlags(), '--json'], {
      env: { ...env, PAY_SANDBOX_PORT: '1' },
    })
    expect(made.code).toBe(0)
    const restored = await runInProcess(['sandbox', 'snapshot', 'restore', 'base'], { env })
    expect(restored.code).toBe(0)
    const savedAt = fs.statSync(file).mtime.toISOString()
    expect(restored.stdout).toBe(`name\tbase\nsaved_at\t${savedAt}\nbytes\t${fs.statSync(file).size}\n`)
    expect(restored.stderr).toBe(
      `Restored snapshot "base" (saved ${savedAt}) into the sandbox database of ${dir}.\n`,
    )
    const list = await runInProcess(['-p', 'sandbox', 'links', 'list', '--json'], {
      env: { ...env, PAY_SANDBOX_PORT: '1' },
    })
    expect(JSON.parse(list.stdout)).toEqual([])

    const none = await runInProcess(['sandbox', 'snapshot', 'restore', 'nope'], { env })
    expect(none).toMatchObject({
      code: 5,
      stdout: '',
      stderr: 'Error: There is no snapshot "nope".\n`pay sandbox snapshot list` shows them.\n',
    })
    for (const name of ['../base', '.hidden', 'a/b']) {
      const bad = await runInProcess(['sandbox', 'snapshot', 'restore', name], { env })
      expect(bad).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `Error: "${name}" cannot name a snapshot: use letters, digits, ".", "_" and "-" (at most 64, a letter or digit first).\n`,
      })
    }
    const deleted = await runInProcess(['sandbox', 'snapshot', 'delete', 'next'], { env })
    expect(deleted.code).toBe(0)
    expect(deleted.stderr).toBe(`Deleted snapshot "next" of ${dir}.\n`)
    expect(fs.readdirSync(path.dirname(file))).toEqual(['base.db'])
    expect((await runInProcess(['sandbox', 'snapshot', 'delete', 'next'], { env })).code).toBe(5)
  })
})

function linkFlags(): string[] {
  return Object.entries(VALID_LINK).flatMap(([key, value]) => [`--${key}`, value])
}
