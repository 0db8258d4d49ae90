import type { ChildProcess } from 'node:child_process'
import path from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../../helpers/cli.js'
import { bundleEntry, exited, killStarted, startNode, startSandboxProcess } from '../../helpers/processes.js'
import { clientFor, OBJECT_ID, readStore, tempDir, VALID_LINK } from '../../helpers/sandbox.js'

/**
 * The sandbox as a separate process, killed with SIGKILL (test/helpers/sandbox-main.ts bundled
 * from source).
 */
let mainScript: string
beforeAll(async () => {
  const main = await bundleEntry('test/helpers/sandbox-main.ts')
  mainScript = main.file
  // The sandbox server needs nothing of pay outside src/sandbox and the ground of src/shared (libsql
  // stays outside the bundle).
  expect(main.inputs.filter((input) => !/^src\/(sandbox|shared)\//.test(input))).toEqual([
    'test/helpers/sandbox-main.ts',
  ])
})
afterEach(killStarted)

const startMain = (args: string[]) => startSandboxProcess([mainScript, ...args])

describe('kill -9', () => {
  // Killed early, and once thousands of creates were answered: by then the server commits its
  // writes in groups of many (store/transactions.ts), none of which may be answered before its commit.
  it.each([
    [50, 150, 2000],
    [64, 3000, 8000],
  ])(
    '%i clients, killed once %i creates were answered: every one is kept, and the restart is not blocked',
    async (clients, killAt, sent) => {
      const dir = tempDir()
      const first = await startMain(['--dir', dir, '--port', '0'])
      // Given no key, it serves its directory's own.
      const client = clientFor(first.baseUrl, first.key)
      const acknowledged: Record<string, unknown>[] = []
      let failures = 0
      let next = 0
      const worker = async () => {
        while (next < sent) {
          const reference = `burst-${next++}`
          try {
            const answer = await client.call('POST', '/payment-links', { ...VALID_LINK, reference })
            if (answer.status === 200) acknowledged.push(answer.json.data)
            if (acknowledged.length === killAt) first.child.kill('SIGKILL')
          } catch {
            failures++
            if (failures > clients) return
          }
        }
      }
      await Promise.all(Array.from({ length: clients }, worker))
      await exited(first.child)
      expect(first.child.signalCode).toBe('SIGKILL')
      expect(acknowledged.length).toBeGreaterThanOrEqual(killAt)
      expect(failures).toBeGreaterThan(0) // the kill did land mid-burst

      readStore(dir) // passes SQLite's integrity check
      const second = await startMain(['--dir', dir, '--port', '0'])
      const again = clientFor(second.baseUrl, second.key)
      // Not blocked: a write lock the killed process held on would answer 503 after the busy timeout.
      expect((await again.call('POST', '/payment-links', VALID_LINK)).status).toBe(200)

      const answers = []
      // 50 at a time: thousands at once would pass the server's cap of connections.
      for (let from = 0; from < acknowledged.length; from += 50) {
        const some = acknowledged.slice(from, from + 50)
        answers.push(
          ...(await Promise.all(
            some.map((link) => again.call('GET', `/payment-links/${link._id as string}`)),
          )),
        )
      }
      expect(answers.map((answer) => answer.status)).toEqual(acknowledged.map(() => 200))
      // Each as first answered; its page now on the port of the sandbox that serves it.
      expect(answers.map((answer) => answer.json.data)).toEqual(
        acknowledged.map((link) => ({
          ...link,
          payment_url: `${second.baseUrl}/checkout/pay?id=${link._id as string}`,
        })),
      )
      const total = (await again.call('GET', '/payment-links')).json.data.total
      expect(total).toBeGreaterThanOrEqual(acknowledged.length + 1)
    },
  )

  it('a writer killed inside its transaction blocks nothing, and what it wrote is not there', async () => {
    const dir = tempDir()
    const { baseUrl, key } = await startMain(['--dir', dir, '--port', '0'])
    const client = clientFor(baseUrl, key)
    const before = (await client.call('POST', '/payment-links', VALID_LINK)).json.data
    const holder = await holdWriteLock(dir)
    // Reads go on while another process writes (WAL)…
    expect((await client.call('GET', `/payment-links/${before._id}`)).json.data).toEqual(before)
    holder.kill('SIGKILL')
    await exited(holder)
    // …and a write right after the kill goes through: a lock held on would answer 503 after 5 s.
    const answer = await client.call('POST', '/payment-links', VALID_LINK)
    expect(answer.status).toBe(200)
    expect(answer.json.data._id).toMatch(OBJECT_ID)
    const listed = await client.call('GET', '/payment-links')
    expect(listed.json.data.data.map((link: { _id: string }) => link._id)).toEqual([
      answer.json.data._id,
      before._id,
    ])
  })

  it('answers 503 with Retry-After when another process holds the database past the busy timeout', async () => {
    const dir = tempDir()
    const { baseUrl, key } = await startMain(['--dir', dir, '--port', '0'])
    const client = clientFor(baseUrl, key)
    expect((await client.call('POST', '/payment-links', VALID_LINK)).status).toBe(200)
    await holdWriteLock(dir)
    const answer = await client.call('POST', '/payment-links', VALID_LINK)
    expect(answer.status).toBe(503)
    expect(answer.headers.get('retry-after')).toBe('1')
    expect(answer.json).toEqual({ message: 'The sandbox store is busy; try again.' })
    expect((await client.call('GET', '/payment-links')).json.data.total).toBe(1)
  })
})

/**
 * A process that opens the sandbox's database, takes the write lock (BEGIN IMMEDIATE), inserts a
 * row and keeps the transaction open until it is killed.
 */
async function holdWriteLock(dir: string): Promise<ChildProcess> {
  const script = `
    const Database = require(${JSON.stringify(path.join(ROOT, 'node_modules', 'libsql'))})
    const db = new Database(${JSON.stringify(path.join(dir, 'store.db'))})
    db.exec('BEGIN IMMEDIATE')
    db.exec("INSERT INTO businesses (key_hash, business_id) VALUES ('uncommitted', 1)")
    db.exec("INSERT INTO payment_links (business, id, record) VALUES (last_insert_rowid(), 'x', '{}')")
    process.stdout.write('holding\\n')
    setInterval(() => {}, 1000)
  `
  const holder = startNode(['-e', script])
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.once('data', () => resolve())
    holder.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)))
  })
  return holder
}
