import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { SANDBOX_KEY } from '../../../src/sandbox/constants.js'
import { readSandboxKey, SANDBOX_KEY_FILE, sandboxKeyOf } from '../../../src/shared/sandbox-key.js'
import { tempDir } from '../../helpers/cli.js'

/**
 * The key of a sandbox directory (src/shared/sandbox-key.ts): random, made once, 0600 in the
 * 0700 directory; a file planted at its name by someone else (a link, another owner's, one
 * others may read, one holding something else) is refused, never read as the key, never changed.
 */

const asRoot = process.getuid?.() === 0

const refusal = (run: () => unknown): string => {
  try {
    run()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('not refused')
}

describe('the sandbox directory’s key', () => {
  it('is made once, random, 0600 in a 0700 directory (tightened when looser); the same after', () => {
    const dir = path.join(tempDir(), 'sandbox')
    expect(readSandboxKey(dir)).toBeUndefined()
    const key = sandboxKeyOf(dir)
    expect(key).toMatch(/^sk_sandbox_[0-9a-f]{32}$/)
    expect(key).not.toBe(SANDBOX_KEY)
    const file = path.join(dir, SANDBOX_KEY_FILE)
    expect(fs.readFileSync(file, 'utf8')).toBe(`${key}\n`)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    fs.chmodSync(dir, 0o755)
    expect([sandboxKeyOf(dir), readSandboxKey(dir)]).toEqual([key, key])
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    // Nothing left over from writing it.
    expect(fs.readdirSync(dir)).toEqual([SANDBOX_KEY_FILE])
    expect(sandboxKeyOf(tempDir())).not.toBe(key)
  })

  it('a symbolic link planted at its name is refused, never followed: its target is neither read as the key nor changed', () => {
    const dir = tempDir()
    const target = path.join(tempDir(), 'theirs.key')
    fs.writeFileSync(target, 'sk_sandbox_0123456789abcdef0123456789abcdef\n', { mode: 0o600 })
    fs.symlinkSync(target, path.join(dir, SANDBOX_KEY_FILE))
    const file = path.join(dir, SANDBOX_KEY_FILE)
    const said = `${file} is a symbolic link: refused. Remove it; pay makes a new key for the directory.`
    expect(refusal(() => sandboxKeyOf(dir))).toBe(said)
    expect(refusal(() => readSandboxKey(dir))).toBe(said)
    expect(fs.readFileSync(target, 'utf8')).toBe('sk_sandbox_0123456789abcdef0123456789abcdef\n')
    // A dangling link is not written through either.
    const dangling = tempDir()
    const nowhere = path.join(tempDir(), 'nowhere.key')
    fs.symlinkSync(nowhere, path.join(dangling, SANDBOX_KEY_FILE))
    expect(refusal(() => sandboxKeyOf(dangling))).toContain('is a symbolic link: refused.')
    expect(fs.existsSync(nowhere)).toBe(false)
  })

  it('a file others may read, or that holds no key, is refused and left as it is', () => {
    const dir = tempDir()
    const file = path.join(dir, SANDBOX_KEY_FILE)
    fs.writeFileSync(file, 'sk_sandbox_0123456789abcdef0123456789abcdef\n', { mode: 0o644 })
    fs.chmodSync(file, 0o644)
    expect(refusal(() => sandboxKeyOf(dir))).toBe(
      `${file} may be read by other users. Remove it; pay makes a new key for the directory.`,
    )
    expect(fs.statSync(file).mode & 0o777).toBe(0o644)
    fs.chmodSync(file, 0o600)
    fs.writeFileSync(file, SANDBOX_KEY)
    expect(refusal(() => sandboxKeyOf(dir))).toBe(
      `${file} does not hold a sandbox key. Remove it; pay makes a new key for the directory.`,
    )
    expect(fs.readFileSync(file, 'utf8')).toBe(SANDBOX_KEY)
    fs.rmSync(file)
    expect(sandboxKeyOf(dir)).toMatch(/^sk_sandbox_[0-9a-f]{32}$/)
  })

  it.runIf(asRoot)(
    'a key file, or a directory, of another user is refused (run as root, which can make them)',
    () => {
      const dir = tempDir()
      const file = path.join(dir, SANDBOX_KEY_FILE)
      fs.writeFileSync(file, 'sk_sandbox_0123456789abcdef0123456789abcdef\n', { mode: 0o600 })
      fs.chownSync(file, 65534, 65534)
      expect(refusal(() => sandboxKeyOf(dir))).toBe(`${file} belongs to another user.`)
      const theirs = tempDir()
      fs.chownSync(theirs, 65534, 65534)
      expect(refusal(() => sandboxKeyOf(theirs))).toBe(
        `The sandbox directory ${theirs} belongs to another user: use a directory of your own.`,
      )
      expect(fs.readdirSync(theirs)).toEqual([])
    },
  )
})
