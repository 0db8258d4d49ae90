import type { Writable } from 'node:stream'
import { format } from 'node:util'
import { type Command, Config, Help, type Interfaces } from '@oclif/core'
import { getHelpFlagAdditions, normalizeArgv } from '@oclif/core/help'
import { Output } from '../render/output.js'
import type { Env } from '../runtime/context.js'
import { type IO, ProcessIO } from '../runtime/io.js'
import { withoutGlobalFlags } from './argv.js'
import { addIdCompletion } from './completion/scripts.js'
import { commandNotFound } from './not-found.js'

/**
 * pay's entry: what `pay …` does with its words, in an environment and on a terminal given to
 * it, and the exit code it ends with. bin/run.js calls it with the process's own (the one place
 * of the CLI that reads process.env); the in-process tests with theirs. Version and help are
 * written to the IO given, a mistyped command is said in pay's words, a command of pay's runs
 * with the invocation; a plugin's command (help, autocomplete) runs as oclif runs it, pay's global
 * flags taken off (and, after `autocomplete`, the completion of ids added to its scripts).
 */

/** What a run of pay is given: its environment, read once, and its terminal. */
export interface Invocation {
  env: Env
  io: IO
}

/** How a run ended: its exit code, and what was thrown (before it became a PayError), if anything. */
export interface Ended {
  code: number
  error?: unknown
}

/** A command class of pay's (cli/base-command.ts): it runs in an invocation and says how it ended. */
interface PayCommandClass {
  invoke(id: string, argv: string[], config: Config, invocation: Invocation): Promise<Ended>
}

export interface MainOptions extends Invocation {
  /** oclif's Config of pay, or where to load it from (bin/loader.js's runOptions). */
  config: Config | Interfaces.LoadOptions
  /** How a command's class is loaded (default: as oclif's manifest says; tests load src/). */
  load?: (id: string) => Promise<Command.Class>
}

/** The process's invocation: its environment, read here once, and its own terminal. */
export function processInvocation(): Invocation {
  const env = { ...process.env }
  return { env, io: new ProcessIO(env) }
}

export async function main(argv: string[], options: MainOptions): Promise<Ended> {
  const { io } = options
  const config = options.config instanceof Config ? options.config : await Config.load(options.config)
  const versionFlags = ['--version', ...(config.pjson.oclif.additionalVersionFlags ?? [])]
  if (versionFlags.includes(argv[0])) {
    io.stdout.write(`${config.userAgent}\n`)
    return { code: 0 }
  }
  const helpFlags = getHelpFlagAdditions(config)
  const dashes = argv.indexOf('--')
  const asked = dashes === -1 ? argv : argv.slice(0, dashes)
  if (argv.length === 0 || asked.some((arg) => helpFlags.includes(arg))) {
    await showHelp(config, io, argv)
    return { code: 0 }
  }
  const [id, ...rest] = normalizeArgv(config, [...argv])
  const command = config.findCommand(id)
  if (!command) {
    if (config.findTopic(id)) {
      await showHelp(config, io, [id])
      return { code: 0 }
    }
    const error = commandNotFound(config, id, rest)
    new Output(io, { json: rest.includes('--json') }).error(error)
    return { code: error.exitCode, error }
  }
  // An alias (`links rm`) runs the command it stands for (`links:delete`).
  const loaded = await (options.load ? options.load(command.id) : command.load())
  if (isPayCommand(loaded)) return loaded.invoke(command.id, rest, config, { env: options.env, io })
  await config.runCommand(id, withoutGlobalFlags(rest), command)
  // The plugin's completion scripts, just written: pay adds the completion of ids to them.
  if (command.id === 'autocomplete' || command.id === 'autocomplete:create')
    addIdCompletion(config.cacheDir, config.bin)
  return { code: 0 }
}

const isPayCommand = (loaded: unknown): loaded is PayCommandClass =>
  typeof (loaded as Partial<PayCommandClass>).invoke === 'function'

function showHelp(config: Config, io: IO, argv: string[]): Promise<void> {
  const options = config.pjson.oclif.helpOptions ?? config.pjson.helpOptions
  return new PayHelp(config, options, io).showHelp(argv)
}

/**
 * oclif's help, written to the run's IO rather than the process's console, and without writing
 * the ids it shows (`links create` for `links:create`) into the commands of the Config: each part
 * is formatted from a copy, so a Config serves any number of runs.
 */
class PayHelp extends Help {
  constructor(
    config: Config,
    options: Partial<Interfaces.HelpOptions> | undefined,
    private readonly io: IO,
  ) {
    super(config, options)
  }

  protected log(...args: string[]): void {
    const stream: Writable = this.opts.sendToStderr ? this.io.stderr : this.io.stdout
    stream.write(`${format(...args)}\n`)
  }

  protected formatCommand(command: Command.Loadable): string {
    return super.formatCommand({ ...command })
  }

  /**
   * A command that is a topic too (`autocomplete`, `sandbox clock`) is listed once, as the topic,
   * whose words say what it and its subcommands do: oclif lists it under both, the plugin's
   * command with words of its own.
   */
  protected formatCommands(commands: Command.Loadable[]): string {
    const topics = new Set(this.sortedTopics.map((topic) => topic.name))
    return super.formatCommands(
      commands.filter((command) => !topics.has(command.id)).map((command) => ({ ...command })),
    )
  }

  protected formatTopics(topics: Interfaces.Topic[]): string {
    return super.formatTopics(topics.map((topic) => ({ ...topic })))
  }
}
