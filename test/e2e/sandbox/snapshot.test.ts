import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { BIN, cleanEnv, runCli, tempDir } from '../../helpers/cli.js'
import { killStarted, startSandboxProcess } from '../../helpers/processes.js'
import { clientFor, KEY_A, VALID_LINK } from '../../helpers/sandbox.js'

/**
 * `pay sandbox snapshot save|restore|list|delete NAME` (issue 25 item 4) as bin/run.js: exact
 * output, exit codes, and a restore while a sandbox server answers clients that never stop:
 * every answer is the old state or the new one, never a mix. The store-level rules (links,
 * modes, names) are in test/unit/sandbox/snapshots.test.ts.
 */

afterEach(killStarted)

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('pay sandbox snapshot', () => {
  test('save, list, restore, delete: exact output, --json, exit 2 for a bad name, 5 for none', async () => {
    const dir = tempDir('pay-sandbox-')
    const env = { PAY_SANDBOX_DIR: dir }
    const file = path.join(dir, 'snapshots', 'base.db')

    const saved = await runCli(['sandbox', 'snapshot', 'save', 'base'], { env })
    expect(saved.code).toBe(0)
    const stat = fs.statSync(file)
    expect(saved.stdout).toBe(`name\tbase\nsaved_at\t${stat.mtime.toISOString()}\nbytes\t${stat.size}\n`)
    expect(saved.stderr).toBe(`Saved the sandbox database of ${dir} as snapshot "base".\n`)
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700)
    expect(stat.mode & 0o777).toBe(0o600)

    const replaced = await runCli(['sandbox', 'snapshot', 'save', 'base'], { env })
    expect(replaced.stderr).toBe(
      `Saved the sandbox database of ${dir} as snapshot "base" (it replaced the one of that name).\n`,
    )
    const json = await runCli(['sandbox', 'snapshot', 'save', 'next', '--json'], { env })
    expect(json).toMatchObject({ code: 0, stderr: '' })
    const next = JSON.parse(json.stdout)
    expect(next).toEqual({ name: 'next', saved_at: next.saved_at, bytes: next.bytes })
    expect(next.saved_at).toMatch(ISO)

    const listed = await runCli(['sandbox', 'snapshot', 'list', '--json'], { env })
    expect(listed.code).toBe(0)
    expect(JSON.parse(listed.stdout).map((s: { name: string }) => s.name)).toEqual(['base', 'next'])
    const quiet = await runCli(['sandbox', 'snapshot', 'list', '-q'], { env })
    expect(quiet.stdout).toBe('base\nnext\n')

    const made = await runCli(['-p', 'sandbox', 'links', 'create', ...linkFlags(), '--json'], {
      env: { ...env, PAY_SANDBOX_PORT: '1' },
    })
    expect(made.code).toBe(0)
    const restored = await runCli(['sandbox', 'snapshot', 'restore', 'base'], { env })
    expect(restored.code).toBe(0)
    const savedAt = fs.statSync(file).mtime.toISOString()
    expect(restored.stdout).toBe(`name\tbase\nsaved_at\t${savedAt}\nbytes\t${fs.statSync(file).size}\n`)
    expect(restored.stderr).toBe(
      `Restored snapshot "base" (saved ${savedAt}) into the sandbox database of ${dir}.\n`,
    )
    const list = await runCli(['-p', 'sandbox', 'links', 'list', '--json'], {
      env: { ...env, PAY_SANDBOX_PORT: '1' },
    })
    expect(JSON.parse(list.stdout)).toEqual([])

    const none = await runCli(['sandbox', 'snapshot', 'restore', 'nope'], { env })
    expect(none).toMatchObject({
      code: 5,
      stdout: '',
      stderr: 'Error: There is no snapshot "nope".\n`pay sandbox snapshot list` shows them.\n',
    })
    for (const name of ['../base', '.hidden', 'a/b']) {
      const bad = await runCli(['sandbox', 'snapshot', 'restore', name], { env })
      expect(bad).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `Error: "${name}" cannot name a snapshot: use letters, digits, ".", "_" and "-" (at most 64, a letter or digit first).\n`,
      })
    }
    const deleted = await runCli(['sandbox', 'snapshot', 'delete', 'next'], { env })
    expect(deleted.code).toBe(0)
    expect(deleted.stderr).toBe(`Deleted snapshot "next" of ${dir}.\n`)
    expect(fs.readdirSync(path.dirname(file))).toEqual(['base.db'])
    expect((await runCli(['sandbox', 'snapshot', 'delete', 'next'], { env })).code).toBe(5)
  })

  test('restore under a server taking requests: every answer is the old state or the new one', async () => {
    const dir = tempDir('pay-sandbox-')
    const env = cleanEnv({ PAY_SANDBOX_DIR: dir })
    const server = await startSandboxProcess(
      [BIN, 'sandbox', 'start', '--port', '0', '--json', '--quiet'],
      env,
    )
    const api = clientFor(server.baseUrl, KEY_A)
    const create = async (n: number) => {
      const ids: string[] = []
      for (let i = 0; i < n; i++) {
        const answer = await api.call('POST', '/payment-links', VALID_LINK)
        expect(answer.status).toBe(200)
        ids.push(answer.json.data._id)
      }
      return ids
    }
    const small = (await create(10)).sort()
    expect((await runCli(['sandbox', 'snapshot', 'save', 'small'], { env })).code).toBe(0)
    const big = [...small, ...(await create(15))].sort()
    expect((await runCli(['sandbox', 'snapshot', 'save', 'big'], { env })).code).toBe(0)

    const states = new Map([
      [small.join(), 'small'],
      [big.join(), 'big'],
    ])
    const seen: string[] = []
    let stop = false
    const hammer = async () => {
      while (!stop) {
        const answer = await api.call('GET', '/payment-links?per_page=500')
        expect(answer.status).toBe(200)
        const page = answer.json.data
        const ids = page.data.map((link: { _id: string }) => link._id).sort()
        expect(page.total).toBe(ids.length)
        const state = states.get(ids.join())
        if (!state) throw new Error(`a mixed state: ${ids.length} links`)
        seen.push(state)
      }
    }
    const clients = [hammer(), hammer(), hammer()]
    const order = ['small', 'big', 'small', 'big', 'small']
    for (const name of order) {
      const restored = await runCli(['sandbox', 'snapshot', 'restore', name], { env })
      expect(restored.code).toBe(0)
      // The server's next request sees what was restored.
      const after = (await api.call('GET', '/payment-links?per_page=500')).json.data
      expect(after.total).toBe(name === 'small' ? 10 : 25)
    }
    stop = true
    await Promise.all(clients)
    expect(seen.length).toBeGreaterThan(0)
    expect(new Set(seen)).toEqual(new Set(['small', 'big']))
    server.child.kill('SIGTERM')
  })
})

function linkFlags(): string[] {
  return Object.entries(VALID_LINK).flatMap(([key, value]) => [`--${key}`, value])
}
