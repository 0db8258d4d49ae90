import type http from 'node:http'
import { checkBaseUrl } from '../api/base-url.js'
import { type Credentials, resolveAccount, resolveCredentials } from '../config/credentials.js'
import type { KeychainOptions } from '../config/keychain.js'
import { type BuiltInProfile, redactKey } from '../config/profiles.js'
import type { Output } from '../render/output.js'
import { print } from '../render/result.js'
import { sanitizeText } from '../values.js'
import type { Clients } from './clients.js'
import type { AccountConnected, Connected, Env, SandboxTarget, SentWith } from './context.js'
import {
  type Connection,
  connectSandbox,
  noticesShown,
  type Probed,
  probeSandbox,
} from './sandbox/connection.js'
import { sandboxPackages } from './sandbox/packages.js'
import { madeOverOldStore, noSandbox, refuseUnproven, squatterWarning } from './sandbox/profile.js'
import { provedAgent } from './sandbox/proved-agent.js'

/**
 * Where a run's requests go, and with which key: the profile's credentials (what overrides them
 * said once), the user's own sandbox proved before it is sent anything, or one started in this
 * process for the built-in profile. Made once per run (run-context.ts), on first use.
 */
export class Access {
  /** The sandbox the built-in profile connected to (a running one, or one in this process). */
  connection?: Connection
  /** The credentials the requests went out with, to explain a refused key. */
  sent?: SentWith
  /** Where the client sends and with which key, once connected: for the clients of the run's parts. */
  reached?: { baseUrl: string; apiKey: string }
  /** Where the in-process sandbox's pages say they are: the profile's address. */
  pageOrigin = ''
  private credentialsSaid = false

  constructor(
    private readonly options: {
      env: Env
      out: Output
      command: string
      clients: Clients
      builtIn: BuiltInProfile
      keychain: KeychainOptions
      sandboxDir: string
      /** --profile and --base-url as given, and --debug. */
      profile?: string
      baseUrl?: string
      debug?: boolean
      /** With no profile set up at all, use the built-in sandbox rather than fail (`pay mcp`). */
      sandboxWhenNone?: boolean
    },
  ) {}

  /** The client of the selected profile; the built-in sandbox profile starts a sandbox if none runs. */
  async connect(): Promise<Connected> {
    const { clients, out, sandboxDir } = this.options
    const credentials = await this.credentials()
    let baseUrl = credentials.baseUrl
    /** Makes the connections to a running sandbox of the user's: each proved again (proved-agent.ts). */
    let agent: http.Agent | undefined
    if (credentials.builtIn) {
      const found = await this.probe(baseUrl)
      this.connection = await connectSandbox(baseUrl, credentials.apiKey, found, sandboxDir)
      baseUrl = this.connection.baseUrl
      await print(out, noticesShown(this.connection.notices))
      if (this.connection.squatter) out.warn(squatterWarning(credentials.baseUrl, sandboxDir))
      if (this.connection.inProcess) this.pageOrigin = credentials.baseUrl
      else agent = await provedAgent(baseUrl, sandboxDir)
    } else if (credentials.sandbox) {
      // `-p sandbox --base-url URL`: a sandbox on another port, used only once it proves it is the user's own.
      const found = await this.probe(credentials.baseUrl)
      refuseUnproven(credentials.baseUrl, found, 'pay -p sandbox', sandboxDir)
      agent = await provedAgent(credentials.baseUrl, sandboxDir)
    }
    const label = this.connection?.inProcess ? `${baseUrl} (sandbox, in-process)` : baseUrl
    const target = { profile: credentials.profile ?? '(environment)', baseUrl: label }
    const api = clients.make(baseUrl, credentials.apiKey, clients.journal(target), agent)
    this.sent = { ...credentials, inProcess: Boolean(this.connection?.inProcess) }
    this.reached = { baseUrl, apiKey: credentials.apiKey }
    return {
      api,
      target,
      sandboxPackages: credentials.builtIn ? sandboxPackages([credentials.apiKey]) : undefined,
      sandbox: credentials.sandbox === true,
    }
  }

  /**
   * The selected profile's account (`pay login --email`): its access token, sent to the profile's
   * base URL (--base-url, PAY_BASE_URL), the changes journaled under `command`.
   */
  async account(command?: string): Promise<AccountConnected> {
    const { env, clients, builtIn, keychain } = this.options
    const account = await resolveAccount({
      profile: this.options.profile,
      baseUrl: this.options.baseUrl,
      builtIn,
      env,
      keychain,
      token: true,
    })
    checkBaseUrl(account.baseUrl)
    const target = { profile: account.profile, baseUrl: account.baseUrl }
    const token = account.accessToken as string
    return { api: clients.make(account.baseUrl, token, clients.journal(target, command)), target, account }
  }

  /**
   * Its profile is --profile > PAY_PROFILE > the built-in `sandbox` (never the current profile,
   * usually the live service), or PAY_API_KEY with --base-url/PAY_BASE_URL alone, as for every
   * command. A pay sandbox that answers at the profile's base URL and proves it is the user's is
   * used over HTTP with the profile's key, so that an app using that server sees the change;
   * otherwise the built-in profile at its own address means the local store ($PAY_SANDBOX_DIR),
   * as the in-process sandbox does; any other base URL without a sandbox is an error, never a
   * silent switch to the local store.
   */
  async sandboxTarget(): Promise<SandboxTarget> {
    const { env, clients, out, sandboxDir, command, builtIn } = this.options
    const envOnly =
      !this.options.profile &&
      !env.PAY_PROFILE &&
      Boolean(env.PAY_API_KEY) &&
      Boolean(this.options.baseUrl || env.PAY_BASE_URL)
    const credentials = await this.credentials(envOnly ? undefined : builtIn.name)
    const target = { profile: credentials.profile ?? '(environment)', baseUrl: credentials.baseUrl }
    // A base URL pay refuses (plain http beyond loopback) is refused before any probe.
    checkBaseUrl(credentials.baseUrl)
    const found = await this.probe(credentials.baseUrl)
    if (found === 'proven') {
      this.sent = { ...credentials, inProcess: false }
      const agent = await provedAgent(credentials.baseUrl, sandboxDir)
      const api = clients.make(credentials.baseUrl, credentials.apiKey, clients.journal(target), agent)
      return { server: true, api, target }
    }
    if (credentials.builtIn) {
      if (found !== 'none')
        out.warn(squatterWarning(credentials.baseUrl, sandboxDir, 'the local store was used'))
      return { server: false, dir: sandboxDir, baseUrl: credentials.baseUrl, apiKey: credentials.apiKey }
    }
    throw noSandbox(command, credentials, found, sandboxDir)
  }

  /**
   * The profile, key and base URL; `fallback` is the profile used when none is selected by flag
   * or PAY_PROFILE. What they override is said once.
   */
  private async credentials(fallback?: string): Promise<Credentials> {
    const { env, out, builtIn, keychain } = this.options
    const credentials = await resolveCredentials({
      profile: this.options.profile || (env.PAY_PROFILE ? undefined : fallback),
      baseUrl: this.options.baseUrl,
      builtIn,
      env,
      keychain,
      whenNone: this.options.sandboxWhenNone ? builtIn.name : undefined,
    })
    if (this.credentialsSaid) return credentials
    this.credentialsSaid = true
    if (credentials.builtIn && builtIn.keyMadeOverStore) {
      const said = await madeOverOldStore(this.options.sandboxDir)
      if (said !== undefined) out.notice(said)
    }
    if (credentials.keyFromEnv) {
      out.notice(
        `Using the API key from PAY_API_KEY (${redactKey(credentials.apiKey)}) instead of profile "${credentials.profile}"'s.`,
      )
    }
    if (credentials.baseUrlSetAside !== undefined) {
      out.notice(
        `PAY_BASE_URL (${credentials.baseUrlSetAside}) is left aside for the sandbox profile, which talks only to ` +
          'your own sandbox (--base-url points it at one on another port).',
      )
    }
    return credentials
  }

  /** What answers at a sandbox's address (src/sandbox/proof.ts), in the --debug trace too. */
  private async probe(baseUrl: string): Promise<Probed> {
    const found = await probeSandbox(baseUrl, { dir: this.options.sandboxDir })
    if (this.options.debug) {
      const said = {
        proven: 'a pay sandbox that proved it keeps its store in PAY_SANDBOX_DIR',
        unproven: 'a pay sandbox that could not prove it keeps its store in PAY_SANDBOX_DIR',
        other: 'not a pay sandbox',
        none: 'nothing',
      }[found]
      this.options.out.stderr.write(
        `${sanitizeText(`[debug] GET ${baseUrl}/_sandbox/health?challenge=…: ${said}`)}\n`,
      )
    }
    return found
  }
}
