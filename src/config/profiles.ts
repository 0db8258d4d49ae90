import { usageError } from '../errors.js'
import {
  accessTokenAccount,
  type ConfigFile,
  configDir,
  configPath,
  keychainAccount,
  readConfig,
  type StoredProfile,
  updateConfig,
} from './file.js'
import type { KeychainOptions } from './keychain.js'

/**
 * Profiles: named pairs of API key and base URL in the config file, plus one built-in profile
 * (the sandbox) that always exists. What the built-in profile is comes from the caller: config
 * knows nothing of the sandbox.
 */
export interface BuiltInProfile {
  name: string
  apiKey: string
  baseUrl: string
  /** Its key was made by this run over a store kept before (the sandbox's: src/runtime/sandbox/profile.ts). */
  readonly keyMadeOverStore?: boolean
}

export { PROFILE_NAME } from './file.js'

/** Keys are never shown whole: at most the first 4 and last 4 characters. */
export function redactKey(key: string): string {
  const shown = Math.min(4, Math.floor(key.length / 4))
  return shown === 0 ? '…' : `${key.slice(0, shown)}…${key.slice(-shown)}`
}

/** A stored profile by name; only the file's own entries count (`toString` is not a profile). */
export function storedProfile(config: ConfigFile, name: string): StoredProfile | undefined {
  return Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined
}

/**
 * Where the key a profile is used with comes from: the system keychain, the config file,
 * PAY_API_KEY (which overrides every profile's), or pay itself (the built-in sandbox).
 */
export type KeyStorage = 'keychain' | 'file' | 'env' | 'built-in'

const storageOf = (profile: StoredProfile): 'keychain' | 'file' =>
  profile.key_storage === 'keychain' ? 'keychain' : 'file'

/** What the key column says of a keychain key that cannot be shown. */
export const KEY_NOT_IN_KEYCHAIN = '(not in keychain)'
export const KEYCHAIN_UNAVAILABLE = '(keychain unavailable)'

/** A profile as shown to people: the key redacted. */
interface ProfileSummary extends Record<string, unknown> {
  name: string
  current: boolean
  base_url: string
  api_key: string
  key_storage: KeyStorage
  built_in: boolean
  /** A profile of `pay login --email`: its account and business (the signature key redacted, the token never shown). */
  account?: string
  business_id?: string
  business_name?: string
  integration_id?: string
  signature_key?: string
}

/** What a profile signed in to an account says of it (profiles show), none of its secrets. */
const accountOf = (profile: StoredProfile): Partial<ProfileSummary> =>
  typeof profile.account_email !== 'string'
    ? {}
    : {
        account: profile.account_email,
        business_id: profile.business_id,
        business_name: profile.business_name,
        integration_id: profile.integration_id,
        signature_key:
          typeof profile.signature_key === 'string' ? redactKey(profile.signature_key) : undefined,
      }

interface SummaryOptions {
  env: NodeJS.ProcessEnv
  /** Only this profile (`profiles show`): no other profile's key is read from the keychain. */
  only?: string
  keychain?: KeychainOptions
}

/**
 * Every profile, the built-in one first, as they may be displayed, and what could not be shown
 * (a keychain entry gone, no keychain): lines for stderr. Keys in the keychain are read, all in
 * one go, only to show them redacted; with PAY_API_KEY set none is read, since that key is the
 * one every profile would be used with.
 */
export async function profileSummaries(
  builtIn: BuiltInProfile,
  options: SummaryOptions,
): Promise<{ profiles: ProfileSummary[]; problems: string[] }> {
  const { env } = options
  const envKey = env.PAY_API_KEY || undefined
  const config = readConfig(configDir(env))
  const wanted = (name: string) => options.only === undefined || options.only === name
  const first: ProfileSummary = {
    name: builtIn.name,
    current: config.current === builtIn.name,
    base_url: builtIn.baseUrl,
    // Not read (nor made, for the sandbox's) when PAY_API_KEY is the key shown.
    api_key: envKey === undefined ? redactKey(builtIn.apiKey) : '',
    key_storage: 'built-in',
    built_in: true,
  }
  const stored = Object.entries(config.profiles)
    .filter(([name]) => name !== builtIn.name && wanted(name))
    .sort(([a], [b]) => a.localeCompare(b))
  const problems: string[] = []
  const inKeychain = stored.filter(([, profile]) => storageOf(profile) === 'keychain')
  // Keychain keys are read only to be shown: not when PAY_API_KEY replaces them all.
  let keychainKeys: Map<string, string> | undefined
  if (envKey === undefined && inKeychain.length > 0) {
    const { readKeys } = await import('./keychain.js')
    const read = await readKeys(
      inKeychain.map(([, profile]) => profile.keychain_account as string),
      options.keychain ?? { env },
    )
    if (read.ok) keychainKeys = read.keys
    else {
      const names = inKeychain.map(([name]) => `"${name}"`).join(', ')
      const whose = inKeychain.length === 1 ? `key of profile ${names}` : `keys of profiles ${names}`
      problems.push(`The system keychain ${read.reason}: the ${whose} cannot be shown.`)
    }
  }
  const keyShown = (name: string, profile: StoredProfile): string => {
    if (profile.key_storage !== 'keychain') return redactKey(profile.api_key as string)
    if (keychainKeys === undefined) return KEYCHAIN_UNAVAILABLE
    const key = keychainKeys.get(profile.keychain_account as string)
    if (key !== undefined) return redactKey(key)
    problems.push(
      `The key of profile "${name}" is no longer in the system keychain: run \`pay login -p ${name}\` to store it again.`,
    )
    return KEY_NOT_IN_KEYCHAIN
  }
  const summaries = stored.map(
    ([name, profile]): ProfileSummary => ({
      name,
      current: config.current === name,
      base_url: profile.base_url,
      api_key: keyShown(name, profile),
      key_storage: storageOf(profile),
      built_in: false,
      ...accountOf(profile),
    }),
  )
  const profiles = [...(wanted(builtIn.name) ? [first] : []), ...summaries]
  if (envKey !== undefined) {
    for (const profile of profiles) Object.assign(profile, { api_key: redactKey(envKey), key_storage: 'env' })
  }
  return { profiles, problems }
}

const noSuchProfile = (name: string) =>
  usageError(`There is no profile named "${name}".`, 'See `pay profiles list`.')

/**
 * Changes the config in `dir` only if profile `name` exists: checked before the write too, so
 * that an unknown name creates no config directory, and again under the lock, since another pay
 * may have removed it in between.
 */
async function changeProfile<T>(
  name: string,
  builtIn: BuiltInProfile,
  dir: string,
  change: (config: ConfigFile) => T,
): Promise<T> {
  const exists = (config: ConfigFile) => name === builtIn.name || storedProfile(config, name) !== undefined
  if (!exists(readConfig(dir))) throw noSuchProfile(name)
  return updateConfig(dir, (config) => {
    if (!exists(config)) throw noSuchProfile(name)
    return change(config)
  })
}

/** `pay profiles use NAME`, in the config directory `dir`. */
export async function useProfile(name: string, builtIn: BuiltInProfile, dir: string): Promise<void> {
  await changeProfile(name, builtIn, dir, (config) => {
    config.current = name
  })
}

/** What `pay profiles remove` did with the key besides forgetting the profile. */
export interface Removal {
  wasCurrent: boolean
  keyStorage: 'keychain' | 'file'
  /** The keychain entry: deleted, already gone, or left there because the keychain failed. */
  keychain?:
    | { deleted: true }
    | { deleted: false; gone: true }
    | { deleted: false; reason: string; account: string }
  /** The access token of `pay login --email` was in the keychain too, and was deleted with the key. */
  accessToken?: boolean
}

/** `pay profiles remove NAME`: the profile leaves the config file in `dir`, then its key the keychain. */
export async function removeProfile(
  name: string,
  builtIn: BuiltInProfile,
  dir: string,
  keychain: KeychainOptions,
): Promise<Removal> {
  if (name === builtIn.name)
    throw usageError(`The ${builtIn.name} profile is built in and cannot be removed.`)
  const { wasCurrent, removed } = await changeProfile(name, builtIn, dir, (config) => {
    const removed = storedProfile(config, name) as StoredProfile
    delete config.profiles[name]
    const wasCurrent = config.current === name
    if (wasCurrent) config.current = undefined
    return { wasCurrent, removed }
  })
  if (removed.key_storage !== 'keychain') return { wasCurrent, keyStorage: 'file' }
  const account = removed.keychain_account as string
  const { deleteKey } = await import('./keychain.js')
  // Its access token too (`pay login --email`): nothing of the profile stays behind.
  const token =
    removed.access_token_storage === 'keychain' &&
    (await deleteKey(accessTokenAccount(name, dir), keychain)).ok
  const deleted = await deleteKey(account, keychain)
  return {
    wasCurrent,
    keyStorage: 'keychain',
    ...(token ? { accessToken: true } : {}),
    keychain: deleted.ok
      ? deleted.deleted
        ? { deleted: true }
        : { deleted: false, gone: true }
      : { deleted: false, reason: deleted.reason, account },
  }
}

interface NewProfile {
  apiKey: string
  baseUrl: string
  /** `--insecure-storage`: the config file, on purpose. */
  insecureStorage?: boolean
  keychain: KeychainOptions
  /** Signed in to an account (`pay login --email`): its token, kept where the key goes, and what was chosen. */
  account?: SignedIn
}

/** What `pay login --email` keeps of the account it signed in to. */
export interface SignedIn {
  accessToken: string
  email: string
  businessId: string
  businessName: string
  integrationId: string
  signatureKey: string
}

/** A profile's fields of the account it signed in to, the token aside. */
const accountFields = (account: SignedIn | undefined): Partial<StoredProfile> =>
  account === undefined
    ? {}
    : {
        account_email: account.email,
        business_id: account.businessId,
        business_name: account.businessName,
        integration_id: account.integrationId,
        signature_key: account.signatureKey,
      }

/** Where `pay login` put the key. */
export interface Saved {
  storage: 'keychain' | 'file'
  /** The config file. */
  file: string
  /** Why the keychain was not used, when it was meant to be: "… is not available (…)". */
  noKeychain?: string
  /** A keychain entry of this profile that --insecure-storage left behind, and why. */
  staleKeychainEntry?: { account: string; reason: string }
}

/**
 * `pay login`: stores the key in the system keychain (the config file then records only where
 * it is), or in the config file when asked to or when there is no keychain; makes the profile
 * current. Logging in again moves a file key into the keychain (and back, with
 * --insecure-storage, deleting the keychain entry). `dir`: the config directory.
 */
export async function saveProfile(name: string, profile: NewProfile, dir: string): Promise<Saved> {
  const file = configPath(dir)
  const before = storedProfile(readConfig(dir), name)
  const keychain = await import('./keychain.js')
  // Always the account pay derives: the only one a config file may name (file.ts).
  const account = keychainAccount(name, dir)
  const tokenAccount = accessTokenAccount(name, dir)
  const signedIn = profile.account
  // An access token of an earlier `login --email` that this login does not keep in the keychain.
  const staleToken = async () => {
    if (before?.access_token_storage === 'keychain') await keychain.deleteKey(tokenAccount, profile.keychain)
  }
  let noKeychain: string | undefined
  if (!profile.insecureStorage) {
    let stored = await keychain.storeKey(account, profile.apiKey, profile.keychain)
    if (stored.ok && signedIn) {
      stored = await keychain.storeKey(tokenAccount, signedIn.accessToken, profile.keychain)
      if (!stored.ok && before?.keychain_account === undefined)
        await keychain.deleteKey(account, profile.keychain)
    }
    if (stored.ok) {
      try {
        await updateConfig(dir, (config) => {
          config.profiles[name] = {
            base_url: profile.baseUrl,
            key_storage: 'keychain',
            keychain_account: account,
            ...(signedIn ? { access_token_storage: 'keychain' as const } : {}),
            ...accountFields(signedIn),
          }
          config.current = name
        })
      } catch (error) {
        // A new entry that no profile will name: taken out again.
        if (before?.keychain_account === undefined) await keychain.deleteKey(account, profile.keychain)
        throw error
      }
      if (!signedIn) await staleToken()
      return { storage: 'keychain', file }
    }
    noKeychain = stored.reason
  }
  await updateConfig(dir, (config) => {
    config.profiles[name] = {
      api_key: profile.apiKey,
      base_url: profile.baseUrl,
      ...(signedIn ? { access_token: signedIn.accessToken } : {}),
      ...accountFields(signedIn),
    }
    config.current = name
  })
  await staleToken()
  const saved: Saved = { storage: 'file', file, noKeychain }
  if (profile.insecureStorage && before?.key_storage === 'keychain') {
    const deleted = await keychain.deleteKey(account, profile.keychain)
    if (!deleted.ok) saved.staleKeychainEntry = { account, reason: deleted.reason }
  }
  return saved
}
