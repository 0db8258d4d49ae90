import { AsyncLocalStorage } from 'node:async_hooks'
import fs from 'node:fs'
import path from 'node:path'
import { type Command, Config } from '@oclif/core'
import { Exit, handle } from '@oclif/core/handle'
import { getHelpFlagAdditions, loadHelpClass, normalizeArgv } from '@oclif/core/help'
import { moveLeadingGlobalFlags } from '../../src/cli/argv.js'
import { BaseCommand } from '../../src/cli/base-command.js'
import { ProcessIO, useIO } from '../../src/cli/io.js'
import { accessibleMode } from '../../src/render/accessible.js'
import { type CliOptions, type CliResult, cleanEnv, expectNoKeyInOutput, ROOT } from './cli.js'
import { TestIO, type TestIOOptions } from './io.js'
import { commandSource, MANIFEST } from './manifest.js'

/**
 * Runs `pay ...args` in this process, as bin/run.js would run it but without a child process:
 * the command class from src/ (no build needed), found through oclif.manifest.json like every
 * command id, help, alias and mistyped command; oclif's Config loaded once per worker (the
 * commands project does not isolate its files: vitest.config.ts); fake IO (test/helpers/io.ts
 * TestIO: captured streams, a terminal or not, its width and colour, scripted answers to
 * questions and confirmations); the environment of runCli (cleanEnv: own config, sandbox and
 * journal dirs, no keychain, no PAY_* of the developer's), set for the run and restored after
 * it; and the exit code bin/run.js would exit with.
 *
 * What needs a process stays in test/e2e/ and runs bin/run.js (test/helpers/cli.ts): a real
 * terminal, signals, pipes that close or fill (`> /dev/full`, `| head`), the built bundle and its
 * start-up, the keychain, two commands at once.
 *
 * Runs may overlap (`describe.concurrent`, two commands at once): what a run reads of the process
 * (process.env, its streams, its IO, its exit) is its own, through AsyncLocalStorage (install()).
 */

export interface InProcessOptions extends Omit<CliOptions, 'timeoutMs'>, Omit<TestIOOptions, 'stdin'> {
  /** Called once the command's IO exists, before it runs: to interrupt it (`io.interrupt()`) mid-run. */
  started?: (io: TestIO) => void
}

export interface InProcessResult extends CliResult {
  code: number
  /** What the command threw before catch() made it a PayError; undefined on success. */
  raw?: unknown
  /** The run's IO: the questions asked (`io.asked`), the Ctrl-C presses seen. */
  io: TestIO
  /** Date.now() when the run began (after any run before it had ended). */
  startedAt: number
}

export { COMMAND_IDS, commandSource, MANIFEST, type ManifestCommand, typed } from './manifest.js'

// biome-ignore lint/suspicious/noExplicitAny: any command class of the CLI
type CommandClass = Command.Class & { id: string; plugin?: any }

const classes = new Map<string, Promise<CommandClass>>()

/** The class of a command of pay, from src/commands (through vitest, like the test's own imports). */
export function commandClass(id: string): Promise<CommandClass> {
  let loaded = classes.get(id)
  if (!loaded) {
    if (!MANIFEST.commands[id])
      throw new Error(`runInProcess: ${JSON.stringify(id)} is no command of the manifest`)
    loaded = import(commandSource(id)).then((module: { default: CommandClass }) => module.default)
    classes.set(id, loaded)
  }
  return loaded
}

/** What one run has of its own: its environment, its IO, and what it ended with. */
interface Run {
  env: Record<string, string>
  io: TestIO
  /** What the command threw before BaseCommand.catch() made it a PayError. */
  raw?: unknown
  /** The code oclif's handle() exited with. */
  code?: number
}

const runs = new AsyncLocalStorage<Run>()

let installed = false

/**
 * Makes what a command reads of the process its run's own, so that runs can overlap (as
 * processes can): process.env is the run's environment, writes to process.stdout and stderr
 * (oclif's help and version) go to the run's streams, a command's IO is the run's TestIO, and
 * oclif's exit is the run's exit code. Outside a run, all of them are the process's as before.
 */
function install(): void {
  if (installed) return
  installed = true
  const real = process.env
  const env = () => runs.getStore()?.env ?? real
  process.env = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_, key) => Reflect.get(env(), key),
    set: (_, key, value) => Reflect.set(env(), key, typeof key === 'string' ? String(value) : value),
    has: (_, key) => Reflect.has(env(), key),
    deleteProperty: (_, key) => Reflect.deleteProperty(env(), key),
    ownKeys: () => Reflect.ownKeys(env()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(env(), key),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(env(), key, descriptor),
  })
  for (const [stream, sink] of [
    [process.stdout, (run: Run) => run.io.stdout],
    [process.stderr, (run: Run) => run.io.stderr],
  ] as const) {
    const write = stream.write
    stream.write = function (this: unknown, chunk: unknown, encoding?: unknown, callback?: unknown) {
      const run = runs.getStore()
      // biome-ignore lint/suspicious/noExplicitAny: write's overloads, passed through as they came
      if (!run) return (write as any).call(this, chunk, encoding, callback)
      const done = typeof encoding === 'function' ? encoding : callback
      sink(run).write(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array))
      if (typeof done === 'function') queueMicrotask(() => (done as () => void)())
      return true
    } as typeof stream.write
  }
  useIO(() => runs.getStore()?.io ?? new ProcessIO())
  const exit = Exit.exit
  Exit.exit = ((code = 0) => {
    const run = runs.getStore()
    if (!run) return exit(code)
    run.code = code
  }) as typeof Exit.exit
  const original = BaseCommand.prototype.catch
  BaseCommand.prototype.catch = function (this: BaseCommand<never>, error: Error) {
    const run = runs.getStore()
    if (run) run.raw = error
    return original.call(this, error)
  }
}

let loading: Promise<Config> | undefined
let restoreIds = () => {}
let helping: Promise<void> = Promise.resolve()

/**
 * oclif's Config of pay, loaded once: plugins, topics and commands from the manifest, as the
 * built pay has them; each command of pay's own loaded from src/, and the command-not-found hook too.
 */
function payConfig(): Promise<Config> {
  loading ??= (async () => {
    const config = await Config.load({ root: ROOT, userPlugins: false })
    const root = (config as unknown as { rootPlugin: unknown }).rootPlugin as {
      findCommand: (id: string) => Promise<CommandClass>
    }
    root.findCommand = async (id) => {
      const Cmd = await commandClass(id)
      Cmd.id = id
      Cmd.plugin = root
      return Cmd
    }
    const runHook = config.runHook.bind(config)
    config.runHook = (async (event: string, options: object, ...rest: never[]) => {
      if (event !== 'command_not_found') return runHook(event as never, options as never, ...rest)
      const { default: hook } = await import('../../src/cli/not-found.js')
      const context = { config, debug() {}, error() {}, exit() {}, log() {}, warn() {} }
      // Throws, as pay's hook always does: its error carries the exit code.
      await hook.call(
        context as never,
        { ...(options as { id: string; argv?: string[] }), config, context } as never,
      )
      return { failures: [], successes: [] }
    }) as typeof config.runHook
    // oclif's help writes ids with spaces into the commands it shows (once per process, in pay):
    // each help run puts them back.
    const commands = (config as unknown as { _commands: Map<string, { id: string; aliases: string[] }> })
      ._commands
    const ids = [...commands.values()].map((command) => [command, command.id, command.aliases] as const)
    restoreIds = () => {
      for (const [command, id, aliases] of ids) Object.assign(command, { id, aliases })
    }
    return config
  })()
  return loading
}

/** main.run of @oclif/core, as bin/run.js calls it: version, help, topics, then the command. */
async function runOclif(config: Config, argv: string[]): Promise<void> {
  const [id, ...rest] = normalizeArgv(config, [...argv])
  const versionFlags = ['--version', ...(config.pjson.oclif.additionalVersionFlags ?? [])]
  const showHelp = async (words: string[]) => {
    const Help = await loadHelpClass(config)
    // One help at a time: it writes into the commands it shows, put back after it.
    const done = helping.then(async () => {
      try {
        await new Help(config, config.pjson.oclif.helpOptions ?? config.pjson.helpOptions).showHelp(words)
      } finally {
        restoreIds()
      }
    })
    helping = done.catch(() => {})
    await done
  }
  if (versionFlags.includes(argv[0])) {
    process.stdout.write(`${config.userAgent}\n`)
    return
  }
  const helpFlags = getHelpFlagAdditions(config)
  const dashes = argv.indexOf('--')
  if (
    argv.length === 0 ||
    (dashes === -1 ? argv : argv.slice(0, dashes)).some((arg) => helpFlags.includes(arg))
  ) {
    await showHelp(argv)
    return
  }
  const command = config.findCommand(id)
  if (!command && config.findTopic(id)) {
    await showHelp([id])
    return
  }
  await config.runCommand(id, rest, command)
}

/**
 * One run of `pay ...args` in this process, like runCli: the same arguments, options (`env`,
 * `input`) and result, plus a terminal when asked (`terminal`, `width`, `colour`, `answers`).
 * A key given to the run (PAY_API_KEY, `login --with-key`'s stdin) in stdout or stderr fails it.
 */
export async function runInProcess(args: string[], options: InProcessOptions = {}): Promise<InProcessResult> {
  const startedAt = Date.now()
  install()
  const config = await payConfig()
  const env = cleanEnv(options.env)
  const terminal = options.terminal ?? false
  const io = new TestIO({
    ...options,
    stdin: options.input,
    colour: options.colour ?? (terminal && !env.NO_COLOR && env.TERM !== 'dumb'),
    accessible: options.accessible ?? accessibleMode(env),
  })
  options.started?.(io)
  const run: Run = { env, io }
  await runs.run(run, async () => {
    try {
      await runOclif(config, moveLeadingGlobalFlags(args))
      run.code = 0
    } catch (error) {
      // oclif's handle(), as bin/run.js ends with it: prints what pay did not, and exits (Exit.exit).
      await handle(error as Error)
    }
  })
  // The dirs cleanEnv made for this run alone: nobody can look into them after it.
  for (const key of ['PAY_CONFIG_DIR', 'PAY_SANDBOX_DIR'] as const)
    if (options.env?.[key] === undefined) fs.rmSync(env[key], { recursive: true, force: true })
  if (options.env?.PAY_JOURNAL_FILE === undefined)
    fs.rmSync(path.dirname(env.PAY_JOURNAL_FILE), { recursive: true, force: true })
  // What runCli gives, and more that a test compares whole results without (not enumerable).
  const result = Object.defineProperties(
    { code: run.code ?? 1, signal: null, stdout: io.stdout.text, stderr: io.stderr.text },
    { raw: { value: run.raw }, io: { value: io }, startedAt: { value: startedAt } },
  ) as InProcessResult
  expectNoKeyInOutput(args, options, result)
  return result
}
