/**
 * The API key of a sandbox directory: the key `pay sandbox start` serves when it is given none
 * (no --key, --key-file or PAY_SANDBOX_KEYS), which the built-in profile `sandbox` sends, and
 * which a sandbox it runs in-process serves. Random, made the first time it is needed, kept in
 * `$PAY_SANDBOX_DIR/sandbox.key` (0600, in the 0700 directory, never through a symbolic link),
 * and the same after that for every sandbox and every command on the directory. Other users of
 * the machine cannot read it, so they cannot use a sandbox that listens on a port they can reach,
 * as they could with the well-known key, which is served only when asked for by name.
 */
import fs from 'node:fs'
import path from 'node:path'
import { randomHex } from './crypto.js'
import { createSecretFile, PrivateFileError, readSecretFile } from './private-file.js'
import { ensureSandboxDir } from './sandbox-dir.js'

/** The key's file in the sandbox directory. */
export const SANDBOX_KEY_FILE = 'sandbox.key'

/** A key made for a directory: 128 random bits, written so that it reads as a sandbox key. */
const MADE_KEY = /^sk_sandbox_[0-9a-f]{32}$/

const ANEW = 'pay makes a new key for the directory'

/** The key kept in `dir`, or undefined when none was made yet. */
export function readSandboxKey(dir: string): string | undefined {
  const file = path.join(dir, SANDBOX_KEY_FILE)
  const text = readSecretFile(file, ANEW)?.trim()
  if (text === undefined) return undefined
  if (!MADE_KEY.test(text))
    throw new PrivateFileError(`${file} does not hold a sandbox key. Remove it; ${ANEW}.`)
  return text
}

/** The key of a directory, and whether this call made it over a store kept there before. */
export interface OwnKey {
  key: string
  /** Made by this call: the directory had no key yet. */
  made: boolean
  /**
   * Made over a store already there (store.db, or pay 0.1's store.json): one an earlier pay made,
   * whose records are under the keys it served, the well-known key unless it was given others.
   */
  overStore: boolean
}

/** The files of a store kept in a sandbox directory (src/sandbox/store/database.ts). */
const STORE_FILES = ['store.db', 'store.json']

/**
 * The key of `dir`, made (and the directory with it) when there is none yet. The directory is
 * checked first (this user's, made 0700 or tightened to it), as for the store and the secret.
 */
export function ownSandboxKey(dir: string): OwnKey {
  ensureSandboxDir(dir)
  const found = readSandboxKey(dir)
  if (found !== undefined) return { key: found, made: false, overStore: false }
  const overStore = STORE_FILES.some((name) => fs.existsSync(path.join(dir, name)))
  createSecretFile(path.join(dir, SANDBOX_KEY_FILE), `sk_sandbox_${randomHex(16)}\n`)
  const made = readSandboxKey(dir)
  if (made === undefined) throw new PrivateFileError(`${path.join(dir, SANDBOX_KEY_FILE)} could not be made.`)
  return { key: made, made: true, overStore }
}

/** The key of `dir`, made when there is none yet (ownSandboxKey). */
export const sandboxKeyOf = (dir: string): string => ownSandboxKey(dir).key
