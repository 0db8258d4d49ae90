import { Command, Errors, Flags, type Interfaces } from '@oclif/core'
import { PayApi } from './api/client.js'
import { type Credentials, redactKey, resolveCredentials } from './config/profiles.js'
import { PayError } from './errors.js'
import { type Connection, connectSandbox } from './lib/sandbox-connection.js'
import { Output } from './render/output.js'

export type CommandFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof BaseCommand)['baseFlags'] & T['flags']
>
export type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

const seconds = Flags.custom<number>({
  parse: async (input) => {
    const value = Number(input)
    if (!/^\d+(\.\d+)?$/.test(input.trim()) || !(value > 0)) {
      throw new Error(`Expected a number of seconds greater than 0 but received: ${input}`)
    }
    return value
  },
})

/** Output-shaping flags for commands that print records. */
export const outputFlags = {
  columns: Flags.string({
    description: 'Comma-separated fields to show in the table or TSV (e.g. _id,status,amount).',
    helpGroup: 'OUTPUT',
    parse: async (input) => input,
  }),
  quiet: Flags.boolean({ char: 'q', description: 'Print only ids, one per line.', helpGroup: 'OUTPUT' }),
}

/** --yes and --dry-run of the commands that ask before they delete or cancel. */
export const consentFlags = (verb: 'deleted' | 'cancelled') => ({
  yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.' }),
  'dry-run': Flags.boolean({ description: `Show what would be ${verb}; send nothing.` }),
})

/** Where the command's requests go, for confirmations and messages. */
export interface Target {
  profile: string
  baseUrl: string
}

/**
 * Every command's parent: the global flags, one parse into this.flags/this.args, the API
 * client set-up, and one catch() that prints a clean error and exits with the code of its kind.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static baseFlags = {
    profile: Flags.string({
      char: 'p',
      description: 'Profile to use (default: $PAY_PROFILE, then the current profile). `sandbox` is built in.',
      helpGroup: 'GLOBAL',
    }),
    'base-url': Flags.string({
      description: 'Service base URL (default: $PAY_BASE_URL, then the profile).',
      helpGroup: 'GLOBAL',
    }),
    json: Flags.boolean({
      description: 'Print data as JSON; errors as JSON on stderr.',
      helpGroup: 'GLOBAL',
    }),
    debug: Flags.boolean({
      description: 'Trace HTTP on stderr (key redacted) and show stack traces.',
      helpGroup: 'GLOBAL',
    }),
    timeout: seconds({
      description: 'Seconds allowed for each request, retries included.',
      env: 'PAY_TIMEOUT',
      default: 30,
      helpGroup: 'GLOBAL',
    }),
  }

  protected flags!: CommandFlags<T>
  protected args!: CommandArgs<T>
  /** Every positional argument, for commands that take a list of ids. */
  protected positionals: string[] = []
  protected out: Output = new Output({ json: this.argv.includes('--json') })
  private connection?: Connection

  async init(): Promise<void> {
    await super.init()
    const { args, argv, flags } = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as CommandFlags<T>
    this.args = args as CommandArgs<T>
    this.positionals = argv as string[]
    const { columns, quiet } = flags as { columns?: string; quiet?: boolean }
    this.out = new Output({
      json: this.flags.json,
      quiet,
      columns: columns
        ?.split(',')
        .map((c) => c.trim())
        .filter(Boolean),
    })
  }

  /** stdin and stdout are both a terminal: prompts and confirmations may be shown. */
  protected get interactive(): boolean {
    return Boolean(process.stdin.isTTY && process.stdout.isTTY)
  }

  protected credentials(): Credentials {
    const credentials = resolveCredentials({ profile: this.flags.profile, baseUrl: this.flags['base-url'] })
    if (credentials.keyFromEnv) {
      this.out.stderr.write(
        `Using the API key from PAY_API_KEY (${redactKey(credentials.apiKey)}) instead of profile "${credentials.profile}"'s.\n`,
      )
    }
    return credentials
  }

  /** The API client for the selected profile; the sandbox profile starts a sandbox if none runs. */
  protected async api(): Promise<{ api: PayApi; target: Target }> {
    const credentials = this.credentials()
    let baseUrl = credentials.baseUrl
    if (credentials.sandbox) {
      this.connection = await connectSandbox(baseUrl, credentials.apiKey)
      baseUrl = this.connection.baseUrl
    }
    const api = this.client(baseUrl, credentials.apiKey)
    const label = this.connection?.inProcess ? `${baseUrl} (sandbox, in-process)` : baseUrl
    return { api, target: { profile: credentials.profile ?? '(environment)', baseUrl: label } }
  }

  /** A client for this base URL and key, with the command's timeout and --debug trace. */
  protected client(baseUrl: string, apiKey: string): PayApi {
    return new PayApi({
      baseUrl,
      apiKey,
      timeoutMs: this.flags.timeout * 1000,
      userAgent: `pay/${this.config.version} node/${process.versions.node}`,
      debug: this.flags.debug ? (line) => this.out.stderr.write(`[debug] ${line}\n`) : undefined,
    })
  }

  async finally(error: Error | undefined): Promise<void> {
    await this.connection?.close()
    return super.finally(error)
  }

  async catch(error: Error & { exitCode?: number }): Promise<void> {
    const payError = toPayError(error, this.id)
    this.out.error(payError)
    if (this.argv.includes('--debug') && error.stack) this.out.stderr.write(`${error.stack}\n`)
    // Printed already: oclif must only exit, with our code.
    throw Object.assign(new Error(payError.message), {
      skipOclifErrorHandling: true,
      oclif: { exit: payError.exitCode },
    })
  }
}

/** Any error as a PayError: oclif's parse errors are usage errors, a cancelled prompt is 130. */
export function toPayError(error: Error, commandId?: string): PayError {
  const help = `See \`pay ${commandId?.replace(/:/g, ' ') ?? ''} --help\`.`
  const flagParse = /^Parsing --(\S+) \n\t([\s\S]*?)\nSee more help with --help$/.exec(error.message ?? '')
  if (flagParse) return new PayError(`--${flagParse[1]}: ${flagParse[2]}`, { kind: 'usage', hint: help })
  if (error instanceof PayError) return error
  if (error.name === 'ExitPromptError' || error.name === 'AbortPromptError') {
    return new PayError('Cancelled.', { kind: 'cancelled' })
  }
  if (error instanceof Errors.CLIError && (error as Errors.CLIError).oclif?.exit === 2) {
    return new PayError(error.message.replace(/\nSee more help with --help$/, ''), {
      kind: 'usage',
      hint: help,
    })
  }
  return new PayError(error.message || String(error), { kind: 'general' })
}
