/**
 * `pay login --email EMAIL`: signs in to the service's account as its shop plugins do
 * (docs/choices.md), lists the account's approved businesses, takes one (--business ID, the only
 * one, or asked on a terminal), and stores what the plugins store of it: its API key (in the
 * system keychain, as `pay login` stores a key), its signature key, business and integration, and
 * the access token, kept where the key goes and never shown. `pay businesses` and `pay webhooks`
 * use the token; the key serves every other command.
 */
import { checkBaseUrl } from '../../api/base-url.js'
import { readConfig } from '../../config/file.js'
import { redactKey, saveProfile, storedProfile } from '../../config/profiles.js'
import { PayError, usageError } from '../../errors.js'
import type { RunContext } from '../../runtime/context.js'
import { type IO, notATerminal } from '../../runtime/io.js'
import { isRecord, plain, type Rec } from '../../values.js'
import { askBaseUrl, checkProfileName, type LoginOutcome, verifyKey } from './login.js'

/** What `pay login --email` was asked. */
export interface EmailLoginRequest {
  name: string
  baseUrl?: string
  email: string
  /** --password-stdin: the password is stdin's (its last line break dropped); else asked masked. */
  passwordStdin: boolean
  /** --business ID: the business to take; else the only one, or asked. */
  business?: string
  insecureStorage: boolean
  verify: boolean
}

/** What `pay login --email` saved, and of which business. */
export interface EmailLoginOutcome extends LoginOutcome {
  summary: LoginOutcome['summary'] & {
    account: string
    business_id: string
    business_name: string
    integration_id: string
    signature_key: string
  }
}

/** A business of the account as its answer has it: its id, name, and integration's id and keys. */
interface Business {
  id: string
  name: string
  integrationId: string
  apiKey: string
  signatureKey: string
}

function businessOf(record: Rec): Business | undefined {
  const integration = isRecord(record.integration) ? record.integration : {}
  const business = {
    id: plain(record.id),
    name: plain(record.name),
    integrationId: plain(integration.id),
    apiKey: plain(integration.api_key),
    signatureKey: plain(integration.signature_key),
  }
  return business.id && business.integrationId && business.apiKey ? business : undefined
}

export async function loginWithEmail(
  request: EmailLoginRequest,
  context: RunContext,
): Promise<EmailLoginOutcome> {
  const { name, email } = request
  checkProfileName(name, context)
  const existing = storedProfile(readConfig(context.configDir), name)
  const baseUrl =
    request.baseUrl || context.env.PAY_BASE_URL || existing?.base_url || (await askBaseUrl(context.io))
  checkBaseUrl(baseUrl)
  const password = await readPassword(request.passwordStdin, email, context.io)
  // No key goes with the sign-in; the account's token with what it opens.
  const answer = await context.client(baseUrl, '').send('signIn', { body: { email, password } })
  const token = plain(answer.token)
  if (token === '')
    throw new PayError(`${baseUrl} answered the sign-in with no token.`, { kind: 'unavailable' })
  const listed = await context.client(baseUrl, token).send('approvedBusinesses')
  const businesses = listed.map(businessOf).filter((b): b is Business => b !== undefined)
  const business = await chosen(businesses, request.business, context.io)
  if (request.verify) await verifyKey(context.client(baseUrl, business.apiKey), baseUrl)
  const saved = await saveProfile(
    name,
    {
      apiKey: business.apiKey,
      baseUrl,
      insecureStorage: request.insecureStorage,
      keychain: context.keychain,
      account: {
        accessToken: token,
        email,
        businessId: business.id,
        businessName: business.name,
        integrationId: business.integrationId,
        signatureKey: business.signatureKey,
      },
    },
    context.configDir,
  )
  return {
    summary: {
      profile: name,
      base_url: baseUrl,
      api_key: redactKey(business.apiKey),
      key_storage: saved.storage,
      current: true,
      verified: request.verify,
      account: email,
      business_id: business.id,
      business_name: business.name,
      integration_id: business.integrationId,
      signature_key: redactKey(business.signatureKey),
    },
    ...(saved.noKeychain !== undefined ? { plainTextFile: saved.file } : {}),
    ...(saved.staleKeychainEntry ? { staleKeychainEntry: saved.staleKeychainEntry } : {}),
  }
}

/** The password: stdin's with --password-stdin, else asked masked on a terminal; never from a flag. */
async function readPassword(fromStdin: boolean, email: string, io: IO): Promise<string> {
  let password: string
  if (fromStdin) password = (await io.readStdin()).replace(/\r?\n$/, '')
  else if (io.canPrompt) password = await io.askSecret(`Password of ${email}`)
  else {
    throw usageError(
      `No password given: ${notATerminal(io)}, so pay cannot ask for it.`,
      'Pipe it in with --password-stdin.',
    )
  }
  if (password === '') throw usageError('The password is empty.')
  return password
}

/** The business asked for (--business), else the only one, else asked on a terminal. */
async function chosen(businesses: Business[], wanted: string | undefined, io: IO): Promise<Business> {
  const ids = businesses.map((b) => b.id).join(', ')
  if (wanted !== undefined) {
    const found = businesses.find((b) => b.id === wanted)
    if (found) return found
    throw new PayError(`The account has no approved business ${wanted}.`, {
      kind: 'not_found',
      hint: businesses.length > 0 ? `Its businesses: ${ids}.` : 'It has no approved business.',
    })
  }
  if (businesses.length === 0)
    throw new PayError('The account has no approved business: there is no API key to store.', {
      kind: 'not_found',
    })
  if (businesses.length === 1) return businesses[0]
  if (!io.canPrompt) {
    throw usageError(
      `The account has ${businesses.length} businesses: choose one with --business ID.`,
      `Its businesses: ${ids} (${notATerminal(io)}, so pay does not ask).`,
    )
  }
  const id = await io.choose({
    message: 'Business',
    choices: businesses.map((b) => ({ name: `${b.name}  (${b.id})`, value: b.id })),
  })
  return businesses.find((b) => b.id === id) as Business
}
