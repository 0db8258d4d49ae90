import { readConfig } from '../../config/file.js'
import { profileSummaries, removeProfile, useProfile } from '../../config/profiles.js'
import { usageError } from '../../errors.js'
import type { View } from '../../render/views.js'
import type { RunContext } from '../../runtime/context.js'
import type { Rec } from '../../values.js'

/** Profiles as `pay profiles list|show` print them (config/profiles.ts keeps them). */
export const PROFILE_VIEW: View = {
  noun: 'profile',
  plural: 'profiles',
  listColumns: ['name', 'current', 'base_url', 'api_key', 'key_storage'],
  recordFields: [
    'name',
    'current',
    'base_url',
    'api_key',
    'key_storage',
    'built_in',
    // A profile of `pay login --email` (none of its secrets).
    'account',
    'business_id',
    'business_name',
    'integration_id',
    'signature_key',
  ],
  idField: 'name',
}

/** `profiles list`: every profile, the built-in one first, keys redacted; what could not be shown on stderr. */
export async function profilesList(context: RunContext): Promise<{ profiles: Rec[]; problems: string[] }> {
  return profileSummaries(context.builtIn, { env: context.env, keychain: context.keychain })
}

/** `profiles show [NAME]`: the profile named, else --profile, PAY_PROFILE, the current one. */
export async function profilesShow(
  options: { name?: string },
  context: RunContext,
): Promise<{ profile: Rec; problems: string[] }> {
  const name =
    options.name || context.profile || context.env.PAY_PROFILE || readConfig(context.configDir).current
  if (name === undefined) {
    throw usageError('No profile is selected.', 'Name one, or run `pay login` / `pay profiles use NAME`.')
  }
  const { profiles, problems } = await profileSummaries(context.builtIn, {
    env: context.env,
    only: name,
    keychain: context.keychain,
  })
  const [profile] = profiles
  if (!profile) throw usageError(`There is no profile named "${name}".`, 'See `pay profiles list`.')
  return { profile, problems }
}

/** `profiles use NAME`. */
export async function profilesUse(
  options: { name: string },
  context: RunContext,
): Promise<{ current: string }> {
  await useProfile(options.name, context.builtIn, context.configDir)
  return { current: options.name }
}

/** `profiles remove NAME`: the profile, then its key in the keychain; an entry left there is said. */
export async function profilesRemove(
  options: { name: string },
  context: RunContext,
): Promise<{ summary: Rec; said: string; warning?: string }> {
  const { name } = options
  const removal = await removeProfile(name, context.builtIn, context.configDir, context.keychain)
  const { keychain } = removal
  const warning =
    keychain && !keychain.deleted && 'reason' in keychain
      ? `The key of profile "${name}" is still in the system keychain, which ${keychain.reason}; ` +
        `delete it there (service "pay", account "${keychain.account}").`
      : undefined
  let from = ''
  if (keychain?.deleted)
    from = removal.accessToken
      ? ' Its key and access token were deleted from the system keychain.'
      : ' Its key was deleted from the system keychain.'
  else if (keychain && 'gone' in keychain) from = ' Its key was no longer in the system keychain.'
  const summary = {
    removed: name,
    was_current: removal.wasCurrent,
    key_storage: removal.keyStorage,
    key_deleted: keychain === undefined || keychain.deleted || 'gone' in keychain,
  }
  const said = `Removed profile "${name}".${from}${removal.wasCurrent ? ' No profile is current now.' : ''}`
  return { summary, said, ...(warning ? { warning } : {}) }
}
