import { checkBaseUrl } from '../../api/base-url.js'
import type { PayApi } from '../../api/client.js'
import { readConfig } from '../../config/file.js'
import { PROFILE_NAME, redactKey, saveProfile, storedProfile } from '../../config/profiles.js'
import { PayError, usageError } from '../../errors.js'
import { type Result, shown } from '../../render/result.js'
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

/**
 * `pay login`: the profile's name checked, its base URL (given, stored, or asked), the key read
 * (masked on a terminal, or from stdin), checked with one GET unless --no-verify, then saved
 * (src/config/profiles.ts); what was saved, and where the key went, as the result. The base URL:
 * --base-url, else PAY_BASE_URL, else the profile's, else asked on a terminal.
 */
export async function login(request: LoginRequest, context: RunContext): Promise<Result> {
  const { name } = request
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
  const said: Result[] = []
  // Said in every output mode: a key in plain text is never a surprise. (--debug says why.)
  if (saved.noKeychain !== undefined)
    said.push(shown.notice(`no system keychain: key stored in plain text in ${saved.file}`))
  if (saved.staleKeychainEntry) {
    const { account, reason } = saved.staleKeychainEntry
    said.push(
      shown.warn(
        `The old key of profile "${name}" is still in the system keychain, which ${reason}; ` +
          `delete it there (service "pay", account "${account}").`,
      ),
    )
  }
  const summary = {
    profile: name,
    base_url: baseUrl,
    api_key: redactKey(apiKey),
    key_storage: saved.storage,
    current: true,
    verified: request.verify,
  }
  const where = saved.storage === 'keychain' ? 'in the system keychain' : 'in the config file'
  const verified = request.verify ? ', key verified' : ''
  return [
    ...said,
    shown.message(
      `Saved profile "${name}" (key ${summary.api_key} ${where}, ${baseUrl})${verified}. It is now the current profile.`,
      summary,
    ),
  ]
}

/** One GET with the key: a refused key saves nothing. */
async function verifyKey(api: PayApi, baseUrl: string): Promise<void> {
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

async function askBaseUrl(io: IO): Promise<string> {
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
