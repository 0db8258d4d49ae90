import fs from 'node:fs'
import path from 'node:path'
import { randomHex } from './crypto.js'

/**
 * Files pay writes for the user alone (reports, their .meta.json, the journal): mode 0600, never
 * through a symbolic link (a link planted at the name, in a shared folder say, would make pay
 * overwrite what it points to), never a FIFO or device (whose open would hang or write
 * elsewhere). Replaced in one step where a reader must never see half a file.
 */

const { O_CREAT, O_EXCL, O_WRONLY, O_RDONLY, O_RDWR, O_APPEND } = fs.constants
// Not on Windows, which has no symbolic links in this sense; the lstat checks below still run.
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0

/**
 * Why a private file cannot be used: a symbolic link, not a regular file, or (for a file pay adds
 * to) one that another name also links to, or that another user owns.
 */
export type UnsafeReason = 'symlink' | 'not-a-file' | 'hard-link' | 'not-yours'

const REASONS: Record<UnsafeReason, string> = {
  symlink: 'is a symbolic link (pay does not follow one)',
  'not-a-file': 'is not a regular file',
  'hard-link': 'has another name linked to it (a hard link): what pay adds would be read there too',
  'not-yours': 'belongs to another user',
}

export class UnsafeFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: UnsafeReason,
  ) {
    super(`${file} ${REASONS[reason]}`)
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

/**
 * How a private file is opened: a new file only (`create`), added to (`append`: a file pay
 * replaces is never opened for writing, but written beside it and renamed, writePrivateAtomic),
 * or read.
 */
export type OpenHow = 'create' | 'append' | 'read'

const FLAGS: Record<OpenHow, number> = {
  // A new file only: an existing one (or a link at the name) is EEXIST.
  create: O_WRONLY | O_CREAT | O_EXCL,
  // Read too: the journal looks at its last byte, to start each entry on a line of its own.
  append: O_RDWR | O_CREAT | O_APPEND,
  read: O_RDONLY,
}

const ownUid = () =>
  process.platform !== 'win32' && typeof process.getuid === 'function' ? process.getuid() : undefined

/**
 * Opens `file` without following a symbolic link at its name and without blocking on a FIFO;
 * anything but a regular file is refused (UnsafeFileError). A file it creates is 0600. A file
 * opened to be added to must be the user's and have no other name: a hard link planted by
 * someone else would let them read every line added (checked on the open file, so nothing can be
 * swapped in between).
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
  const stat = fs.fstatSync(fd)
  const uid = ownUid()
  const refused: UnsafeReason | undefined = !stat.isFile()
    ? 'not-a-file'
    : how === 'read'
      ? undefined
      : uid !== undefined && stat.uid !== uid
        ? 'not-yours'
        : stat.nlink > 1
          ? 'hard-link'
          : undefined
  if (refused) {
    fs.closeSync(fd)
    throw new UnsafeFileError(file, refused)
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

/**
 * A file that holds a secret (the sandbox's proof secret, its directory's key) or the directory
 * it is in cannot be trusted: another owner, a link, a mode that lets others read it.
 */
export class PrivateFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PrivateFileError'
  }
}

/**
 * The text of a file that holds a secret, opened without following a link, checked to be a
 * regular file of this user's that no one else may read or change; undefined when there is none.
 * `anew` ends the refusals: what happens once the file is removed (`pay makes a new key`).
 */
export function readSecretFile(file: string, anew: string): string | undefined {
  let fd: number
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'ELOOP')
      throw new PrivateFileError(`${file} is a symbolic link: refused. Remove it; ${anew}.`)
    throw error
  }
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) throw new PrivateFileError(`${file} is not a regular file.`)
    const uid = ownUid()
    if (uid !== undefined && stat.uid !== uid) throw new PrivateFileError(`${file} belongs to another user.`)
    if (uid !== undefined && (stat.mode & 0o077) !== 0) {
      throw new PrivateFileError(`${file} may be read by other users. Remove it; ${anew}.`)
    }
    return fs.readFileSync(fd, 'utf8')
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Writes `text` as the secret file `file` unless there is one already: to a new file of its own
 * (O_EXCL, 0600), then linked into place, which never follows or replaces what is there, so that
 * two processes making it at once agree on one.
 */
export function createSecretFile(file: string, text: string): void {
  const temporary = `${file}.${randomHex(6)}`
  const fd = fs.openSync(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
  try {
    fs.writeFileSync(fd, text)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  try {
    fs.linkSync(temporary, file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    fs.rmSync(temporary, { force: true })
  }
}
