import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../helpers/cli.js'
import { freshConfigDir, writeConfig } from '../../../helpers/config-files.js'
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

test('the global flags: -p sandbox lists as without it; another profile is exit 2, naming it, nothing read', async () => {
  const dir = tempDir('pay-sandbox-')
  const config = freshConfigDir()
  writeConfig(config, {
    profiles: { live: { api_key: 'sk_live_SnapshotsNotHere1', base_url: 'https://live.example' } },
  })
  const env = { PAY_SANDBOX_DIR: dir, PAY_CONFIG_DIR: config }
  expect((await runInProcess(['sandbox', 'snapshot', 'save', 'one'], { env })).code).toBe(0)
  const plain = await runInProcess(['sandbox', 'snapshot', 'list', '-q'], { env })
  expect(plain).toMatchObject({ code: 0, stdout: 'one\n', stderr: '' })
  expect(
    await runInProcess(['-p', 'sandbox', 'sandbox', 'snapshot', 'list', '-q', '--timeout', '3'], { env }),
  ).toEqual(plain)
  expect(await runInProcess(['-p', 'live', 'sandbox', 'snapshot', 'list'], { env })).toEqual({
    code: 2,
    signal: null,
    stdout: '',
    stderr:
      'Error: `pay sandbox snapshot list` acts on your local sandbox, and profile "live" is not it: https://live.example is not on this machine.\n' +
      `Use -p sandbox, or leave -p and --base-url out: your local sandbox keeps its store in ${dir}.\n`,
  })
})
