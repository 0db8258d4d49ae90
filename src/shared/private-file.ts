import fs from 'node:fs'
import path from 'node:path'
import { randomHex } from './crypto.js'

/**
 * Files pay writes for the user alone (reports, their .meta.json, the journal): mode 0600, never
 * through a symbolic link (a link planted at the name, in a shared folder say, would make pay
 * overwrite what it points to), never a FIFO or device (whose open would hang or write
 * elsewhere). Replaced in one step where a reader must never see half a file.
 */

const { O_CREAT, O_EXCL, O_WRONLY, O_RDONLY, O_APPEND, O_TRUNC } = fs.constants
// Not on Windows, which has no symbolic links in this sense; the lstat checks below still run.
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0

/** Why a private file cannot be used: a symbolic link, or not a regular file. */
export class UnsafeFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: 'symlink' | 'not-a-file',
  ) {
    super(
      reason === 'symlink'
        ? `${file} is a symbolic link (pay does not follow one)`
        : `${file} is not a regular file`,
    )
    this.name = 'UnsafeFileError'
  }
}

/** Whether `file` is itself a symbolic link (what it points to does not matter). */
export function isSymlink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink()
  } catch {
    return false
  }
}

/** Throws UnsafeFileError when something other than a regular file (or nothing) is at `file`. */
export function checkPrivatePath(file: string): void {
  let stat: fs.Stats
  try {
    stat = fs.lstatSync(file)
  } catch {
    return
  }
  if (stat.isSymbolicLink()) throw new UnsafeFileError(file, 'symlink')
  if (!stat.isFile()) throw new UnsafeFileError(file, 'not-a-file')
}

export type OpenHow = 'create' | 'append' | 'replace' | 'read'

const FLAGS: Record<OpenHow, number> = {
  // A new file only: an existing one (or a link at the name) is EEXIST.
  create: O_WRONLY | O_CREAT | O_EXCL,
  append: O_WRONLY | O_CREAT | O_APPEND,
  replace: O_WRONLY | O_CREAT | O_TRUNC,
  read: O_RDONLY,
}

/**
 * Opens `file` without following a symbolic link at its name and without blocking on a FIFO;
 * anything but a regular file is refused (UnsafeFileError). A file it creates is 0600.
 */
export function openPrivate(file: string, how: OpenHow): number {
  checkPrivatePath(file)
  let fd: number
  try {
    fd = fs.openSync(file, FLAGS[how] | O_NOFOLLOW | O_NONBLOCK, 0o600)
  } catch (error) {
    // A link planted between the check and the open.
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new UnsafeFileError(file, 'symlink')
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') throw new UnsafeFileError(file, 'not-a-file')
    throw error
  }
  if (!fs.fstatSync(fd).isFile()) {
    fs.closeSync(fd)
    throw new UnsafeFileError(file, 'not-a-file')
  }
  return fd
}

/** The text of `file` (a regular file, not through a link), or undefined when there is none. */
export function readPrivate(file: string): string | undefined {
  let fd: number
  try {
    fd = openPrivate(file, 'read')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    return fs.readFileSync(fd, 'utf8')
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Replaces `file` with `text` in one step: written to a new 0600 file beside it, flushed, then
 * renamed over it, so that a reader (or a crash) sees the old file or the new one, never half.
 * A symbolic link at `file` is refused, not followed (a rename would replace the link itself).
 */
export function writePrivateAtomic(file: string, text: string): void {
  checkPrivatePath(file)
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomHex(6)}.tmp`)
  const fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
  try {
    fs.writeSync(fd, text)
    fs.fsyncSync(fd)
    fs.closeSync(fd)
    fs.renameSync(temp, file)
  } catch (error) {
    try {
      fs.closeSync(fd)
    } catch {}
    fs.rmSync(temp, { force: true })
    throw error
  }
}
