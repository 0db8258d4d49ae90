import { Command, type Interfaces } from '@oclif/core'
import { PayApi } from '../api/client.js'
import type { ChangeLog } from '../api/types.js'
import { type Credentials, resolveCredentials } from '../config/credentials.js'
import { Journal, journalFile } from '../config/journal.js'
import type { KeychainOptions } from '../config/keychain.js'
import { redactKey } from '../config/profiles.js'
import { usageError } from '../errors.js'
import { JqProgram } from '../render/jq.js'
import { Output } from '../render/output.js'
import { print, type Result } from '../render/result.js'
import { sandboxDir } from '../shared/sandbox-dir.js'
import { sanitizeText } from '../values.js'
import {
  explainRefusedKey,
  refuseContradictions,
  type SentWith,
  toPayError,
  wantsJsonErrors,
} from './command-errors.js'
import { globalFlags } from './flags.js'
import { commandIO, type IO } from './io.js'
import {
  type Connection,
  connectSandbox,
  noticesShown,
  type Probed,
  probeSandbox,
} from './sandbox/connection.js'
import {
  noSandbox,
  refuseUnproven,
  sandboxProfile,
  squatterWarning,
  unservedWarning,
} from './sandbox/profile.js'

type CommandFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof BaseCommand)['baseFlags'] & T['flags']
>
type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** How many records a list shows on a terminal when --limit is not given. */
const DEFAULT_LIST_LIMIT = 30

/** Where the command's requests go, for confirmations and messages. */
export interface Target {
  profile: string
  baseUrl: string
}

/**
 * Where a sandbox command acts (BaseCommand.sandboxTarget): a running sandbox, through its API,
 * or the local store in `dir`, with the key and address it would be reached at.
 */
export type SandboxTarget =
  | { server: true; api: PayApi; target: Target }
  | { server: false; dir: string; baseUrl: string; apiKey: string }

/**
 * Every command's parent: the global flags, one parse into this.flags/this.args, the API
 * client set-up, and one catch() that prints a clean error and exits with the code of its kind.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static baseFlags = globalFlags
  /** A 422's fields are shown as the service names them, not as flags (`pay api`, which has none). */
  static fieldsAsSent = false

  protected flags!: CommandFlags<T>
  protected args!: CommandArgs<T>
  /** Every positional argument, for commands that take a list of ids. */
  protected positionals: string[] = []
  protected readonly io: IO = commandIO()
  protected out: Output = new Output(this.io, { json: wantsJsonErrors(this.argv) })
  private connection?: Connection
  /** The credentials the command's requests went out with, to explain a refused key. */
  private sentWith?: SentWith
  /** PAY_BASE_URL was said to be left aside (once a command). */
  private saidBaseUrlSetAside = false
  /** The in-process sandbox's page addresses went to stdout; said on stderr once. */
  private pagesPrinted = false
  private pagesWarned = false
  /** Where the in-process sandbox's pages say they are: the profile's address. */
  private pageOrigin = ''
  private stopWatching?: () => void

  /** What the command does; it returns what it produced, which the base prints (render/result.ts). */
  abstract run(): Promise<Result>

  /**
   * oclif's run, with the printing of what run() returned inside it: an error while printing
   * (a jq error, a page that failed mid-list) goes through catch() like any other, and the
   * in-process sandbox is closed (finally) only once the output is out.
   */
  async _run<R>(): Promise<R> {
    let failure: Error | undefined
    let result: Result
    try {
      await this.init()
      result = await this.run()
      await this.show(result)
    } catch (error) {
      failure = error as Error
      await this.catch(error as Error)
    } finally {
      await this.finally(failure)
    }
    return result as R
  }

  /** Prints what the command produced so far, for a command that goes on running (`sandbox start`). */
  protected show(result: Result): Promise<void> {
    return print(this.out, result)
  }

  async init(): Promise<void> {
    await super.init()
    const { args, argv, flags, raw } = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as CommandFlags<T>
    this.args = args as CommandArgs<T>
    this.positionals = argv as string[]
    refuseContradictions(raw)
    const { columns, quiet, jq, jsonl, json } = flags as {
      columns?: string
      quiet?: boolean
      jq?: string
      jsonl?: boolean
      json?: boolean
    }
    // Checked here rather than with oclif's `exclusive`, whose usage line shows empty groups; only
    // for commands that print records (`sandbox start --quiet` is another flag).
    const printsRecords = Object.hasOwn(this.ctor.flags ?? {}, 'jq')
    const shaping =
      jq !== undefined ? '--jq' : jsonl ? '--jsonl' : json && printsRecords ? '--json' : undefined
    const picking = columns !== undefined ? '--columns' : quiet ? '--quiet' : undefined
    if (shaping && picking) {
      throw usageError(`${picking} cannot be combined with ${shaping}, which prints JSON.`)
    }
    this.out = new Output(this.io, {
      json: this.flags.json,
      // Checked before anything is sent: a typo in the expression costs no request.
      jq: jq === undefined ? undefined : await JqProgram.compile(jq),
      jsonl,
      fieldsAsSent: (this.ctor as typeof BaseCommand).fieldsAsSent,
      quiet,
      columns: columns
        ?.split(',')
        .map((c) => c.trim())
        .filter(Boolean),
    })
  }

  /** The profile, key and base URL; `fallback` is the profile used when none is selected by flag or PAY_PROFILE. */
  protected async credentials(fallback?: string): Promise<Credentials> {
    const credentials = await resolveCredentials({
      profile: this.flags.profile || (process.env.PAY_PROFILE ? undefined : fallback),
      baseUrl: this.flags['base-url'],
      builtIn: sandboxProfile(),
      keychain: this.keychainOptions(),
    })
    if (credentials.keyFromEnv) {
      this.out.stderr.write(
        `Using the API key from PAY_API_KEY (${redactKey(credentials.apiKey)}) instead of profile "${credentials.profile}"'s.\n`,
      )
    }
    if (credentials.baseUrlSetAside !== undefined && !this.saidBaseUrlSetAside) {
      this.saidBaseUrlSetAside = true
      this.out.notice(
        `PAY_BASE_URL (${credentials.baseUrlSetAside}) is left aside for the sandbox profile, which talks only to ` +
          'your own sandbox (--base-url points it at one on another port).',
      )
    }
    return credentials
  }

  /**
   * The API client for the selected profile; the sandbox profile starts a sandbox if none runs.
   * `sandboxKey`: the key, when the profile is the built-in sandbox (its seeded packages derive from it).
   */
  protected async api(): Promise<{ api: PayApi; target: Target; sandboxKey?: string }> {
    const credentials = await this.credentials()
    let baseUrl = credentials.baseUrl
    if (credentials.builtIn) {
      this.connection = await connectSandbox(baseUrl, credentials.apiKey, await this.probe(baseUrl))
      baseUrl = this.connection.baseUrl
      await print(this.out, noticesShown(this.connection.notices))
      if (this.connection.squatter) this.out.warn(squatterWarning(credentials.baseUrl))
      if (this.connection.inProcess) this.watchForPages(credentials.baseUrl)
    } else if (credentials.sandbox) {
      // `-p sandbox --base-url URL`: a sandbox on another port, used only once it proves it is the user's own.
      refuseUnproven(credentials.baseUrl, await this.probe(credentials.baseUrl), 'pay -p sandbox')
    }
    const label = this.connection?.inProcess ? `${baseUrl} (sandbox, in-process)` : baseUrl
    const target = { profile: credentials.profile ?? '(environment)', baseUrl: label }
    const api = this.client(baseUrl, credentials.apiKey, this.journal(target))
    this.sentWith = { ...credentials, inProcess: Boolean(this.connection?.inProcess) }
    return { api, target, sandboxKey: credentials.builtIn ? credentials.apiKey : undefined }
  }

  /** What answers at a sandbox's address (src/sandbox/http/proof.ts), in the --debug trace too. */
  private async probe(baseUrl: string): Promise<Probed> {
    const found = await probeSandbox(baseUrl)
    if (this.flags.debug) {
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

  /** How this command uses the system keychain: its --debug lines go with the HTTP trace. */
  protected keychainOptions(): KeychainOptions {
    return { debug: this.debugSink() }
  }

  /**
   * For commands that hand out a customer page (`links open`, `links qr`): when the built-in
   * sandbox ran inside this command, nothing serves the page at its address once it ends. Says so
   * on stderr, with how to serve it.
   */
  protected warnIfPageUnserved(url: string): void {
    if (!this.connection?.inProcess || this.pagesWarned) return
    this.pagesWarned = true
    let origin = url
    try {
      origin = new URL(url).origin
    } catch {}
    this.out.warn(unservedWarning(origin, this.connection.squatter, 'this page'))
  }

  /**
   * With the in-process sandbox, watches stdout for its page addresses (`payment_url`,
   * `activation_url`), which name the profile's address where no sandbox of the user's serves
   * them: `finally` says so on stderr, once, in every output mode.
   */
  private watchForPages(origin: string): void {
    this.pageOrigin = origin
    const marker = `${origin}/checkout/`
    const stream = this.io.stdout
    const write = stream.write
    // biome-ignore lint/suspicious/noExplicitAny: write's overloads, passed through as they came
    stream.write = ((chunk: any, ...rest: any[]) => {
      if (!this.pagesPrinted && String(chunk).includes(marker)) this.pagesPrinted = true
      return write.apply(stream, [chunk, ...rest] as Parameters<typeof write>)
    }) as typeof stream.write
    this.stopWatching = () => {
      stream.write = write
    }
  }

  /**
   * Where a sandbox command (`sandbox pay`, `sandbox reset`) acts. Its profile is --profile >
   * PAY_PROFILE > the built-in `sandbox` (never the current profile, usually the live service),
   * or PAY_API_KEY with --base-url/PAY_BASE_URL alone, as for every command. When a pay sandbox
   * answers at the profile's base URL, the command goes through it over HTTP with the profile's
   * key, so that an app using that server sees the change; otherwise the built-in profile at its
   * own address means the local store ($PAY_SANDBOX_DIR), as the in-process sandbox does; any
   * other base URL without a sandbox is an error, never a silent switch to the local store.
   */
  protected async sandboxTarget(): Promise<SandboxTarget> {
    const envOnly =
      !this.flags.profile &&
      !process.env.PAY_PROFILE &&
      Boolean(process.env.PAY_API_KEY) &&
      Boolean(this.flags['base-url'] || process.env.PAY_BASE_URL)
    const credentials = await this.credentials(envOnly ? undefined : sandboxProfile().name)
    const target = { profile: credentials.profile ?? '(environment)', baseUrl: credentials.baseUrl }
    // Made first: a base URL pay refuses (plain http beyond loopback) is refused before any probe.
    const api = this.client(credentials.baseUrl, credentials.apiKey, this.journal(target))
    const found = await this.probe(credentials.baseUrl)
    if (found === 'proven') {
      this.sentWith = { ...credentials, inProcess: false }
      return { server: true, api, target }
    }
    if (credentials.builtIn) {
      if (found !== 'none') this.out.warn(squatterWarning(credentials.baseUrl, 'the local store was used'))
      return {
        server: false,
        dir: sandboxDir(process.env),
        baseUrl: credentials.baseUrl,
        apiKey: credentials.apiKey,
      }
    }
    throw noSandbox(`pay ${this.id?.replace(/:/g, ' ') ?? 'sandbox'}`, credentials, found)
  }

  /** The journal this run's changes are written to; undefined when PAY_JOURNAL=0. */
  private journal(target: Target): Journal | undefined {
    const file = journalFile()
    if (file === undefined) return undefined
    const context = {
      command: `pay ${this.id?.replace(/:/g, ' ') ?? ''}`.trim(),
      profile: target.profile,
      baseUrl: target.baseUrl,
      terminal: this.io.stderrIsTerminal,
    }
    return new Journal(file, context, (message) => this.out.warn(message))
  }

  /**
   * How much of a list to fetch: --all, and --limit, which is 30 by default on a terminal (as
   * gh does) and unlimited when piped or with --json, --jq or --jsonl.
   */
  protected listScope() {
    const { all = false, limit } = this.flags as { all?: boolean; limit?: number }
    const onScreen = this.io.stdoutIsTerminal && !this.out.json
    return {
      all,
      limit: limit ?? (onScreen ? DEFAULT_LIST_LIMIT : undefined),
      limitGiven: limit !== undefined,
    }
  }

  /**
   * What a workflow (src/bulk) needs of the command: where it sends, --yes and --dry-run as
   * given, the output and the terminal.
   */
  protected workflow(target: Target) {
    const { yes = false, 'dry-run': dryRun = false } = this.flags as { yes?: boolean; 'dry-run'?: boolean }
    return { target, consent: { yes, dryRun }, out: this.out, io: this.io }
  }

  /** Milliseconds allowed for each request, retries included: --timeout SECONDS (PAY_TIMEOUT). */
  protected requestTimeoutMs(): number {
    return this.flags.timeout * 1000
  }

  /** A client for this base URL and key, with the command's timeout, --debug trace and journal. */
  protected client(baseUrl: string, apiKey: string, changes?: ChangeLog): PayApi {
    return new PayApi({
      baseUrl,
      apiKey,
      changes,
      timeoutMs: this.requestTimeoutMs(),
      userAgent: `pay/${this.config.version} node/${process.versions.node}`,
      debug: this.debugSink(),
    })
  }

  /**
   * Where --debug lines go: stderr, each sanitised like every other text shown (a trace carries
   * a server's status line, headers and bodies); undefined without --debug.
   */
  private debugSink(): ((line: string) => void) | undefined {
    if (!this.flags.debug) return undefined
    return (line) => this.out.stderr.write(`[debug] ${sanitizeText(line)}\n`)
  }

  async finally(error: Error | undefined): Promise<void> {
    this.stopWatching?.()
    // A command that failed (its output may not have been written at all) has other news to give.
    if (!error && this.pagesPrinted && this.connection?.inProcess && !this.pagesWarned) {
      this.pagesWarned = true
      this.out.warn(unservedWarning(this.pageOrigin, this.connection.squatter, 'the page addresses printed'))
    }
    await this.connection?.close()
    return super.finally(error)
  }

  async catch(error: Error & { exitCode?: number }): Promise<void> {
    const flags = Object.keys({ ...(this.ctor as typeof BaseCommand).baseFlags, ...this.ctor.flags })
    const payError = explainRefusedKey(toPayError(error, this.id, flags), this.sentWith)
    this.out.error(payError)
    // The stack starts with the message, which may be a server's words: sanitised like them.
    if (this.argv.includes('--debug') && error.stack) this.out.stderr.write(`${sanitizeText(error.stack)}\n`)
    // Printed already: oclif must only exit, with our code.
    throw Object.assign(new Error(payError.message), {
      skipOclifErrorHandling: true,
      oclif: { exit: payError.exitCode },
    })
  }
}
