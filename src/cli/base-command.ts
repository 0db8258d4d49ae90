import { Command, type Config, type Interfaces } from '@oclif/core'
import { usageError } from '../errors.js'
import { Output } from '../render/output.js'
import type { Result } from '../render/result.js'
import type { Env, RunContext } from '../runtime/context.js'
import { CommandContext } from '../runtime/run-context.js'
import type { EndpointName } from '../shared/endpoints.js'
import { sanitizeText } from '../values.js'
import {
  explainRefusedKey,
  refuseContradictions,
  toPayError,
  wantsJsonErrors,
  withoutHintGiven,
} from './command-errors.js'
import { globalFlags, localFlags } from './flags.js'
import { type Ended, type Invocation, processInvocation } from './main.js'

type CommandFlags<T extends typeof Command, B extends Interfaces.FlagInput> = Interfaces.InferredFlags<
  B & T['flags']
>
type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** What the base reads of any command's flags to build its context (each command has some of them). */
interface ContextFlags {
  profile?: string
  'base-url'?: string
  debug?: boolean
  timeout?: number
  json?: boolean
  jq?: string
  jsonl?: boolean
  quiet?: boolean
  columns?: string
  all?: boolean
  limit?: number
  yes?: boolean
  'dry-run'?: boolean
  format?: string
  bom?: boolean
}

/**
 * Every command's parent: it parses the command line once into this.flags/this.args, builds the
 * run context (context.ts) from it and the invocation, runs the command, prints what run()
 * returned, and maps any error to one clean message and the exit code of its kind. `B`: the
 * command's global flags, when they are not all of globalFlags (`sandbox start` takes only
 * --json and --debug).
 */
export abstract class BaseCommand<
  T extends typeof Command,
  B extends Interfaces.FlagInput = typeof globalFlags,
> extends Command {
  static baseFlags: Interfaces.FlagInput = globalFlags
  /** A 422's fields are shown as the service names them, not as flags (`pay api`, which has none). */
  static fieldsAsSent = false
  /** With no profile set up at all, the built-in sandbox is used rather than an error (`pay mcp`). */
  static sandboxWhenNone = false
  /**
   * It changes state that no endpoint it calls declares (pay's own profiles, a snapshot of the
   * sandbox, any request of `pay api`): `pay commands --json` says so, with the declared ones.
   */
  static changesState = false
  /** The endpoints it sends (src/shared/endpoints.ts): `pay commands`, and the tests' lists, read them. */
  static calls: readonly EndpointName[] = []

  protected flags!: CommandFlags<T, B>
  protected args!: CommandArgs<T>
  /** Every positional argument, for commands that take a list of ids. */
  protected positionals: string[] = []
  private made?: CommandContext

  /** What the command does, with this.context; it returns what it produced, which the base prints. */
  abstract run(): Promise<Result>

  /** Prints what was produced so far, before the command goes on (a page opened once its address is out). */
  protected show(result: Result): Promise<void> {
    return this.context.show(result)
  }

  /** The run's context, once the command line is parsed. */
  protected get context(): RunContext {
    if (!this.made) throw new Error('The run context is made once the command line is parsed.')
    return this.made
  }

  /** Runs `argv` with this command (`id`), in the invocation's environment and on its terminal (cli/main.ts). */
  static async invoke(
    this: new (
      argv: string[],
      config: Config,
    ) => BaseCommand<typeof Command>,
    id: string,
    argv: string[],
    config: Config,
    invocation: Invocation,
  ): Promise<Ended> {
    const command = new this(argv, config)
    command.id = id
    return command.execute(invocation)
  }

  /** oclif's own way of running a command (Command.run): in the process's environment and terminal. */
  async _run<R>(): Promise<R> {
    const ended = await this.execute(processInvocation())
    // Printed already: oclif must only exit, with this code.
    if (ended.code !== 0)
      throw Object.assign(new Error('pay failed'), {
        skipOclifErrorHandling: true,
        oclif: { exit: ended.code },
      })
    return undefined as R
  }

  /**
   * Parse, context, run, print: an error while printing (a jq error, a page that failed
   * mid-list) is reported like any other, and the context is closed (an in-process sandbox
   * stopped) only once the output is out.
   */
  private async execute(invocation: Invocation): Promise<Ended> {
    let out = new Output(invocation.io, { json: wantsJsonErrors(this.argv) })
    try {
      await this.init()
      this.made = await this.makeContext(invocation)
      out = this.made.out
      await this.made.show(await this.run())
    } catch (error) {
      const code = this.report(error as Error, out)
      await this.made?.close(error)
      return { code, error }
    }
    await this.made.close()
    return { code: 0 }
  }

  /** The command line, parsed once; then the context of the run it asks for. */
  private async makeContext({ env, io }: Invocation): Promise<CommandContext> {
    const base = (this.ctor as typeof BaseCommand).baseFlags
    const { args, argv, flags, raw } = await this.parse({
      flags: this.fromEnv(this.ctor.flags ?? {}, env),
      baseFlags: this.fromEnv(base, env),
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as CommandFlags<T, B>
    this.args = args as CommandArgs<T>
    this.positionals = argv as string[]
    refuseContradictions(raw)
    const given = flags as ContextFlags
    // Checked here rather than with oclif's `exclusive`, whose usage line shows empty groups; only
    // for commands that print records (`sandbox start --quiet` is another flag).
    const printsRecords = Object.hasOwn(this.ctor.flags ?? {}, 'jq')
    const { jq, jsonl, json, columns, quiet } = given
    const shaping =
      jq !== undefined ? '--jq' : jsonl ? '--jsonl' : json && printsRecords ? '--json' : undefined
    const picking = columns !== undefined ? '--columns' : quiet ? '--quiet' : undefined
    if (shaping && picking)
      throw usageError(`${picking} cannot be combined with ${shaping}, which prints JSON.`)
    const csv = given.format === 'csv'
    if (csv && (shaping || quiet))
      throw usageError(`--format csv cannot be combined with ${shaping ?? '--quiet'}: choose one output.`)
    const context = await CommandContext.create({
      env,
      io,
      command: `pay ${this.id?.replace(/:/g, ' ') ?? ''}`.trim(),
      userAgent: `pay/${this.config.version} node/${process.versions.node}`,
      profile: given.profile,
      baseUrl: given['base-url'],
      debug: given.debug,
      // `links wait` has a --timeout of its own: its requests take PAY_TIMEOUT's.
      timeoutSeconds: Object.hasOwn(base, 'timeout') ? given.timeout : undefined,
      output: {
        json,
        jq,
        jsonl,
        csv,
        bom: csv && Boolean(given.bom),
        quiet,
        columns,
        fieldsAsSent: (this.ctor as typeof BaseCommand).fieldsAsSent,
      },
      list: { all: given.all, limit: given.limit, takesAll: Object.hasOwn(this.ctor.flags ?? {}, 'all') },
      consent: { yes: given.yes, dryRun: given['dry-run'] },
      sandboxWhenNone: (this.ctor as typeof BaseCommand).sandboxWhenNone,
    })
    if (base === localFlags) {
      const { refuseForeignSandbox } = await import('../runtime/sandbox/local-profile.js')
      await refuseForeignSandbox({ profile: given.profile, baseUrl: given['base-url'] }, context)
    }
    return context
  }

  /**
   * The flags as parsed in this run: one that an environment variable sets when not given
   * (--timeout: PAY_TIMEOUT) reads the run's environment, never the process's, through the
   * flag's own parse (a bad value is a usage error naming the flag, as oclif says it).
   */
  private fromEnv(flags: Interfaces.FlagInput, env: Env): Interfaces.FlagInput {
    const entries = Object.entries(flags).map(([name, flag]) => {
      if (!flag.env) return [name, flag]
      const { env: variable, ...rest } = flag
      const value = env[variable]
      if (!value) return [name, rest]
      const fromEnv = async () => {
        if (flag.type === 'boolean' || !flag.parse)
          return flag.type === 'boolean' ? /^(true|1)$/i.test(value) : value
        const token = { type: 'flag' as const, flag: name, input: value }
        try {
          return await flag.parse(value, Object.assign(Object.create(this) as this, { token }), flag)
        } catch (error) {
          throw new Error(`Parsing --${name} \n\t${(error as Error).message}\nSee more help with --help`)
        }
      }
      return [name, { ...rest, default: fromEnv }]
    })
    return Object.fromEntries(entries) as Interfaces.FlagInput
  }

  /** Prints the error once, in pay's words (and its stack with --debug); returns its exit code. */
  private report(error: Error, out: Output): number {
    const flags = Object.keys({ ...(this.ctor as typeof BaseCommand).baseFlags, ...this.ctor.flags })
    const payError = withoutHintGiven(
      explainRefusedKey(toPayError(error, this.id, flags), this.made?.sentWith),
      this.argv,
    )
    out.error(payError)
    // The stack starts with the message, which may be a server's words: sanitised like them.
    if (this.argv.includes('--debug') && error.stack) out.stderr.write(`${sanitizeText(error.stack)}\n`)
    return payError.exitCode
  }
}
