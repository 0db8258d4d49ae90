import fs from 'node:fs'
import { Flags } from '@oclif/core'
import { usageError } from '../../../errors.js'
import type { Env } from '../../../runtime/context.js'
import { SANDBOX_KEY } from '../../../sandbox/index.js'
import { ownSandboxKey } from '../../../shared/sandbox-key.js'

/**
 * The API keys a sandbox serves, each a business of its own (`sandbox start`, and `sandbox
 * packages`, which lists what such a sandbox seeds). A key on the command line (`--key`) can be
 * read by every user of the machine in the process list, so keys can also come out of their
 * sight: `--key-file FILE` (one a line, a file of the user's that no one else may read) or
 * `PAY_SANDBOX_KEYS` (comma-separated). Given none, the sandbox directory's own key
 * (src/shared/sandbox-key.ts: random, made the first time, kept 0600), which `-p sandbox` sends;
 * the well-known sandbox key only when it is given by name, as any other.
 */

export const sandboxKeyFlags = {
  key: Flags.string({
    description:
      'API key of a business (repeatable). Other users of this machine can read it in the process list: ' +
      'prefer --key-file or PAY_SANDBOX_KEYS.',
    multiple: true,
  }),
  'key-file': Flags.string({
    description:
      'A file of API keys, one a line (blank lines and # comments skipped); it must be yours and ' +
      'readable by you alone (chmod 600).',
  }),
}

/** Said on stderr when keys come from --key. */
export const KEY_FLAG_NOTE =
  '--key puts the key on the command line, where other users of this machine can read it (ps, /proc): ' +
  'give keys in a file only you can read (--key-file FILE, chmod 600) or in PAY_SANDBOX_KEYS instead.'

/** Said when the well-known sandbox key is among the keys served: it is asked for by name, and open to all. */
export const WELL_KNOWN_NOTE =
  'The well-known sandbox key is among the keys served: every user of this machine knows it, and can use ' +
  "this sandbox with it (its records, its signature key, its endpoints). Without any key given, the sandbox serves its directory's own."

/** Whether `keys` hold the well-known sandbox key, served only when given by name. */
export const servesWellKnown = (keys: readonly string[]): boolean => keys.includes(SANDBOX_KEY)

/**
 * The keys: --key and --key-file together, else PAY_SANDBOX_KEYS, else the key of the sandbox
 * directory `dir`. `own`: the directory's key is the one served; `made`: by this call (the directory
 * had none yet), `overStore`: over a store an earlier pay kept there.
 */
export function sandboxKeys(
  flags: { key?: string[]; 'key-file'?: string },
  env: Env,
  dir: string,
): { keys: string[]; note?: string; own?: { made: boolean; overStore: boolean } } {
  const fromFlags = [
    ...(flags.key ?? []),
    ...(flags['key-file'] === undefined ? [] : keyFile(flags['key-file'])),
  ]
  const note = flags.key?.length ? KEY_FLAG_NOTE : undefined
  if (fromFlags.length > 0) return { keys: [...new Set(fromFlags)], note }
  const fromEnv = env.PAY_SANDBOX_KEYS === undefined ? [] : keysOf(env.PAY_SANDBOX_KEYS)
  if (fromEnv.length > 0) return { keys: [...new Set(fromEnv)], note }
  const { key, made, overStore } = ownSandboxKey(dir)
  return { keys: [key], own: { made, overStore } }
}

/** PAY_SANDBOX_KEYS: keys separated by commas, spaces around them dropped; one with a space inside is refused. */
function keysOf(text: string): string[] {
  const keys = text.split(',').map((key) => key.trim())
  keys.forEach((key, i) => {
    if (/\s/.test(key)) {
      throw usageError(
        `PAY_SANDBOX_KEYS: key ${i + 1} has a space in it.`,
        'Separate keys with commas: PAY_SANDBOX_KEYS=sk_test_a,sk_test_b.',
      )
    }
  })
  return keys.filter(Boolean)
}

const ownUid = () =>
  process.platform !== 'win32' && typeof process.getuid === 'function' ? process.getuid() : undefined

/**
 * The keys in `file`, one a line: refused (exit 2) when the file is not a regular file of this
 * user's, when others may read or write it, or when it holds no key or a line that is no key
 * (the line is named, never the key).
 */
function keyFile(file: string): string[] {
  let text: string
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
    try {
      const stat = fs.fstatSync(fd)
      if (!stat.isFile()) throw usageError(`--key-file: ${file} is not a regular file.`)
      const uid = ownUid()
      if (uid !== undefined && stat.uid !== uid) {
        throw usageError(`--key-file: ${file} belongs to another user.`, 'Use a key file of your own.')
      }
      if (uid !== undefined && (stat.mode & 0o077) !== 0) {
        const mode = (stat.mode & 0o777).toString(8).padStart(3, '0')
        throw usageError(
          `--key-file: ${file} may be read or changed by other users (mode ${mode}).`,
          `Make it yours alone: chmod 600 ${file}`,
        )
      }
      text = fs.readFileSync(fd, 'utf8')
    } finally {
      fs.closeSync(fd)
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === undefined) throw error
    throw usageError(`--key-file: cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code}.`)
  }
  const keys: string[] = []
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    if (/\s/.test(line)) {
      throw usageError(`--key-file: line ${i + 1} of ${file} is not one key: it has a space in it.`)
    }
    keys.push(line)
  })
  if (keys.length === 0) throw usageError(`--key-file: ${file} holds no key.`, 'Write one key a line.')
  return keys
}
