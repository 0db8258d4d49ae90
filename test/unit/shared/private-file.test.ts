import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openPrivate, UnsafeFileError, writePrivateAtomic } from '../../../src/shared/private-file.js'
import { tempDir } from '../../helpers/cli.js'

/** The reason openPrivate refuses `file` opened `how`, or 'opened'. */
function outcome(file: string, how: 'append' | 'create' | 'read'): string {
  try {
    fs.closeSync(openPrivate(file, how))
    return 'opened'
  } catch (error) {
    if (error instanceof UnsafeFileError) return error.reason
    return (error as NodeJS.ErrnoException).code ?? String(error)
  }
}

const asRoot = process.platform !== 'win32' && process.getuid?.() === 0

describe('openPrivate', () => {
  it('adds only to a regular file of the user with a single name: a planted hard link or symbolic link is refused, untouched', () => {
    const dir = tempDir()
    const theirs = path.join(dir, 'theirs.log')
    fs.writeFileSync(theirs, 'their file\n', { mode: 0o666 })
    const linked = path.join(dir, 'journal.jsonl')
    fs.linkSync(theirs, linked)
    const pointed = path.join(dir, 'report.csv')
    fs.symlinkSync(theirs, pointed)
    expect(outcome(linked, 'append')).toBe('hard-link')
    expect(outcome(pointed, 'append')).toBe('symlink')
    expect(fs.readFileSync(theirs, 'utf8')).toBe('their file\n')
    const error = (() => {
      try {
        openPrivate(linked, 'append')
      } catch (caught) {
        return caught as Error
      }
    })()
    expect(error?.message).toBe(
      `${linked} has another name linked to it (a hard link): what pay adds would be read there too`,
    )
    // Reading is not adding: a file with two names is read as it is.
    expect(outcome(linked, 'read')).toBe('opened')
    // Once the other name is gone, it is the user's own again.
    fs.rmSync(theirs)
    expect(outcome(linked, 'append')).toBe('opened')
  })

  it.runIf(asRoot)('refuses to add to a file another user owns (run as root, which can make one)', () => {
    const file = path.join(tempDir(), 'journal.jsonl')
    fs.writeFileSync(file, '')
    fs.chownSync(file, 65534, 65534)
    expect(outcome(file, 'append')).toBe('not-yours')
    expect(outcome(file, 'read')).toBe('opened')
  })

  it('a file replaced is a new file renamed over the name: a hard link to the old one keeps the old bytes', () => {
    const dir = tempDir()
    const file = path.join(dir, 'report.csv')
    fs.writeFileSync(file, 'old\n')
    const other = path.join(dir, 'other.csv')
    fs.linkSync(file, other)
    writePrivateAtomic(file, 'new\n')
    expect(fs.readFileSync(other, 'utf8')).toBe('old\n')
    expect(fs.readFileSync(file, 'utf8')).toBe('new\n')
    expect(fs.statSync(file).nlink).toBe(1)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
  })
})
