/**
 * Snapshots of the sandbox database: `save` copies the whole database, every business and the
 * clock, into `$PAY_SANDBOX_DIR/snapshots/NAME.db`; `restore` puts it back.
 *
 * - save is SQLite's own consistent online copy, `VACUUM INTO` (libsql's `Database.backup()` is
 *   not implemented): one read transaction, so a server writing meanwhile is not stopped and the
 *   copy is one commit's state. It is written under a temporary name (0600, created with O_EXCL),
 *   then renamed into place, so a snapshot is never seen half written.
 * - restore ATTACHes the snapshot and replaces the rows of every table in one write transaction:
 *   a server on the same database (WAL) reads the old state or the new one, never a mix, and its
 *   next request after the commit sees the snapshot. What stays: the secret the customer pages
 *   sign with (`secrets`), the record of imported store.json files (`imports`), and the
 *   businesses' signature keys and webhook endpoints (settings an app and `pay sandbox listen`
 *   rely on; the outbox of notifications is data, restored with the rest).
 * - The directory is 0700 and each file 0600; names are checked (no path, no dot first), and a
 *   symbolic link, in place of the directory or of a snapshot, is refused, never followed.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import {
  type Database,
  loadLibsql,
  migrate,
  openConnection,
  rollBack,
  SQLITE_MAGIC,
  STORE_FILE,
} from './database.js'
import { isBusy } from './errors.js'
import { errorCode } from './files.js'
import { MIGRATIONS } from './schema.js'

export const SNAPSHOTS_DIR = 'snapshots'

/** A snapshot's name: letters, digits, `.`, `_`, `-`, at most 64, a letter or digit first. */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** Tables a restore leaves as they are: they are the directory's, not its data. */
const KEPT_TABLES = new Set(['secrets', 'imports', 'signature_keys', 'webhook_endpoints'])
/** Restored last: the triggers of the tables before them write into these (counts, schedules). */
const LAST_TABLES = ['businesses', 'schedules']

export interface SnapshotInfo {
  name: string
  /** When it was saved (the file's modification time), ISO 8601. */
  saved_at: string
  bytes: number
}

/** What went wrong: a name that cannot be one (usage), no such snapshot, or one that cannot be used. */
export class SnapshotError extends Error {
  constructor(
    readonly reason: 'name' | 'missing' | 'unusable',
    message: string,
  ) {
    super(message)
    this.name = 'SnapshotError'
  }
}

const ownUid = () => (typeof process.getuid === 'function' ? process.getuid() : undefined)

function checkName(name: string): void {
  if (!SNAPSHOT_NAME.test(name)) {
    throw new SnapshotError(
      'name',
      `"${name}" cannot name a snapshot: use letters, digits, ".", "_" and "-" (at most 64, a letter or digit first).`,
    )
  }
}

/** The snapshots directory of `dir`, made 0700 when missing; a link or another user's directory is refused. */
function snapshotsDir(dir: string, create: boolean): string | undefined {
  const snapshots = path.join(dir, SNAPSHOTS_DIR)
  if (create) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    try {
      fs.mkdirSync(snapshots, { mode: 0o700 })
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error
    }
  }
  let stat: fs.Stats
  try {
    stat = fs.lstatSync(snapshots)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined
    throw error
  }
  if (stat.isSymbolicLink() || !stat.isDirectory()) {
    throw new SnapshotError('unusable', `${snapshots} is not a directory (a symbolic link is not followed).`)
  }
  const uid = ownUid()
  if (uid !== undefined && stat.uid !== uid) {
    throw new SnapshotError('unusable', `${snapshots} belongs to another user.`)
  }
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) fs.chmodSync(snapshots, 0o700)
  return snapshots
}

/** The file of snapshot `name`, checked to be a regular file of this user; SnapshotError when there is none. */
function snapshotFile(dir: string, name: string): string {
  checkName(name)
  const snapshots = snapshotsDir(dir, false)
  const file = snapshots && path.join(snapshots, `${name}.db`)
  let stat: fs.Stats | undefined
  try {
    stat = file === undefined ? undefined : fs.lstatSync(file)
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error
  }
  if (!file || !stat) throw new SnapshotError('missing', `There is no snapshot "${name}".`)
  if (stat.isSymbolicLink() || !stat.isFile()) {
    throw new SnapshotError(
      'unusable',
      `The snapshot "${name}" is not a regular file (a symbolic link is not followed).`,
    )
  }
  const uid = ownUid()
  if (uid !== undefined && stat.uid !== uid) {
    throw new SnapshotError('unusable', `The snapshot "${name}" belongs to another user.`)
  }
  return file
}

/**
 * A connection of its own to the store of `dir` (the directory made 0700 when missing), opened as
 * the store opens it: created, migrated and store.json imported, so the tables are this pay's.
 */
function openStore(dir: string): Database {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  return openConnection(path.join(dir, STORE_FILE), dir, []).db
}

/**
 * Saves the whole database of `dir` as snapshot `name` (replacing one of that name). Returns it,
 * and whether it replaced another.
 */
export function saveSnapshot(dir: string, name: string): SnapshotInfo & { replaced: boolean } {
  checkName(name)
  const snapshots = snapshotsDir(dir, true) as string
  const file = path.join(snapshots, `${name}.db`)
  let replaced = false
  try {
    const stat = fs.lstatSync(file)
    if (stat.isSymbolicLink() || !stat.isFile()) {
      throw new SnapshotError('unusable', `${file} is not a regular file: it is left as it is.`)
    }
    replaced = true
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error
  }
  const temporary = path.join(snapshots, `.${name}.${randomBytes(6).toString('hex')}.tmp`)
  const flags =
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0)
  fs.closeSync(fs.openSync(temporary, flags, 0o600))
  try {
    const db = openStore(dir)
    try {
      db.prepare('VACUUM INTO ?').run(temporary)
    } finally {
      db.close()
    }
    fs.renameSync(temporary, file)
  } catch (error) {
    fs.rmSync(temporary, { force: true })
    throw error
  }
  return { ...infoOf(name, fs.statSync(file)), replaced }
}

/**
 * Puts snapshot `name` back into the database of `dir`: every table's rows replaced by the
 * snapshot's in one write transaction (but `secrets` and `imports`). Safe while a server runs on
 * the directory: its next request sees the snapshot. Returns the snapshot restored.
 */
export function restoreSnapshot(dir: string, name: string): SnapshotInfo {
  const file = snapshotFile(dir, name)
  const info = infoOf(name, fs.statSync(file))
  let source = file
  let upgraded: string | undefined
  const version = snapshotVersion(file, name)
  if (version > MIGRATIONS.length) {
    throw new SnapshotError(
      'unusable',
      `The snapshot "${name}" was saved by a newer pay (schema version ${version}; this pay knows up to ${MIGRATIONS.length}).`,
    )
  }
  if (version < MIGRATIONS.length) {
    // An older pay's snapshot: a copy of it is brought up to this pay's tables, the file left as it is.
    upgraded = `${file}.${randomBytes(6).toString('hex')}.upgrade`
    fs.copyFileSync(file, upgraded, fs.constants.COPYFILE_EXCL)
    fs.chmodSync(upgraded, 0o600)
    const old = new (loadLibsql())(upgraded)
    try {
      migrate(old, upgraded)
    } finally {
      old.close()
    }
    source = upgraded
  }
  try {
    const db = openStore(dir)
    try {
      db.prepare('ATTACH DATABASE ? AS snapshot').run(source)
      try {
        replaceAll(db, name)
      } finally {
        db.exec('DETACH DATABASE snapshot')
      }
    } finally {
      db.close()
    }
  } finally {
    if (upgraded) fs.rmSync(upgraded, { force: true })
  }
  return info
}

/** Every table of the store (but KEPT_TABLES) emptied and filled from the attached snapshot, in one transaction. */
function replaceAll(db: Database, name: string): void {
  const tablesOf = (schema: string) =>
    (
      db
        .prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
        .all() as {
        name: string
      }[]
    ).map((row) => row.name)
  const present = new Set(tablesOf('snapshot'))
  const tables = tablesOf('main').filter((table) => !KEPT_TABLES.has(table))
  const missing = tables.filter((table) => !present.has(table))
  if (missing.length > 0) {
    throw new SnapshotError(
      'unusable',
      `The snapshot "${name}" is not a sandbox database: it has no ${missing.join(', ')}.`,
    )
  }
  const ordered = [
    ...tables.filter((t) => !LAST_TABLES.includes(t)),
    ...LAST_TABLES.filter((t) => tables.includes(t)),
  ]
  db.exec('BEGIN IMMEDIATE')
  try {
    // The tables reference each other (payment_links -> businesses): checked once all are in.
    db.exec('PRAGMA defer_foreign_keys = ON')
    for (const table of ordered) {
      const columns = (db.prepare(`PRAGMA main.table_info("${table}")`).all() as { name: string }[])
        .map((column) => `"${column.name}"`)
        .join(', ')
      db.exec(`DELETE FROM main."${table}"`)
      db.exec(`INSERT INTO main."${table}" (${columns}) SELECT ${columns} FROM snapshot."${table}"`)
    }
    db.exec('COMMIT')
  } catch (error) {
    rollBack(db)
    if (error instanceof SnapshotError) throw error
    if (isBusy(errorCode(error))) throw error
    throw new SnapshotError(
      'unusable',
      `The snapshot "${name}" cannot be restored: ${(error as Error).message}.`,
    )
  }
}

/** The schema version of a snapshot file; SnapshotError when it is no SQLite database. */
function snapshotVersion(file: string, name: string): number {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0))
  try {
    const head = Buffer.alloc(SQLITE_MAGIC.length)
    if (fs.readSync(fd, head, 0, head.length, 0) !== head.length || !head.equals(SQLITE_MAGIC)) {
      throw new SnapshotError('unusable', `The snapshot "${name}" is not a database.`)
    }
  } finally {
    fs.closeSync(fd)
  }
  const db = new (loadLibsql())(file, { readonly: true })
  try {
    return Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version)
  } catch (error) {
    throw new SnapshotError('unusable', `The snapshot "${name}" cannot be read: ${(error as Error).message}.`)
  } finally {
    db.close()
  }
}

const infoOf = (name: string, stat: fs.Stats): SnapshotInfo => ({
  name,
  saved_at: stat.mtime.toISOString(),
  bytes: stat.size,
})

/** The snapshots of `dir`, by name. */
export function listSnapshots(dir: string): SnapshotInfo[] {
  const snapshots = snapshotsDir(dir, false)
  if (!snapshots) return []
  const found: SnapshotInfo[] = []
  for (const entry of fs.readdirSync(snapshots).sort()) {
    if (!entry.endsWith('.db')) continue
    const name = entry.slice(0, -3)
    if (!SNAPSHOT_NAME.test(name)) continue
    const stat = fs.lstatSync(path.join(snapshots, entry))
    if (stat.isFile()) found.push(infoOf(name, stat))
  }
  return found
}

/** Deletes snapshot `name`; SnapshotError when there is none. */
export function deleteSnapshot(dir: string, name: string): SnapshotInfo {
  const file = snapshotFile(dir, name)
  const info = infoOf(name, fs.statSync(file))
  fs.unlinkSync(file)
  return info
}
