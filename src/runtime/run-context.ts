import type http from 'node:http'
import { checkBaseUrl } from '../api/base-url.js'
import { PayApi } from '../api/client.js'
import type { ChangeLog } from '../api/types.js'
import { type Credentials, resolveCredentials } from '../config/credentials.js'
import { configDir } from '../config/file.js'
import { rememberIds } from '../config/id-cache.js'
import { Journal, journalFile, osUser } from '../config/journal.js'
import type { KeychainOptions } from '../config/keychain.js'
import { type BuiltInProfile, redactKey } from '../config/profiles.js'
import { JqProgram } from '../render/jq.js'
import { Output, type OutputOptions } from '../render/output.js'
import { type Printing, print, printsOnStdout, type Result } from '../render/result.js'
import { sandboxDir } from '../shared/sandbox-dir.js'
import { sanitizeText } from '../values.js'
import { attemptedText } from '../work/sandbox/webhooks/webhook-views.js'
import type {
  Connected,
  Consent,
  Env,
  ListScope,
  RunContext,
  RunPart,
  SandboxTarget,
  SentWith,
  Target,
} from './context.js'
import type { IO } from './io.js'
import {
  type Connection,
  connectSandbox,
  noticesShown,
  type Probed,
  probeSandbox,
} from './sandbox/connection.js'
import { sandboxPackages } from './sandbox/packages.js'
import {
  noSandbox,
  refuseUnproven,
  sandboxProfile,
  squatterWarning,
  unservedWarning,
} from './sandbox/profile.js'
import { provedAgent } from './sandbox/proved-agent.js'
import { SeenIds } from './seen-ids.js'

/** How many records a list shows on a terminal when --limit is not given. */
const DEFAULT_LIST_LIMIT = 30
/** Seconds allowed for each request when neither --timeout nor PAY_TIMEOUT says. */
const DEFAULT_TIMEOUT_SECONDS = 30

/** What a run context is made of: the run's environment and terminal, and what the command line asked. */
export interface ContextOptions {
  env: Env
  io: IO
  /** The command as typed: `pay links create`. */
  command: string
  /** Sent as the User-Agent: `pay/0.1.0 node/20.20.0`. */
  userAgent: string
  /** --profile, --base-url, --debug; --timeout in seconds (PAY_TIMEOUT, else 30, when not given). */
  profile?: string
  baseUrl?: string
  debug?: boolean
  timeoutSeconds?: number
  /** The output mode: --json, --jq (its expression), --jsonl, -q, --columns a,b. */
  output?: Omit<OutputOptions, 'jq' | 'columns'> & { jq?: string; columns?: string }
  list?: { all?: boolean; limit?: number; takesAll?: boolean }
  consent?: Partial<Consent>
  now?: () => number
  /** With no profile set up at all, use the built-in sandbox rather than fail (`pay mcp`). */
  sandboxWhenNone?: boolean
}

/**
 * The run context of one invocation (context.ts says what each part is). The API client, the
 * credentials, the sandbox it connects to and the journal are made on first use, once; close()
 * ends what was started (an in-process sandbox) once everything is printed.
 */
export class CommandContext implements RunContext {
  readonly env: Env
  readonly io: IO
  readonly command: string
  readonly profile?: string
  readonly builtIn: BuiltInProfile
  readonly keychain: KeychainOptions
  readonly listScope: ListScope
  readonly consent: Consent
  readonly configDir: string
  readonly sandboxDir: string
  readonly journalFile?: string
  private readonly clock: () => number
  private readonly journals: Journal[] = [] // their files stay open until close()
  private connected?: Promise<Connected>
  /** Where the client sends and with which key, once connected: for the clients of the run's parts. */
  private reached?: { baseUrl: string; apiKey: string }
  private connection?: Connection
  private credentialsSaid = false
  /** The credentials the requests went out with, to explain a refused key. */
  private sent?: SentWith
  /** The in-process sandbox's page addresses were printed on stdout; said once, at close. */
  private pagesPrinted = false
  private pagesWarned = false
  /** Where the in-process sandbox's pages say they are: the profile's address. */
  private pageOrigin = ''
  /** The ids printed, kept at close for completing them (config/id-cache.ts). */
  private readonly ids = new SeenIds()

  private constructor(
    private readonly options: ContextOptions,
    readonly out: Output,
  ) {
    const { env, io } = options
    this.env = env
    this.io = io
    this.command = options.command
    this.profile = options.profile
    this.clock = options.now ?? Date.now
    this.builtIn = sandboxProfile(env)
    this.keychain = { env, debug: this.debugSink() }
    this.configDir = configDir(env)
    this.sandboxDir = sandboxDir(env)
    this.journalFile = journalFile(env)
    const { all = false, limit, takesAll = false } = options.list ?? {}
    const onScreen = io.stdoutIsTerminal && !out.json
    this.listScope = {
      all,
      limit: limit ?? (onScreen ? DEFAULT_LIST_LIMIT : undefined),
      limitGiven: limit !== undefined,
      takesAll,
    }
    this.consent = { yes: options.consent?.yes ?? false, dryRun: options.consent?.dryRun ?? false }
  }

  /** A context for a run; a --jq expression is compiled first: a typo in it costs no request. */
  static async create(options: ContextOptions): Promise<CommandContext> {
    const { jq, columns, ...mode } = options.output ?? {}
    const out = new Output(options.io, {
      ...mode,
      jq: jq === undefined ? undefined : await JqProgram.compile(jq, options.env),
      columns: columns
        ?.split(',')
        .map((c) => c.trim())
        .filter(Boolean),
    })
    return new CommandContext(options, out)
  }

  now(): number {
    return this.clock()
  }

  /** The credentials the command's requests went out with, if it sent any. */
  get sentWith(): SentWith | undefined {
    return this.sent
  }

  api(): Promise<Connected> {
    this.connected ??= this.connect()
    return this.connected
  }

  /** The client of the selected profile; the built-in sandbox profile starts a sandbox if none runs. */
  private async connect(): Promise<Connected> {
    const credentials = await this.credentials()
    let baseUrl = credentials.baseUrl
    /** Makes the connections to a running sandbox of the user's: each proved again (proved-agent.ts). */
    let agent: http.Agent | undefined
    if (credentials.builtIn) {
      this.connection = await connectSandbox(
        baseUrl,
        credentials.apiKey,
        await this.probe(baseUrl),
        this.sandboxDir,
      )
      baseUrl = this.connection.baseUrl
      await print(this.out, noticesShown(this.connection.notices))
      if (this.connection.squatter) this.out.warn(squatterWarning(credentials.baseUrl, this.sandboxDir))
      if (this.connection.inProcess) this.pageOrigin = credentials.baseUrl
      else agent = await provedAgent(baseUrl, this.sandboxDir)
    } else if (credentials.sandbox) {
      // `-p sandbox --base-url URL`: a sandbox on another port, used only once it proves it is the user's own.
      const found = await this.probe(credentials.baseUrl)
      refuseUnproven(credentials.baseUrl, found, 'pay -p sandbox', this.sandboxDir)
      agent = await provedAgent(credentials.baseUrl, this.sandboxDir)
    }
    const label = this.connection?.inProcess ? `${baseUrl} (sandbox, in-process)` : baseUrl
    const target = { profile: credentials.profile ?? '(environment)', baseUrl: label }
    const api = this.makeClient(baseUrl, credentials.apiKey, this.journal(target), agent)
    this.sent = { ...credentials, inProcess: Boolean(this.connection?.inProcess) }
    this.reached = { baseUrl, apiKey: credentials.apiKey }
    return {
      api,
      target,
      sandboxPackages: credentials.builtIn ? sandboxPackages([credentials.apiKey]) : undefined,
      sandbox: credentials.sandbox === true,
    }
  }

  within(part: RunPart): RunContext {
    let connected: Promise<Connected> | undefined
    // The part's own client: the run's connection, its changes journaled under the part's command.
    const api = async (): Promise<Connected> => {
      const run = await this.api()
      const { baseUrl, apiKey } = this.reached as { baseUrl: string; apiKey: string }
      return { ...run, api: this.makeClient(baseUrl, apiKey, this.journal(run.target, part.command)) }
    }
    return {
      env: this.env,
      io: part.io,
      out: part.out,
      command: part.command,
      now: () => this.now(),
      profile: this.profile,
      builtIn: this.builtIn,
      keychain: this.keychain,
      listScope: part.listScope ?? this.listScope,
      consent: part.consent ?? this.consent,
      configDir: this.configDir,
      sandboxDir: this.sandboxDir,
      journalFile: this.journalFile,
      api: () => {
        connected ??= api()
        return connected
      },
      client: (baseUrl, apiKey) => this.client(baseUrl, apiKey),
      sandboxTarget: () => this.sandboxTarget(),
      warnIfPageUnserved: (url) => this.warnIfPageUnserved(url),
      show: (result) => print(part.out, result),
      within: (other) => this.within(other),
    }
  }

  /**
   * The profile, key and base URL; `fallback` is the profile used when none is selected by flag
   * or PAY_PROFILE. What they override is said once.
   */
  private async credentials(fallback?: string): Promise<Credentials> {
    const credentials = await resolveCredentials({
      profile: this.profile || (this.env.PAY_PROFILE ? undefined : fallback),
      baseUrl: this.options.baseUrl,
      builtIn: this.builtIn,
      env: this.env,
      keychain: this.keychain,
      whenNone: this.options.sandboxWhenNone ? this.builtIn.name : undefined,
    })
    if (this.credentialsSaid) return credentials
    this.credentialsSaid = true
    if (credentials.keyFromEnv) {
      this.out.notice(
        `Using the API key from PAY_API_KEY (${redactKey(credentials.apiKey)}) instead of profile "${credentials.profile}"'s.`,
      )
    }
    if (credentials.baseUrlSetAside !== undefined) {
      this.out.notice(
        `PAY_BASE_URL (${credentials.baseUrlSetAside}) is left aside for the sandbox profile, which talks only to ` +
          'your own sandbox (--base-url points it at one on another port).',
      )
    }
    return credentials
  }

  /** What answers at a sandbox's address (src/sandbox/proof.ts), in the --debug trace too. */
  private async probe(baseUrl: string): Promise<Probed> {
    const found = await probeSandbox(baseUrl, { dir: this.sandboxDir })
    if (this.options.debug) {
      const said = {
        proven: 'a pay sandbox that proved it keeps its store in PAY_SANDBOX_DIR',
        unproven: 'a pay sandbox that could not prove it keeps its store in PAY_SANDBOX_DIR',
        other: 'not a pay sandbox',
        none: 'nothing',
      }[found]
      this.out.stderr.write(
        `${sanitizeText(`[debug] GET ${baseUrl}/_sandbox/health?challenge=…: ${said}`)}\n`,
      )
    }
    return found
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
    const { env } = this
    const envOnly =
      !this.profile &&
      !env.PAY_PROFILE &&
      Boolean(env.PAY_API_KEY) &&
      Boolean(this.options.baseUrl || env.PAY_BASE_URL)
    const credentials = await this.credentials(envOnly ? undefined : this.builtIn.name)
    const target = { profile: credentials.profile ?? '(environment)', baseUrl: credentials.baseUrl }
    // A base URL pay refuses (plain http beyond loopback) is refused before any probe.
    checkBaseUrl(credentials.baseUrl)
    const found = await this.probe(credentials.baseUrl)
    if (found === 'proven') {
      this.sent = { ...credentials, inProcess: false }
      const agent = await provedAgent(credentials.baseUrl, this.sandboxDir)
      const api = this.makeClient(credentials.baseUrl, credentials.apiKey, this.journal(target), agent)
      return { server: true, api, target }
    }
    if (credentials.builtIn) {
      if (found !== 'none')
        this.out.warn(squatterWarning(credentials.baseUrl, this.sandboxDir, 'the local store was used'))
      return { server: false, dir: this.sandboxDir, baseUrl: credentials.baseUrl, apiKey: credentials.apiKey }
    }
    throw noSandbox(this.command, credentials, found, this.sandboxDir)
  }

  /** The journal this run's changes (or a part's: `command`) are written to; undefined when PAY_JOURNAL=0. */
  private journal(target: Target, command = this.command): Journal | undefined {
    if (this.journalFile === undefined) return undefined
    const { profile, baseUrl } = target
    const context = { command, profile, baseUrl, terminal: this.io.stderrIsTerminal, user: osUser(this.env) }
    const journal = new Journal(this.journalFile, context, (message) => this.out.warn(message))
    this.journals.push(journal)
    return journal
  }

  client(baseUrl: string, apiKey: string): PayApi {
    return this.makeClient(baseUrl, apiKey)
  }

  /** A client for this base URL and key, with the run's timeout, --debug trace and journal. */
  private makeClient(baseUrl: string, apiKey: string, changes?: ChangeLog, agent?: http.Agent): PayApi {
    return new PayApi({
      baseUrl,
      apiKey,
      changes,
      agent,
      timeoutMs: this.timeoutSeconds() * 1000,
      userAgent: this.options.userAgent,
      debug: this.debugSink(),
    })
  }

  /** Seconds allowed for each request, retries included: --timeout, else PAY_TIMEOUT, else 30. */
  private timeoutSeconds(): number {
    if (this.options.timeoutSeconds !== undefined) return this.options.timeoutSeconds
    const fromEnv = Number(this.env.PAY_TIMEOUT)
    return fromEnv > 0 ? fromEnv : DEFAULT_TIMEOUT_SECONDS
  }

  /**
   * Where --debug lines go: stderr, each sanitised like every other text shown (a trace carries
   * a server's status line, headers and bodies); undefined without --debug.
   */
  private debugSink(): ((line: string) => void) | undefined {
    if (!this.options.debug) return undefined
    return (line) => this.out.stderr.write(`[debug] ${sanitizeText(line)}\n`)
  }

  warnIfPageUnserved(url: string): void {
    if (!this.connection?.inProcess || this.pagesWarned) return
    this.pagesWarned = true
    let origin = url
    try {
      origin = new URL(url).origin
    } catch {}
    this.out.warn(unservedWarning(origin, this.connection.squatter, 'this page'))
  }

  /**
   * Prints a result. With the in-process sandbox, each part printed is looked at for its page
   * addresses (`payment_url`, `activation_url`), which name the profile's address where no
   * sandbox of the user's serves them: close() says so on stderr, once, in every output mode.
   */
  show(result: Result): Promise<void> {
    return print(this.out, result, this.printed)
  }

  /** Each part printed: its ids noted; with the in-process sandbox, its page addresses looked at. */
  private readonly printed: Printing = (item, records) => {
    this.ids.note(item, records, this.command)
    if (!this.connection?.inProcess || this.pagesPrinted) return
    if (printsOnStdout(this.out, item, `${this.pageOrigin}/checkout/`, records)) this.pagesPrinted = true
  }

  /**
   * Ends the run: the journal's file closed, the ids printed kept for completion (for the profile
   * the requests went with), what was said of page addresses printed, then the in-process sandbox closed.
   */
  async close(failure?: unknown): Promise<void> {
    for (const journal of this.journals.splice(0)) journal.close()
    rememberIds(this.env, this.sent?.profile, this.ids.changes)
    // A command that failed (its output may not have been written at all) has other news to give.
    if (failure === undefined && this.pagesPrinted && this.connection?.inProcess && !this.pagesWarned) {
      this.pagesWarned = true
      this.out.warn(unservedWarning(this.pageOrigin, this.connection.squatter, 'the page addresses printed'))
    }
    await this.connection?.close()
    for (const line of attemptedText(this.connection?.attempted ?? [], this.sandboxDir)) this.out.notice(line)
  }
}
