import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { readPrivate, writePrivateAtomic } from '../shared/private-file.js'
import { PROFILE_NAME } from './file.js'

/**
 * The ids pay has shown or made, per profile, for completing them on <TAB> (`pay links get
 * 65a<TAB>`): `<cache dir>/ids/<profile>.json`, the newest first, at most MAX_IDS of each kind.
 * Ids only (no title, no e-mail: nothing of a customer is kept for completion). The file is 0600
 * in a 0700 directory of the user's, never read or written through a symbolic link; one that
 * cannot be read as a cache is started again. Completing reads it with no request to the
 * service (src/cli/completion/). It is a cache: losing an update to a run at the same moment,
 * or the whole file, costs only a completion. PAY_ID_CACHE=0 turns it off.
 */

export type IdKind = 'links' | 'subscriptions'

/** The newest ids of each kind kept per profile: the file stays under 60 KB. */
export const MAX_IDS = 1000

interface CacheFile {
  links: string[]
  subscriptions: string[]
}

/** What a run adds to (newest first) and takes out of (deleted) the cache of its profile. */
export interface IdChanges {
  seen: Record<IdKind, string[]>
  gone: Record<IdKind, string[]>
}

/**
 * pay's cache dir, as bin/loader.js finds it for its code cache and oclif for its completion
 * scripts: PAY_CACHE_DIR, on macOS ~/Library/Caches/pay, else $XDG_CACHE_HOME/pay (on Windows
 * %LOCALAPPDATA%\pay), else ~/.cache/pay.
 */
export function payCacheDir(env: NodeJS.ProcessEnv): string {
  if (env.PAY_CACHE_DIR) return env.PAY_CACHE_DIR
  const home = env.HOME || os.homedir()
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'pay')
  const base =
    env.XDG_CACHE_HOME || (process.platform === 'win32' && env.LOCALAPPDATA) || path.join(home, '.cache')
  return path.join(base, 'pay')
}

/** The cache file of `profile`; undefined when the cache is off or the name cannot be a profile's. */
export function idCacheFile(env: NodeJS.ProcessEnv, profile: string | undefined): string | undefined {
  if (env.PAY_ID_CACHE === '0' || profile === undefined || !PROFILE_NAME.test(profile)) return undefined
  return path.join(payCacheDir(env), 'ids', `${profile}.json`)
}

/** Ids as the file holds them: strings of an id's shape only, each once, at most MAX_IDS. */
function idList(value: unknown): string[] {
  if (!Array.isArray(value)) return []
  const ids = value.filter((id): id is string => typeof id === 'string' && /^[\w.-]{1,64}$/.test(id))
  return [...new Set(ids)].slice(0, MAX_IDS)
}

/** The cache in `file`: empty when there is none, or it is not one (a damaged file starts again). */
function readCache(file: string): CacheFile {
  let parsed: unknown
  try {
    const text = readPrivate(file)
    parsed = text === undefined ? {} : JSON.parse(text)
  } catch {
    parsed = {}
  }
  const cache = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {}
  return { links: idList(cache.links), subscriptions: idList(cache.subscriptions) }
}

/** The ids of `kind` in `profile`'s cache, newest first (none when there is no cache to read). */
export function cachedIds(env: NodeJS.ProcessEnv, profile: string | undefined, kind: IdKind): string[] {
  const file = idCacheFile(env, profile)
  if (file === undefined || !isOwnDirectory(path.dirname(file))) return []
  return readCache(file)[kind]
}

/**
 * Adds what a run showed to `profile`'s cache (first in the list: newest) and takes out what it
 * deleted. Never fails the run: a cache that cannot be written is left as it is.
 */
export function rememberIds(env: NodeJS.ProcessEnv, profile: string | undefined, changes: IdChanges): void {
  const file = idCacheFile(env, profile)
  const kinds: IdKind[] = ['links', 'subscriptions']
  if (
    file === undefined ||
    kinds.every((kind) => changes.seen[kind].length + changes.gone[kind].length === 0)
  )
    return
  try {
    const dir = path.dirname(file)
    if (!privateDirectory(path.dirname(dir)) || !privateDirectory(dir)) return
    const cache = readCache(file)
    for (const kind of kinds) {
      const gone = new Set(changes.gone[kind])
      cache[kind] = idList([...changes.seen[kind], ...cache[kind]].filter((id) => !gone.has(id)))
    }
    writePrivateAtomic(file, `${JSON.stringify(cache)}\n`)
  } catch {
    // A read-only home, a full disk, something planted at the name: completion only misses them.
  }
}

/** A directory of this user's, not a symbolic link; made 0700 when missing, tightened when looser. */
function privateDirectory(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  } catch {
    return false
  }
  if (!isOwnDirectory(dir)) return false
  const mode = fs.lstatSync(dir).mode
  if ((mode & 0o077) !== 0) fs.chmodSync(dir, mode & 0o7700)
  return true
}

/** Whether `dir` is a directory (not a link to one) that belongs to this user. */
function isOwnDirectory(dir: string): boolean {
  try {
    const stat = fs.lstatSync(dir)
    return stat.isDirectory() && (process.getuid === undefined || stat.uid === process.getuid())
  } catch {
    return false
  }
}
