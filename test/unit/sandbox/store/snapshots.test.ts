import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keyHash } from '../../../../src/sandbox/domain/business.js'
import { seedIn } from '../../../../src/sandbox/handlers/double/fixtures.js'
import {
  deleteSnapshot,
  listSnapshots,
  restoreSnapshot,
  SnapshotError,
  saveSnapshot,
} from '../../../../src/sandbox/store/snapshots.js'
import {
  KEY_A,
  KEY_B,
  readStore,
  startTestSandbox,
  type TestSandbox,
  tempDir,
  VALID_LINK,
} from '../../../helpers/sandbox.js'

/**
 * Snapshots at the store level: the whole database (every business, the clock,
 * the seeded names), names checked, no path outside snapshots/, no symbolic link followed, 0700
 * and 0600. The commands, and a restore under a server taking requests, are in
 * test/e2e/sandbox/snapshot.test.ts.
 */

const running: TestSandbox[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.close()))
})

const links = (dir: string, key = KEY_A) =>
  Object.keys(readStore(dir).businesses[keyHash(key)]?.payment_links ?? {}).sort()
const seedLinks = (dir: string, key: string, names: string[]) => {
  const done = seedIn(dir, key, { links: names.map((name) => ({ name, ...VALID_LINK })) })
  if (!done.ok) throw new Error(JSON.stringify(done.errors))
  return done.value.ids
}
const mode = (file: string) => fs.statSync(file).mode & 0o777
const expectReason = (act: () => unknown, reason: SnapshotError['reason'], message: string | RegExp) => {
  try {
    act()
  } catch (error) {
    expect(error).toBeInstanceOf(SnapshotError)
    expect((error as SnapshotError).reason).toBe(reason)
    expect((error as Error).message).toMatch(message)
    return
  }
  throw new Error('it did not throw')
}

describe('save and restore', () => {
  it('puts back every business, the seeded names and the clock; later records are gone', async () => {
    const dir = tempDir()
    seedLinks(dir, KEY_A, ['a1', 'a2'])
    seedLinks(dir, KEY_B, ['b1'])
    const sandbox = await startTestSandbox({ dir })
    running.push(sandbox)
    expect((await sandbox.request('POST', '/_sandbox/clock', { advance: '3d' })).status).toBe(200)
    const clock = (await sandbox.request('GET', '/_sandbox/clock')).body.data.offset_seconds
    expect(clock).toBe(3 * 86_400)
    const before = { a: links(dir, KEY_A), b: links(dir, KEY_B) }

    const saved = saveSnapshot(dir, 'base')
    expect(saved).toEqual({
      name: 'base',
      saved_at: fs.statSync(path.join(dir, 'snapshots', 'base.db')).mtime.toISOString(),
      bytes: fs.statSync(path.join(dir, 'snapshots', 'base.db')).size,
      replaced: false,
    })
    expect(mode(path.join(dir, 'snapshots'))).toBe(0o700)
    expect(mode(path.join(dir, 'snapshots', 'base.db'))).toBe(0o600)

    seedLinks(dir, KEY_A, ['a3'])
    await sandbox.request('POST', '/payment-links', VALID_LINK)
    await sandbox.b.call('DELETE', `/payment-links/${before.b[0]}`)
    await sandbox.request('POST', '/_sandbox/clock', { advance: '10d' })
    expect(links(dir, KEY_A)).toHaveLength(4)

    const restored = restoreSnapshot(dir, 'base')
    expect(restored.name).toBe('base')
    expect({ a: links(dir, KEY_A), b: links(dir, KEY_B) }).toEqual(before)
    // The running server's next request sees it: the list, its total, the clock.
    const listed = (await sandbox.request('GET', '/payment-links')).body.data
    expect(listed.total).toBe(2)
    expect(listed.data.map((l: { _id: string }) => l._id).sort()).toEqual(before.a)
    expect((await sandbox.request('GET', '/_sandbox/clock')).body.data.offset_seconds).toBe(clock)
    // The seeded names are the snapshot's: a3 is unknown again, a1 is known.
    const again = seedIn(
      dir,
      KEY_A,
      { links: ['a1', 'a3'].map((name) => ({ name, ...VALID_LINK })) },
      { once: true },
    )
    expect(again.ok && again.value.records.map((r) => [r.name, r.skipped])).toEqual([
      ['a1', true],
      ['a3', false],
    ])
    // The store passes its integrity check (readStore checks it) and saving again replaces.
    expect(saveSnapshot(dir, 'base').replaced).toBe(true)
  })

  it('list: by name, ignoring what is not a snapshot; delete removes one', () => {
    const dir = tempDir()
    expect(listSnapshots(dir)).toEqual([])
    saveSnapshot(dir, 'b-2')
    saveSnapshot(dir, 'a.1')
    const snapshots = path.join(dir, 'snapshots')
    fs.writeFileSync(path.join(snapshots, 'notes.txt'), '')
    fs.writeFileSync(path.join(snapshots, '.hidden.db'), '')
    fs.mkdirSync(path.join(snapshots, 'dir.db'))
    fs.symlinkSync(path.join(dir, 'store.db'), path.join(snapshots, 'link.db'))
    expect(listSnapshots(dir).map((s) => s.name)).toEqual(['a.1', 'b-2'])
    expect(deleteSnapshot(dir, 'a.1').name).toBe('a.1')
    expect(listSnapshots(dir).map((s) => s.name)).toEqual(['b-2'])
    expectReason(() => deleteSnapshot(dir, 'a.1'), 'missing', 'There is no snapshot "a.1".')
    expectReason(() => restoreSnapshot(dir, 'a.1'), 'missing', 'There is no snapshot "a.1".')
  })
})

describe('what a hostile name, link or file cannot do', () => {
  it('refuses names that are paths or hidden, before touching anything', () => {
    const dir = tempDir()
    for (const name of ['../x', '..', '.x', 'a/b', '/etc/passwd', '', 'a'.repeat(65), 'x\n', 'a b', 'é']) {
      expectReason(() => saveSnapshot(dir, name), 'name', 'cannot name a snapshot')
      expectReason(() => restoreSnapshot(dir, name), 'name', 'cannot name a snapshot')
      expectReason(() => deleteSnapshot(dir, name), 'name', 'cannot name a snapshot')
    }
    expect(fs.existsSync(path.join(dir, 'snapshots'))).toBe(false)
    expect(fs.readdirSync(dir)).toEqual([])
  })

  it('follows no symbolic link: snapshots/ as a link, a snapshot as a link', () => {
    const dir = tempDir()
    const elsewhere = tempDir()
    fs.symlinkSync(elsewhere, path.join(dir, 'snapshots'))
    expectReason(() => saveSnapshot(dir, 'base'), 'unusable', 'a symbolic link is not followed')
    expectReason(() => listSnapshots(dir), 'unusable', 'a symbolic link is not followed')
    expect(fs.readdirSync(elsewhere)).toEqual([])

    const other = tempDir()
    seedLinks(other, KEY_A, ['x'])
    saveSnapshot(other, 'theirs')
    fs.mkdirSync(path.join(dir, 'real'))
    fs.rmSync(path.join(dir, 'snapshots'))
    saveSnapshot(dir, 'mine')
    const target = path.join(other, 'snapshots', 'theirs.db')
    fs.symlinkSync(target, path.join(dir, 'snapshots', 'linked.db'))
    expectReason(() => restoreSnapshot(dir, 'linked'), 'unusable', 'a symbolic link is not followed')
    expectReason(() => deleteSnapshot(dir, 'linked'), 'unusable', 'a symbolic link is not followed')
    // Saving over a link does not write through it.
    const before = fs.readFileSync(target)
    expectReason(() => saveSnapshot(dir, 'linked'), 'unusable', 'is not a regular file')
    expect(fs.readFileSync(target).equals(before)).toBe(true)
    expect(links(dir)).toEqual([])
  })

  it('saving over a snapshot writes a new file renamed over it: a hard link to the old one keeps its bytes', () => {
    const dir = tempDir()
    seedLinks(dir, KEY_A, ['first'])
    saveSnapshot(dir, 'base')
    const file = path.join(dir, 'snapshots', 'base.db')
    const other = path.join(tempDir(), 'other.db')
    fs.linkSync(file, other)
    const before = fs.readFileSync(other)
    seedLinks(dir, KEY_A, ['second'])
    expect(saveSnapshot(dir, 'base').replaced).toBe(true)
    expect(fs.readFileSync(other).equals(before)).toBe(true)
    expect(fs.statSync(file).nlink).toBe(1)
  })

  it('refuses a snapshot that is not a sandbox database, the store left as it was', () => {
    const dir = tempDir()
    const ids = seedLinks(dir, KEY_A, ['kept'])
    saveSnapshot(dir, 'good')
    const snapshots = path.join(dir, 'snapshots')
    fs.writeFileSync(path.join(snapshots, 'text.db'), 'not a database at all, just text')
    expectReason(() => restoreSnapshot(dir, 'text'), 'unusable', 'The snapshot "text" is not a database.')
    expect(links(dir)).toEqual([ids.kept])
  })

  it('re-tightens a snapshots directory someone opened up', () => {
    const dir = tempDir()
    saveSnapshot(dir, 'base')
    fs.chmodSync(path.join(dir, 'snapshots'), 0o777)
    saveSnapshot(dir, 'next')
    expect(mode(path.join(dir, 'snapshots'))).toBe(0o700)
    expect(mode(path.join(dir, 'snapshots', 'next.db'))).toBe(0o600)
  })
})
