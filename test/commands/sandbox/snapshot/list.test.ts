import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { runInProcess } from '../../../helpers/in-process.js'

/** `pay sandbox snapshot list`: the snapshots of the sandbox's directory, by name. */

describe('sandbox snapshot list', () => {
  test('none: nothing printed, exit 0; --json []', async () => {
    const env = { PAY_SANDBOX_DIR: tempDir('pay-sandbox-') }
    expect(await runInProcess(['sandbox', 'snapshot', 'list'], { env })).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: '',
    })
    expect(await runInProcess(['sandbox', 'snapshot', 'list', '--json'], { env })).toMatchObject({
      code: 0,
      stdout: '[]\n',
    })
  })

  test('piped: name, saved_at and bytes per line, in name order; -q the names', async () => {
    const dir = tempDir('pay-sandbox-')
    const env = { PAY_SANDBOX_DIR: dir }
    for (const name of ['zeta', 'alpha'])
      expect((await runInProcess(['sandbox', 'snapshot', 'save', name], { env })).code).toBe(0)
    const row = (name: string) => {
      const stat = fs.statSync(path.join(dir, 'snapshots', `${name}.db`))
      return `${name}\t${stat.mtime.toISOString()}\t${stat.size}\n`
    }
    expect(await runInProcess(['sandbox', 'snapshot', 'list'], { env })).toEqual({
      code: 0,
      signal: null,
      stdout: row('alpha') + row('zeta'),
      stderr: '',
    })
    expect((await runInProcess(['sandbox', 'snapshot', 'list', '-q'], { env })).stdout).toBe('alpha\nzeta\n')
  })
})
