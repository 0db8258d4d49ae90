import { PayError } from '../errors.js'
import { type ConfigFile, configDir, configPath, readConfig, type StoredProfile } from './file.js'
import type { KeychainOptions } from './keychain.js'
import { type BuiltInProfile, storedProfile } from './profiles.js'

interface ResolveInput {
  profile?: string
  baseUrl?: string
  builtIn: BuiltInProfile
  env: NodeJS.ProcessEnv
  keychain?: KeychainOptions
  /**
   * The profile used when nothing selects one: no --profile, PAY_PROFILE, current profile or
   * PAY_API_KEY (`pay mcp` falls back to the built-in sandbox); without it, that is an error.
   */
  whenNone?: string
}

/** Where a command sends its requests, and with which key. */
export interface Credentials {
  /** Profile name, or undefined when PAY_API_KEY + PAY_BASE_URL stand alone. */
  profile?: string
  apiKey: string
  baseUrl: string
  /** The built-in profile at its own address (the sandbox: may be served in-process). */
  builtIn: boolean
  /** The built-in profile, at its own address or at a --base-url: only a sandbox that proves it is the user's own is used. */
  sandbox?: boolean
  /** PAY_BASE_URL, which the built-in profile left aside (it never goes there). */
  baseUrlSetAside?: string
  /** PAY_API_KEY replaced the profile's key. */
  keyFromEnv: boolean
}

/**
 * Profile: --profile > PAY_PROFILE > current. Key: PAY_API_KEY > profile (the config file, or
 * the system keychain, which is asked only then). Base URL: --base-url > PAY_BASE_URL > profile,
 * but the built-in profile never takes PAY_BASE_URL (often the live service's): --base-url, else
 * its own address.
 */
export async function resolveCredentials(input: ResolveInput): Promise<Credentials> {
  const { env } = input
  const envKey = env.PAY_API_KEY || undefined
  const baseOverride = input.baseUrl || env.PAY_BASE_URL || undefined
  let name = input.profile || env.PAY_PROFILE || undefined
  let source = input.profile ? 'given with --profile' : 'from PAY_PROFILE'

  if (name === undefined && envKey && baseOverride) {
    return { apiKey: envKey, baseUrl: baseOverride, builtIn: false, keyFromEnv: false }
  }
  let config: ConfigFile | undefined
  if (name === undefined) {
    config = readConfig(configDir(env))
    name = config.current
    source = `current in ${configPath(configDir(env))}`
  }
  if (name === undefined && !envKey && input.whenNone !== undefined) {
    name = input.whenNone
    source = 'used when no profile is set up'
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
  if (name === input.builtIn.name) {
    const given = input.baseUrl || undefined
    return {
      profile: name,
      apiKey: envKey ?? input.builtIn.apiKey,
      baseUrl: given ?? input.builtIn.baseUrl,
      builtIn: given === undefined,
      sandbox: true,
      baseUrlSetAside: given === undefined ? env.PAY_BASE_URL || undefined : undefined,
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
    apiKey: envKey ?? (await storedKey(name, stored, input.keychain ?? { env })),
    baseUrl: baseOverride ?? stored.base_url,
    builtIn: false,
    keyFromEnv: envKey !== undefined,
  }
}

/** A stored profile's key: from the file, or from the system keychain (exit 4 when it is not there). */
async function storedKey(name: string, profile: StoredProfile, options: KeychainOptions): Promise<string> {
  if (profile.key_storage !== 'keychain') return profile.api_key as string
  const { readKeys } = await import('./keychain.js')
  const account = profile.keychain_account as string
  const read = await readKeys([account], options)
  const key = read.ok ? read.keys.get(account) : undefined
  if (key !== undefined) return key
  if (read.ok) {
    throw new PayError(`The key of profile "${name}" is no longer in the system keychain.`, {
      kind: 'auth',
      hint: `Run \`pay login -p ${name}\` to store it again.`,
    })
  }
  throw new PayError(`The key of profile "${name}" is in the system keychain, which ${read.reason}.`, {
    kind: 'auth',
    hint: read.turnedOff
      ? 'Unset PAY_KEYCHAIN to use it, or set PAY_API_KEY.'
      : 'Unlock or start the keychain and try again, or set PAY_API_KEY. ' +
        `To keep this key in the config file instead: \`pay login -p ${name} --insecure-storage\`.`,
  })
}
