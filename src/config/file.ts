import fs from 'node:fs'
import path from 'node:path'
import { PayError } from '../errors.js'
import { xdgDir } from '../shared/xdg.js'
import { withFileLockSync } from './lock.js'

/**
 * The config file, `config.json`: read with plain fs (every command reads it, and conf's import
 * costs more than the rest of start-up); written by conf under a lock, so two `pay login` at
 * once both land. A damaged file is reported, never reset.
 */
export interface StoredProfile {
  base_url: string
  /** The key, when the file holds it (`--insecure-storage`, or no keychain at login). */
  api_key?: string
  /** "keychain": the key is in the system keychain, under `keychain_account`; the file holds none. */
  key_storage?: 'keychain'
  keychain_account?: string
  /**
   * Signed in to an account (`pay login --email`): the access token, kept where the key is (the
   * file's `access_token`, or the keychain's entry accessTokenAccount, and `access_token_storage`),
   * the account's e-mail, and the business, integration and signature key chosen.
   */
  access_token?: string
  access_token_storage?: 'keychain'
  account_email?: string
  business_id?: string
  business_name?: string
  integration_id?: string
  signature_key?: string
}

export interface ConfigFile {
  current?: string
  profiles: Record<string, StoredProfile>
}

const CONFIG_NAME = 'config'

/** Names a profile may have: they are typed in commands and stored as JSON keys. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/**
 * The keychain entry of a profile: its name and the config directory, so that two config
 * directories (PAY_CONFIG_DIR) never share an entry. The config file records it, and pay uses
 * an entry only when the file names this very account (profileProblem): a config file, wherever
 * it comes from, cannot point pay at the key of another config directory.
 */
export const keychainAccount = (profile: string, configDir: string) => `${profile}@${configDir}`

/** The keychain entry of a profile's access token (`pay login --email`), beside its key's. */
export const accessTokenAccount = (profile: string, configDir: string) =>
  `${keychainAccount(profile, configDir)}#access-token`

/** The fields a profile signed in to an account keeps as text (the token aside). */
const ACCOUNT_FIELDS = ['account_email', 'business_id', 'business_name', 'integration_id', 'signature_key']

/** `$PAY_CONFIG_DIR`, else `$XDG_CONFIG_HOME/pay`, else `~/.config/pay` (no `-nodejs` suffix). */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.PAY_CONFIG_DIR) return path.resolve(env.PAY_CONFIG_DIR)
  return xdgDir('config', env, 'pay')
}

export const configPath = (dir: string) => path.join(dir, `${CONFIG_NAME}.json`)

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
    const problem = profileProblem(name, (profile ?? {}) as Record<string, unknown>, path.dirname(file))
    if (problem) throw corrupt(file, `profile "${name}" ${problem}.`)
  }
  return { ...(raw as object), current, profiles: profiles as Record<string, StoredProfile> }
}

/**
 * What is wrong with a stored profile, if anything: it needs a base URL and one place for its key.
 * A keychain key is the entry pay itself made for this profile in this config directory, and no
 * other: a file naming another entry (another directory's key, sent to this file's base URL) is
 * refused.
 */
function profileProblem(name: string, profile: Record<string, unknown>, dir: string): string | undefined {
  const { api_key, base_url, key_storage, keychain_account, access_token, access_token_storage } = profile
  const field = ACCOUNT_FIELDS.find((f) => profile[f] !== undefined && typeof profile[f] !== 'string')
  if (field) return `has a ${field} that is not a string`
  if (access_token !== undefined && typeof access_token !== 'string')
    return 'has an access_token that is not a string'
  if (access_token_storage !== undefined && access_token_storage !== 'keychain')
    return 'has an access_token_storage other than "keychain"'
  if (access_token !== undefined && access_token_storage !== undefined)
    return 'has an access_token although it keeps it in the keychain'
  if (key_storage === undefined) {
    return typeof api_key === 'string' && typeof base_url === 'string'
      ? undefined
      : 'needs a string api_key and base_url'
  }
  if (key_storage !== 'keychain') return 'has a key_storage other than "keychain"'
  if (typeof base_url !== 'string') return 'needs a string base_url'
  if (typeof keychain_account !== 'string' || keychain_account === '')
    return 'keeps its key in the keychain but names no keychain_account'
  if (api_key !== undefined) return 'has an api_key although it keeps its key in the keychain'
  // Names pay gives hold no "@": an account names one profile of one directory, never two.
  if (!PROFILE_NAME.test(name)) return 'keeps its key in the keychain under a name pay never gives a profile'
  const own = keychainAccount(name, dir)
  if (keychain_account !== own) {
    return (
      `has keychain_account ${JSON.stringify(keychain_account)}, which is not its own entry ` +
      `(pay keeps the key of this profile under ${JSON.stringify(own)}, and reads no other)`
    )
  }
  return undefined
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
