import { checkBaseUrl } from '../../api/base-url.js'
import type { PayApi } from '../../api/client.js'
import { readConfig } from '../../config/file.js'
import { PROFILE_NAME, redactKey, saveProfile, storedProfile } from '../../config/profiles.js'
import { PayError, usageError } from '../../errors.js'
import type { RunContext } from '../../runtime/context.js'
import { type IO, notATerminal } from '../../runtime/io.js'

/** What `pay login` was asked: the profile, the base URL given (--base-url), how the key comes and goes. */
export interface LoginRequest {
  name: string
  baseUrl?: string
  withKey: boolean
  insecureStorage: boolean
  verify: boolean
}

/** What `pay login` saved, and what there is to say of where the key went. */
export interface LoginOutcome {
  /**
   * `{profile, base_url, api_key (redacted), key_storage, current, verified}`: what --json prints;
   * `login --email` adds the account and what it chose (email.ts).
   */
  summary: {
    profile: string
    base_url: string
    api_key: string
    key_storage: string
    current: true
    verified: boolean
    account?: string
    business_id?: string
    business_name?: string
    integration_id?: string
  }
  /** No system keychain: the key went to this config file, in plain text. */
  plainTextFile?: string
  /** The profile's old key left in the system keychain, which refused to delete it. */
  staleKeychainEntry?: { account: string; reason: string }
}

/**
 * `pay login`: the profile's name checked, its base URL (given, stored, or asked), the key read
 * (masked on a terminal, or from stdin), checked with one GET unless --no-verify, then saved
 * (src/config/profiles.ts); what was saved, and where the key went, as the result. The base URL:
 * --base-url, else PAY_BASE_URL, else the profile's, else asked on a terminal.
 */
export async function login(request: LoginRequest, context: RunContext): Promise<LoginOutcome> {
  const { name } = request
  checkProfileName(name, context)
  const existing = storedProfile(readConfig(context.configDir), name)
  const given = request.baseUrl || context.env.PAY_BASE_URL
  const baseUrl = given || existing?.base_url || (await askBaseUrl(context.io))
  checkBaseUrl(baseUrl)
  const apiKey = await readKey(request.withKey, context.io)
  if (request.verify) await verifyKey(context.client(baseUrl, apiKey), baseUrl)

  const saved = await saveProfile(
    name,
    { apiKey, baseUrl, insecureStorage: request.insecureStorage, keychain: context.keychain },
    context.configDir,
  )
  const summary = {
    profile: name,
    base_url: baseUrl,
    api_key: redactKey(apiKey),
    key_storage: saved.storage,
    current: true as const,
    verified: request.verify,
  }
  return {
    summary,
    ...(saved.noKeychain !== undefined ? { plainTextFile: saved.file } : {}),
    ...(saved.staleKeychainEntry ? { staleKeychainEntry: saved.staleKeychainEntry } : {}),
  }
}

/** A name `pay login` may save a profile under: not the built-in one's, and of the form names take. */
export function checkProfileName(name: string, context: Pick<RunContext, 'builtIn'>): void {
  const builtIn = context.builtIn.name
  if (name === builtIn) {
    throw usageError(
      `The ${builtIn} profile is built in and needs no login.`,
      `Use it with \`-p ${builtIn}\`.`,
    )
  }
  if (!PROFILE_NAME.test(name)) {
    throw usageError(
      `"${name}" cannot be a profile name.`,
      'Use up to 64 letters, digits, ".", "_" and "-", starting with a letter or digit.',
    )
  }
}

/** What `pay login` says of what it saved, and, said in every output mode, of where the key went. */
export function loginWords(outcome: LoginOutcome): { notices: string[]; warnings: string[]; said: string } {
  const { summary, plainTextFile, staleKeychainEntry } = outcome
  // A profile of `pay login --email` keeps its access token where its key goes.
  const what = 'account' in summary ? 'key and access token' : 'key'
  const notices = plainTextFile
    ? [`no system keychain: ${what} stored in plain text in ${plainTextFile}`]
    : []
  const warnings = staleKeychainEntry
    ? [
        `The old key of profile "${summary.profile}" is still in the system keychain, which ${staleKeychainEntry.reason}; ` +
          `delete it there (service "pay", account "${staleKeychainEntry.account}").`,
      ]
    : []
  const where = summary.key_storage === 'keychain' ? 'in the system keychain' : 'in the config file'
  const verified = summary.verified ? ', key verified' : ''
  const account =
    'account' in summary
      ? `Signed in as ${summary.account}; business ${summary.business_name} (${summary.business_id}), integration ${summary.integration_id}. `
      : ''
  const said = `${account}Saved profile "${summary.profile}" (key ${summary.api_key} ${where}, ${summary.base_url})${verified}. It is now the current profile.`
  return { notices, warnings, said }
}

/** One GET with the key: a refused key saves nothing. */
export async function verifyKey(api: PayApi, baseUrl: string): Promise<void> {
  try {
    await api.pages('listLinks').next()
  } catch (error) {
    if (error instanceof PayError && error.kind === 'auth') {
      throw new PayError(`${baseUrl} did not accept the key (${error.status}); nothing was saved.`, {
        kind: 'auth',
        status: error.status,
      })
    }
    throw error
  }
}

export async function askBaseUrl(io: IO): Promise<string> {
  if (!io.canPrompt) {
    throw usageError(
      'Missing required flag: --base-url',
      `Give the service address with --base-url or PAY_BASE_URL (${notATerminal(io)}, so pay does not ask).`,
    )
  }
  const answer = await io.ask({
    message: 'Base URL of the service',
    validate: (value) => {
      try {
        checkBaseUrl(value.trim())
        return true
      } catch (error) {
        return (error as Error).message
      }
    },
  })
  return answer.trim()
}

/** The key, from stdin (--with-key) or asked masked on a terminal; never from a flag. */
async function readKey(withKey: boolean, io: IO): Promise<string> {
  let key: string
  if (withKey) {
    key = (await io.readStdin()).trim()
  } else if (io.canPrompt) {
    key = (await io.askSecret('API key')).trim()
  } else {
    throw usageError(
      `No API key given: ${notATerminal(io)}, so pay cannot ask for it.`,
      'Pipe it in with --with-key.',
    )
  }
  if (key === '') throw usageError('The API key is empty.')
  if (/\s/.test(key)) throw usageError('The API key contains whitespace; check what was pasted or piped.')
  return key
}
