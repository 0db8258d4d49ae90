import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PayError } from '../errors.js'
import { withFileLockSync } from '../lib/file-lock.js'
import { DEFAULT_SANDBOX_PORT, SANDBOX_KEY } from '../sandbox/constants.js'

/**
 * Profiles: named pairs of API key and base URL in `config.json`, plus the built-in
 * `sandbox` profile. Reads use plain fs (every command reads, and conf's import costs more
 * than the rest of start-up); writes go through conf under a lock, so two `pay login` at
 * once both land.
 */
export interface StoredProfile {
  api_key: string
  base_url: string
}

export interface ConfigFile {
  current?: string
  profiles: Record<string, StoredProfile>
}

export const SANDBOX_PROFILE = 'sandbox'
const CONFIG_NAME = 'config'

/** `$PAY_CONFIG_DIR`, else `$XDG_CONFIG_HOME/pay`, else `~/.config/pay` (no `-nodejs` suffix). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PAY_CONFIG_DIR) return path.resolve(env.PAY_CONFIG_DIR)
  // The XDG spec says to ignore a relative XDG_CONFIG_HOME.
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(env.HOME || os.homedir(), '.config')
  return path.join(base, 'pay')
}

export const configPath = (dir: string) => path.join(dir, `${CONFIG_NAME}.json`)

export function sandboxBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return `http://127.0.0.1:${env.PAY_SANDBOX_PORT || DEFAULT_SANDBOX_PORT}`
}

/** Keys are never shown whole: at most the first 4 and last 4 characters. */
export function redactKey(key: string): string {
  const shown = Math.min(4, Math.floor(key.length / 4))
  return shown === 0 ? '…' : `${key.slice(0, shown)}…${key.slice(-shown)}`
}

function corrupt(file: string, reason: string): PayError {
  return new PayError(`The config file ${file} is corrupt: ${reason}`, {
    kind: 'general',
    hint: 'pay has not changed it. Fix it by hand, or move it away and run `pay login` again.',
  })
}

function parseConfig(file: string, text: string): ConfigFile {
  if (text.trim() === '') throw corrupt(file, 'it is empty.')
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw corrupt(file, `it is not valid JSON (${jsonProblem(text, error as Error)}).`)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw corrupt(file, 'it is not a JSON object.')
  const { current, profiles = {} } = raw as { current?: unknown; profiles?: unknown }
  if (current !== undefined && typeof current !== 'string') throw corrupt(file, '"current" is not a string.')
  if (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles)) {
    throw corrupt(file, '"profiles" is not an object.')
  }
  for (const [name, profile] of Object.entries(profiles)) {
    const { api_key, base_url } = (profile ?? {}) as Partial<StoredProfile>
    if (typeof api_key !== 'string' || typeof base_url !== 'string') {
      throw corrupt(file, `profile "${name}" needs a string api_key and base_url.`)
    }
  }
  return { ...(raw as object), current, profiles: profiles as Record<string, StoredProfile> }
}

/**
 * What JSON.parse found wrong, without the excerpt of the file V8 quotes in some messages
 * (`Unexpected token 's', ..."api_key":sk_live_SE"... is not valid JSON`): the file holds keys.
 */
function jsonProblem(text: string, error: Error): string {
  let detail = error.message.replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '')
  const at = / in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(detail)
  if (at) {
    const before = text.slice(0, Number(at[1])).split('\n')
    detail = `${detail.slice(0, at.index)} at line ${before.length}, column ${before[before.length - 1].length + 1}`
  }
  // Anything still quoting the file, or unexpectedly long, is dropped rather than risk showing a key.
  return detail.includes('"') || detail.length > 100 ? 'syntax error' : detail
}

/**
 * Removes the group and other bits of the config file or directory (0644 -> 0600, 0755 -> 0700;
 * a read-only 0444 file stays read-only, 0400): the keys must stay the user's alone. A shared
 * directory (sticky bit, like /tmp) or one owned by someone else given as PAY_CONFIG_DIR is left
 * alone; a failure to tighten never stops a command.
 */
function tighten(target: string, stat: fs.Stats): void {
  if ((stat.mode & 0o077) === 0 || (stat.mode & 0o1000) !== 0) return
  if (process.getuid !== undefined && stat.uid !== process.getuid()) return
  try {
    fs.chmodSync(target, stat.mode & 0o7700)
  } catch {
    // not ours to change (e.g. a read-only file system): reading still works
  }
}

/** Reads config.json (an absent file is an empty config); a damaged one is an error, never reset. */
export function readConfig(dir: string): ConfigFile {
  const file = configPath(dir)
  let text: string
  try {
    const fd = fs.openSync(file, 'r')
    try {
      const stat = fs.fstatSync(fd)
      if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' })
      tighten(file, stat)
      text = fs.readFileSync(fd, 'utf8')
    } finally {
      fs.closeSync(fd)
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { profiles: {} }
    throw unreadable(dir, file, code, error)
  }
  tighten(dir, fs.statSync(dir))
  return parseConfig(file, text)
}

const notADirectory = (dir: string) =>
  new PayError(`The config directory ${dir} is not a directory.`, {
    kind: 'general',
    hint: 'Point PAY_CONFIG_DIR at a directory.',
  })

function unreadable(dir: string, file: string, code: string | undefined, error: unknown): PayError {
  if (code === 'ENOTDIR') return notADirectory(dir)
  let reason: string
  if (code === 'EISDIR') reason = 'it is a directory, not a file'
  else if (code === 'EACCES' || code === 'EPERM') reason = 'permission denied'
  else reason = code ?? String(error)
  return new PayError(`Could not read the config file ${file}: ${reason}.`, {
    kind: 'general',
    hint: 'pay has not changed it.',
  })
}

/**
 * Read-modify-write of config.json under a lock, written by conf with mode 0600 in a 0700 dir.
 * A file or directory made read-only (no owner write bit) is refused, not replaced: conf writes
 * a temp file and renames it over the old one, which a read-only file alone would not stop.
 */
export async function updateConfig<T>(dir: string, change: (config: ConfigFile) => T): Promise<T> {
  const file = configPath(dir)
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    const stat = fs.statSync(dir)
    if (!stat.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' })
    tighten(dir, stat)
    if ((stat.mode & 0o200) === 0) throw Object.assign(new Error('read-only'), { code: 'EROFS' })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // mkdir -p answers EEXIST when the path, or a parent of it, is a file.
    if (code === 'ENOTDIR' || code === 'EEXIST') throw notADirectory(dir)
    throw writeFailed(file, error, `the directory ${dir}`)
  }
  const { default: Conf } = await import('conf')
  return withFileLockSync(path.join(dir, `${CONFIG_NAME}.json.lock`), () => {
    const config = readConfig(dir)
    const mode = fs.statSync(file, { throwIfNoEntry: false })?.mode
    if (mode !== undefined && (mode & 0o200) === 0) {
      throw writeFailed(file, Object.assign(new Error('read-only'), { code: 'EROFS' }), 'the file')
    }
    const result = change(config)
    try {
      const store = new Conf<ConfigFile>({
        cwd: dir,
        configName: CONFIG_NAME,
        projectName: 'pay',
        projectSuffix: '',
        configFileMode: 0o600,
      })
      store.store = config
      fs.chmodSync(file, 0o600)
    } catch (error) {
      throw writeFailed(file, error, 'the file')
    }
    return result
  })
}

function writeFailed(file: string, error: unknown, what: string): PayError {
  const code = (error as NodeJS.ErrnoException).code
  let reason: string
  if (code === 'EROFS') reason = `${what} is read-only`
  else if (code === 'EACCES' || code === 'EPERM') reason = 'permission denied'
  else reason = code ?? String(error)
  return new PayError(`Could not write the config file ${file}: ${reason}.`, {
    kind: 'general',
    hint: 'pay has not changed it. Make it writable to save profiles.',
  })
}

/** A stored profile by name; only the file's own entries count (`toString` is not a profile). */
export function storedProfile(config: ConfigFile, name: string): StoredProfile | undefined {
  return Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined
}

/** Names a profile may have: they are typed in commands and stored as JSON keys. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

export interface ResolveInput {
  profile?: string
  baseUrl?: string
  env?: NodeJS.ProcessEnv
}

/** Where a command sends its requests, and with which key. */
export interface Credentials {
  /** Profile name, or undefined when PAY_API_KEY + PAY_BASE_URL stand alone. */
  profile?: string
  apiKey: string
  baseUrl: string
  /** The built-in sandbox profile at its default address: may be served in-process. */
  sandbox: boolean
  /** PAY_API_KEY replaced the profile's key. */
  keyFromEnv: boolean
}

/**
 * Profile: --profile > PAY_PROFILE > current. Key: PAY_API_KEY > profile.
 * Base URL: --base-url > PAY_BASE_URL > profile.
 */
export function resolveCredentials(input: ResolveInput): Credentials {
  const env = input.env ?? process.env
  const envKey = env.PAY_API_KEY || undefined
  const baseOverride = input.baseUrl || env.PAY_BASE_URL || undefined
  let name = input.profile || env.PAY_PROFILE || undefined
  let source = input.profile ? 'given with --profile' : 'from PAY_PROFILE'

  if (name === undefined && envKey && baseOverride) {
    return { apiKey: envKey, baseUrl: baseOverride, sandbox: false, keyFromEnv: false }
  }
  let config: ConfigFile | undefined
  if (name === undefined) {
    config = readConfig(configDir(env))
    name = config.current
    source = `current in ${configPath(configDir(env))}`
  }
  if (name === undefined && envKey) {
    throw new PayError('PAY_API_KEY is set, but there is no base URL to send it to.', {
      kind: 'usage',
      hint: 'Set PAY_BASE_URL or give --base-url, or select a profile with --profile.',
    })
  }
  if (name === undefined) {
    throw new PayError('No profile is selected and no API key is set.', {
      kind: 'auth',
      hint: 'Run `pay login`, set PAY_API_KEY and PAY_BASE_URL, or try the built-in sandbox with `-p sandbox`.',
    })
  }
  if (name === SANDBOX_PROFILE) {
    return {
      profile: name,
      apiKey: envKey ?? SANDBOX_KEY,
      baseUrl: baseOverride ?? sandboxBaseUrl(env),
      sandbox: baseOverride === undefined,
      keyFromEnv: envKey !== undefined,
    }
  }
  config ??= readConfig(configDir(env))
  const stored = storedProfile(config, name)
  if (!stored) {
    throw new PayError(`There is no profile named "${name}" (${source}).`, {
      kind: 'usage',
      hint: 'See `pay profiles list`, or create it with `pay login --profile NAME`.',
    })
  }
  return {
    profile: name,
    apiKey: envKey ?? stored.api_key,
    baseUrl: baseOverride ?? stored.base_url,
    sandbox: false,
    keyFromEnv: envKey !== undefined,
  }
}

/** A profile as shown to people: the key redacted. */
export interface ProfileSummary extends Record<string, unknown> {
  name: string
  current: boolean
  base_url: string
  api_key: string
  built_in: boolean
}

/** Every profile, the built-in sandbox first, as they may be displayed. */
export function profileSummaries(env: NodeJS.ProcessEnv = process.env): ProfileSummary[] {
  const config = readConfig(configDir(env))
  const sandbox: ProfileSummary = {
    name: SANDBOX_PROFILE,
    current: config.current === SANDBOX_PROFILE,
    base_url: sandboxBaseUrl(env),
    api_key: redactKey(SANDBOX_KEY),
    built_in: true,
  }
  const stored = Object.entries(config.profiles)
    .filter(([name]) => name !== SANDBOX_PROFILE)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, profile]) => ({
      name,
      current: config.current === name,
      base_url: profile.base_url,
      api_key: redactKey(profile.api_key),
      built_in: false,
    }))
  return [sandbox, ...stored]
}

export function profileExists(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return name === SANDBOX_PROFILE || storedProfile(readConfig(configDir(env)), name) !== undefined
}
