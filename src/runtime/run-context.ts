import { configDir } from '../config/file.js'
import { rememberIds } from '../config/id-cache.js'
import { journalFile } from '../config/journal.js'
import type { KeychainOptions } from '../config/keychain.js'
import type { BuiltInProfile } from '../config/profiles.js'
import { JqProgram } from '../render/jq.js'
import { Output, type OutputOptions } from '../render/output.js'
import { print, type Result } from '../render/result.js'
import { sandboxDir } from '../shared/sandbox-dir.js'
import { Access } from './access.js'
import { Clients } from './clients.js'
import type {
  AccountConnected,
  Connected,
  Consent,
  Env,
  ListScope,
  RunContext,
  RunPart,
  SandboxTarget,
  SentWith,
} from './context.js'
import type { IO } from './io.js'
import { PageNotices } from './page-notices.js'
import { attemptedText } from './sandbox/attempted.js'
import { sandboxProfile } from './sandbox/profile.js'

/** How many records a list shows on a terminal when --limit is not given. */
const DEFAULT_LIST_LIMIT = 30

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
 * The run context of one invocation (context.ts says what each part is), built of its concerns:
 * where the requests go (access.ts), the clients and the journal (clients.ts), what is said of
 * what was printed (page-notices.ts). The API client, the credentials, the sandbox it connects to
 * and the journal are made on first use, once; close() ends what was started (an in-process
 * sandbox) once everything is printed.
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
  private readonly clients: Clients
  private readonly access: Access
  private readonly notices: PageNotices
  private connected?: Promise<Connected>
  private signedIn?: Promise<AccountConnected>

  private constructor(
    options: ContextOptions,
    readonly out: Output,
  ) {
    const { env, io } = options
    this.env = env
    this.io = io
    this.command = options.command
    this.profile = options.profile
    this.clock = options.now ?? Date.now
    this.configDir = configDir(env)
    this.sandboxDir = sandboxDir(env)
    this.builtIn = sandboxProfile(env, this.sandboxDir)
    this.journalFile = journalFile(env)
    this.clients = new Clients({
      env,
      out,
      command: options.command,
      userAgent: options.userAgent,
      terminal: io.stderrIsTerminal,
      journalFile: this.journalFile,
      debug: options.debug,
      timeoutSeconds: options.timeoutSeconds,
    })
    this.keychain = { env, debug: this.clients.debugSink() }
    this.access = new Access({
      env,
      out,
      command: options.command,
      clients: this.clients,
      builtIn: this.builtIn,
      keychain: this.keychain,
      sandboxDir: this.sandboxDir,
      profile: options.profile,
      baseUrl: options.baseUrl,
      debug: options.debug,
      sandboxWhenNone: options.sandboxWhenNone,
    })
    this.notices = new PageNotices(out, this.access, options.command)
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
    return this.access.sent
  }

  api(): Promise<Connected> {
    this.connected ??= this.access.connect()
    return this.connected
  }

  sandboxTarget(): Promise<SandboxTarget> {
    return this.access.sandboxTarget()
  }

  account(): Promise<AccountConnected> {
    this.signedIn ??= this.access.account()
    return this.signedIn
  }

  client(baseUrl: string, apiKey: string) {
    return this.clients.make(baseUrl, apiKey)
  }

  within(part: RunPart): RunContext {
    let connected: Promise<Connected> | undefined
    let signedIn: Promise<AccountConnected> | undefined
    // The part's own client: the run's connection, its changes journaled under the part's command.
    const api = async (): Promise<Connected> => {
      const run = await this.api()
      const { baseUrl, apiKey } = this.access.reached as { baseUrl: string; apiKey: string }
      return {
        ...run,
        api: this.clients.make(baseUrl, apiKey, this.clients.journal(run.target, part.command)),
      }
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
      account: () => {
        signedIn ??= this.access.account(part.command)
        return signedIn
      },
      client: (baseUrl, apiKey) => this.client(baseUrl, apiKey),
      sandboxTarget: () => this.sandboxTarget(),
      warnIfPageUnserved: (url) => this.warnIfPageUnserved(url),
      show: (result) => print(part.out, result),
      within: (other) => this.within(other),
    }
  }

  warnIfPageUnserved(url: string): void {
    this.notices.warnIfUnserved(url)
  }

  /**
   * Prints a result. Each part printed is looked at (page-notices.ts): its ids, and, with the
   * in-process sandbox, its page addresses, which name the profile's address where no sandbox of
   * the user's serves them: close() says so on stderr, once, in every output mode.
   */
  show(result: Result): Promise<void> {
    return print(this.out, result, this.notices.printed)
  }

  /**
   * Ends the run: the journal's file closed, the ids printed kept for completion (for the profile
   * the requests went with), what was said of page addresses printed, then the in-process sandbox closed.
   */
  async close(failure?: unknown): Promise<void> {
    this.clients.close()
    rememberIds(this.env, this.access.sent?.profile, this.notices.ids.changes)
    this.notices.atClose(failure)
    const connection = this.access.connection
    await connection?.close()
    for (const line of attemptedText(connection?.attempted ?? [], this.sandboxDir)) this.out.notice(line)
  }
}
