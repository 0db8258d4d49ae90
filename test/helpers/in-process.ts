import fs from 'node:fs'
import path from 'node:path'
import { type Command, Config } from '@oclif/core'
import { moveLeadingGlobalFlags } from '../../src/cli/argv.js'
import { main } from '../../src/cli/main.js'
import { accessibleMode, canRedraw } from '../../src/render/accessible.js'
import { type CliOptions, type CliResult, cleanEnv, expectNoKeyInOutput, ROOT } from './cli.js'
import { TestIO, type TestIOOptions } from './io.js'
import { commandSource, MANIFEST } from './manifest.js'

/**
 * Runs `pay ...args` in this process, as bin/run.js would run it but without a child process:
 * through pay's own entry (src/cli/main.ts), given the run's environment and IO as bin/run.js
 * gives it the process's; the command class from src/ (no build needed), found through
 * oclif.manifest.json like every command id, help, alias and mistyped command; oclif's Config
 * loaded once per worker (the commands project does not isolate its files: vitest.config.ts);
 * fake IO (test/helpers/io.ts TestIO: captured streams, a terminal or not, its width and colour,
 * scripted answers to questions and confirmations); the environment of runCli (cleanEnv: own
 * config, sandbox and journal dirs, no keychain, no PAY_* of the developer's); and the exit code
 * bin/run.js would exit with.
 *
 * What needs a process stays in test/e2e/ and runs bin/run.js (test/helpers/cli.ts): a real
 * terminal, signals, pipes that close or fill (`> /dev/full`, `| head`), the built bundle and its
 * start-up, the keychain, two commands at once.
 *
 * Runs may overlap (`describe.concurrent`, two commands at once): nothing of the process is
 * changed for a run, each has its own environment and IO, and help writes into no shared state.
 */

export interface InProcessOptions extends Omit<CliOptions, 'timeoutMs'>, Omit<TestIOOptions, 'stdin'> {
  /** Called once the command's IO exists, before it runs: to interrupt it (`io.interrupt()`) mid-run. */
  started?: (io: TestIO) => void
}

export interface InProcessResult extends CliResult {
  code: number
  /** What the command threw before pay made it a PayError; undefined on success. */
  raw?: unknown
  /** The run's IO: the questions asked (`io.asked`), the Ctrl-C presses seen. */
  io: TestIO
}

export { COMMAND_IDS, commandSource, MANIFEST, type ManifestCommand, typed } from './manifest.js'

const classes = new Map<string, Promise<Command.Class>>()

/**
 * The class of a command of pay, from src/commands (through vitest, like the test's own imports);
 * an alias (`sandbox:webhooks:rm`) is the command it stands for.
 */
export function commandClass(id: string): Promise<Command.Class> {
  let loaded = classes.get(id)
  if (!loaded) {
    const command =
      MANIFEST.commands[id] ?? Object.values(MANIFEST.commands).find((c) => c.aliases.includes(id))
    if (!command) throw new Error(`runInProcess: ${JSON.stringify(id)} is no command of the manifest`)
    loaded = import(commandSource(command.id)).then((module: { default: Command.Class }) => module.default)
    classes.set(id, loaded)
  }
  return loaded
}

let loading: Promise<Config> | undefined

/** oclif's Config of pay, loaded once: plugins, topics and commands from the manifest, as the built pay has them. */
function payConfig(): Promise<Config> {
  loading ??= Config.load({ root: ROOT, userPlugins: false })
  return loading
}

/**
 * One run of `pay ...args` in this process, like runCli: the same arguments, options (`env`,
 * `input`) and result, plus a terminal when asked (`terminal`, `width`, `colour`, `answers`).
 * A key given to the run (PAY_API_KEY, `login --with-key`'s stdin) in stdout or stderr fails it.
 */
export async function runInProcess(args: string[], options: InProcessOptions = {}): Promise<InProcessResult> {
  const config = await payConfig()
  const env = cleanEnv(options.env)
  const terminal = options.terminal ?? false
  const io = new TestIO({
    ...options,
    stdin: options.input,
    colour: options.colour ?? (terminal && !env.NO_COLOR && env.TERM !== 'dumb'),
    accessible: options.accessible ?? accessibleMode(env),
    canRedraw: canRedraw(env),
  })
  options.started?.(io)
  const ended = await main(moveLeadingGlobalFlags(args), { env, io, config, load: commandClass })
  // The dirs cleanEnv made for this run alone: nobody can look into them after it.
  for (const key of ['PAY_CONFIG_DIR', 'PAY_SANDBOX_DIR'] as const)
    if (options.env?.[key] === undefined) fs.rmSync(env[key], { recursive: true, force: true })
  if (options.env?.PAY_JOURNAL_FILE === undefined)
    fs.rmSync(path.dirname(env.PAY_JOURNAL_FILE), { recursive: true, force: true })
  // What runCli gives, and more that a test compares whole results without (not enumerable).
  const result = Object.defineProperties(
    { code: ended.code, signal: null, stdout: io.stdout.text, stderr: io.stderr.text },
    { raw: { value: ended.error }, io: { value: io } },
  ) as InProcessResult
  expectNoKeyInOutput(args, options, result)
  return result
}
