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

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PAY_CONFIG_DIR) return path.resolve(env.PAY_CONFIG_DIR)
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config')
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
    throw corrupt(file, `${(error as Error).message}.`)
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

/** Tightens a directory or file that others can read; the key must stay the user's alone. */
function tighten(target: string, stat: fs.Stats, mode: number): void {
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(target, mode)
}

/** Reads config.json (an absent file is an empty config); a damaged one is an error, never reset. */
export function readConfig(dir: string): ConfigFile {
  const file = configPath(dir)
  let text: string
  try {
    const fd = fs.openSync(file, 'r')
    try {
      tighten(file, fs.fstatSync(fd), 0o600)
      text = fs.readFileSync(fd, 'utf8')
    } finally {
      fs.closeSync(fd)
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { profiles: {} }
    if (code === 'EACCES' || code === 'EPERM') throw corrupt(file, 'it cannot be read (permission denied).')
    if (code === 'EISDIR') throw corrupt(file, 'it is a directory.')
    throw error
  }
  tighten(dir, fs.statSync(dir), 0o700)
  return parseConfig(file, text)
}

/** Read-modify-write of config.json under a lock, written by conf with mode 0600 in a 0700 dir. */
export async function updateConfig<T>(dir: string, change: (config: ConfigFile) => T): Promise<T> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  tighten(dir, fs.statSync(dir), 0o700)
  const { default: Conf } = await import('conf')
  return withFileLockSync(path.join(dir, `${CONFIG_NAME}.json.lock`), () => {
    const config = readConfig(dir)
    const result = change(config)
    const store = new Conf<ConfigFile>({
      cwd: dir,
      configName: CONFIG_NAME,
      projectName: 'pay',
      projectSuffix: '',
      configFileMode: 0o600,
    })
    try {
      store.store = config
    } catch (error) {
      throw writeFailed(configPath(dir), error)
    }
    fs.chmodSync(configPath(dir), 0o600)
    return result
  })
}

function writeFailed(file: string, error: unknown): PayError {
  const code = (error as NodeJS.ErrnoException).code
  const reason =
    code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'permission denied' : String(code ?? error)
  return new PayError(`Could not write the config file ${file}: ${reason}.`, { kind: 'general' })
}

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

  if (name === undefined && envKey && baseOverride) {
    return { apiKey: envKey, baseUrl: baseOverride, sandbox: false, keyFromEnv: false }
  }
  let config: ConfigFile | undefined
  if (name === undefined) {
    config = readConfig(configDir(env))
    name = config.current
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
  const stored = config.profiles[name]
  if (!stored) {
    throw new PayError(`There is no profile named "${name}".`, {
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
  return name === SANDBOX_PROFILE || readConfig(configDir(env)).profiles[name] !== undefined
}
