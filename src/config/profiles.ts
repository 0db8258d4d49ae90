import { usageError } from '../errors.js'
import { type ConfigFile, configDir, readConfig, type StoredProfile, updateConfig } from './file.js'

/**
 * Profiles: named pairs of API key and base URL in the config file, plus one built-in profile
 * (the sandbox) that always exists. What the built-in profile is comes from the caller: config
 * knows nothing of the sandbox.
 */
export interface BuiltInProfile {
  name: string
  apiKey: string
  baseUrl: string
}

/** Names a profile may have: they are typed in commands and stored as JSON keys. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** Keys are never shown whole: at most the first 4 and last 4 characters. */
export function redactKey(key: string): string {
  const shown = Math.min(4, Math.floor(key.length / 4))
  return shown === 0 ? '…' : `${key.slice(0, shown)}…${key.slice(-shown)}`
}

/** A stored profile by name; only the file's own entries count (`toString` is not a profile). */
export function storedProfile(config: ConfigFile, name: string): StoredProfile | undefined {
  return Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined
}

/** A profile as shown to people: the key redacted. */
interface ProfileSummary extends Record<string, unknown> {
  name: string
  current: boolean
  base_url: string
  api_key: string
  built_in: boolean
}

/** Every profile, the built-in one first, as they may be displayed. */
export function profileSummaries(
  builtIn: BuiltInProfile,
  env: NodeJS.ProcessEnv = process.env,
): ProfileSummary[] {
  const config = readConfig(configDir(env))
  const first: ProfileSummary = {
    name: builtIn.name,
    current: config.current === builtIn.name,
    base_url: builtIn.baseUrl,
    api_key: redactKey(builtIn.apiKey),
    built_in: true,
  }
  const stored = Object.entries(config.profiles)
    .filter(([name]) => name !== builtIn.name)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, profile]) => ({
      name,
      current: config.current === name,
      base_url: profile.base_url,
      api_key: redactKey(profile.api_key),
      built_in: false,
    }))
  return [first, ...stored]
}

const noSuchProfile = (name: string) =>
  usageError(`There is no profile named "${name}".`, 'See `pay profiles list`.')

/**
 * Changes the config only if profile `name` exists: checked before the write too, so that an
 * unknown name creates no config directory, and again under the lock, since another pay may
 * have removed it in between.
 */
async function changeProfile<T>(
  name: string,
  builtIn: BuiltInProfile,
  change: (config: ConfigFile) => T,
): Promise<T> {
  const exists = (config: ConfigFile) => name === builtIn.name || storedProfile(config, name) !== undefined
  const dir = configDir()
  if (!exists(readConfig(dir))) throw noSuchProfile(name)
  return updateConfig(dir, (config) => {
    if (!exists(config)) throw noSuchProfile(name)
    return change(config)
  })
}

/** `pay profiles use NAME`. */
export async function useProfile(name: string, builtIn: BuiltInProfile): Promise<void> {
  await changeProfile(name, builtIn, (config) => {
    config.current = name
  })
}

/** `pay profiles remove NAME`: whether it was the current profile. */
export async function removeProfile(name: string, builtIn: BuiltInProfile): Promise<boolean> {
  if (name === builtIn.name)
    throw usageError(`The ${builtIn.name} profile is built in and cannot be removed.`)
  return changeProfile(name, builtIn, (config) => {
    delete config.profiles[name]
    const wasCurrent = config.current === name
    if (wasCurrent) config.current = undefined
    return wasCurrent
  })
}

/** `pay login`: stores the profile and makes it current. */
export async function saveProfile(name: string, profile: StoredProfile): Promise<void> {
  await updateConfig(configDir(), (config) => {
    config.profiles[name] = profile
    config.current = name
  })
}
