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

/** What a profile signed in to an account (`pay login --email`) keeps, and where it sends. */
export interface AccountCredentials {
  profile: string
  baseUrl: string
  /** The access token the account's endpoints take; undefined when not asked for (`token: false`). */
  accessToken?: string
  email?: string
  businessId?: string
  businessName?: string
  integrationId?: string
  signatureKey?: string
}

/** Says to sign in again: how a profile gets (back) its access token. */
export const signInAgain = (name: string, email?: string) =>
  `Run \`pay login --email ${email ?? 'EMAIL'} -p ${name}\` to sign in.`

/**
 * The account of the selected profile (--profile > PAY_PROFILE > current; the built-in sandbox
 * has none), its base URL (--base-url > PAY_BASE_URL > the profile's) and, with `token`, its access
 * token from the file or the system keychain (exit 4 when it has none).
 */
export async function resolveAccount(
  input: Omit<ResolveInput, 'whenNone'> & { token: boolean },
): Promise<AccountCredentials> {
  const { env } = input
  const config = readConfig(configDir(env))
  const name = input.profile || env.PAY_PROFILE || config.current
  const command = 'pay login --email EMAIL --profile NAME --base-url URL'
  if (name === undefined) {
    throw new PayError('No profile is selected: there is no account to act on.', {
      kind: 'auth',
      hint: `Sign in to the service's account with \`${command}\`.`,
    })
  }
  if (name === input.builtIn.name) {
    throw new PayError(`The ${name} profile has no account to sign in to.`, {
      kind: 'usage',
      hint: `Sign a profile of its own in to the sandbox's account (\`pay sandbox start\` shows it): \`${command}\`.`,
    })
  }
  const stored = storedProfile(config, name)
  if (!stored) {
    throw new PayError(`There is no profile named "${name}".`, {
      kind: 'usage',
      hint: 'See `pay profiles list`.',
    })
  }
  const signedIn = stored.access_token !== undefined || stored.access_token_storage === 'keychain'
  if (!signedIn && input.token) {
    throw new PayError(`Profile "${name}" is not signed in to an account.`, {
      kind: 'auth',
      hint: signInAgain(name),
    })
  }
  const account: AccountCredentials = {
    profile: name,
    baseUrl: input.baseUrl || env.PAY_BASE_URL || stored.base_url,
    email: stored.account_email,
    businessId: stored.business_id,
    businessName: stored.business_name,
    integrationId: stored.integration_id,
    signatureKey: stored.signature_key,
  }
  if (!input.token) return account
  if (stored.access_token !== undefined) return { ...account, accessToken: stored.access_token }
  const { accessTokenAccount } = await import('./file.js')
  const { readKeys } = await import('./keychain.js')
  const entry = accessTokenAccount(name, configDir(env))
  const read = await readKeys([entry], input.keychain ?? { env })
  const token = read.ok ? read.keys.get(entry) : undefined
  if (token !== undefined) return { ...account, accessToken: token }
  throw new PayError(
    read.ok
      ? `The access token of profile "${name}" is no longer in the system keychain.`
      : `The access token of profile "${name}" is in the system keychain, which ${read.reason}.`,
    { kind: 'auth', hint: signInAgain(name, account.email) },
  )
}
