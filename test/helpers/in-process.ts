import { Config } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { ROOT } from './cli.js'

/**
 * Runs a command class in this process, as bin/run.js would run it but without a child
 * process: for property tests that need hundreds of runs. stdout and stderr are captured,
 * and the raw error that reached BaseCommand.catch() is kept, so a test can tell a PayError
 * from an unexpected exception that catch() turned into a clean message.
 */

export interface InProcessResult {
  code: number
  stdout: string
  stderr: string
  /** What the command threw before catch() made it a PayError; undefined on success. */
  raw?: unknown
}

// biome-ignore lint/suspicious/noExplicitAny: any command class of the CLI
type CommandClass = { run(argv: string[], config: Config): Promise<any> }

let config: Promise<Config> | undefined
let lastRaw: unknown
let patched = false

function patchCatch() {
  if (patched) return
  patched = true
  const original = BaseCommand.prototype.catch
  BaseCommand.prototype.catch = function (this: BaseCommand<never>, error) {
    lastRaw = error
    return original.call(this, error)
  }
}

/** Env for the run, over the current process.env with every PAY_* removed. */
function withEnv<T>(env: Record<string, string | undefined>, body: () => Promise<T>): Promise<T> {
  const saved = { ...process.env }
  for (const key of Object.keys(process.env)) if (key.startsWith('PAY_')) delete process.env[key]
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
  return body().finally(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
    Object.assign(process.env, saved)
  })
}

let running = false
const classes = new Map<string, Promise<CommandClass>>()

/** Every command (from src, so that tests need no build). */
const COMMANDS: Record<string, () => Promise<{ default: unknown }>> = {
  login: () => import('../../src/commands/login.js'),
  'links create': () => import('../../src/commands/links/create.js'),
  'links delete': () => import('../../src/commands/links/delete.js'),
  'links get': () => import('../../src/commands/links/get.js'),
  'links list': () => import('../../src/commands/links/list.js'),
  'links update': () => import('../../src/commands/links/update.js'),
  'profiles list': () => import('../../src/commands/profiles/list.js'),
  'profiles remove': () => import('../../src/commands/profiles/remove.js'),
  'profiles show': () => import('../../src/commands/profiles/show.js'),
  'profiles use': () => import('../../src/commands/profiles/use.js'),
  'sandbox pay': () => import('../../src/commands/sandbox/pay.js'),
  'sandbox reset': () => import('../../src/commands/sandbox/reset.js'),
  'subs cancel': () => import('../../src/commands/subs/cancel.js'),
  'subs create': () => import('../../src/commands/subs/create.js'),
  'subs delete': () => import('../../src/commands/subs/delete.js'),
  'subs get': () => import('../../src/commands/subs/get.js'),
  'subs list': () => import('../../src/commands/subs/list.js'),
  'subs update': () => import('../../src/commands/subs/update.js'),
  'token create': () => import('../../src/commands/token/create.js'),
}

/** The command class for `links create`. */
function commandClass(id: string): Promise<CommandClass> {
  let loaded = classes.get(id)
  if (!loaded) {
    const load = COMMANDS[id]
    if (!load) throw new Error(`runInProcess: no command ${JSON.stringify(id)}`)
    loaded = load().then((module) => {
      const Cmd = module.default as CommandClass & { id?: string }
      // oclif names a command run outside its config after the class ("linkscreate").
      Cmd.id = id.replace(/ /g, ':')
      return Cmd
    })
    classes.set(id, loaded)
  }
  return loaded
}

/**
 * One run of `pay ...args` in this process, like runCli: `args` start with the command
 * (`links create ...`, `login ...`). Runs must not overlap (stdout is captured globally).
 */
export async function runInProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<InProcessResult> {
  patchCatch()
  config ??= Config.load(ROOT)
  const loaded = await config
  const words = args[0] === 'login' ? 1 : 2
  const Cmd = await commandClass(args.slice(0, words).join(' '))
  const argv = args.slice(words)
  if (running) throw new Error('runInProcess: runs must not overlap')
  running = true
  let stdout = ''
  let stderr = ''
  const out = process.stdout.write
  const err = process.stderr.write
  const capture =
    (append: (text: string) => void) =>
    (chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'))
      const done = typeof encoding === 'function' ? encoding : callback
      if (typeof done === 'function') queueMicrotask(() => (done as () => void)())
      return true
    }
  lastRaw = undefined
  process.stdout.write = capture((text) => {
    stdout += text
  }) as typeof process.stdout.write
  process.stderr.write = capture((text) => {
    stderr += text
  }) as typeof process.stderr.write
  try {
    const code = await withEnv(env, async () => {
      try {
        await Cmd.run(argv, loaded)
        return 0
      } catch (error) {
        const exit = (error as { oclif?: { exit?: number } }).oclif?.exit
        if (typeof exit !== 'number') throw error
        return exit
      }
    })
    return { code, stdout, stderr, raw: lastRaw }
  } finally {
    process.stdout.write = out
    process.stderr.write = err
    running = false
  }
}
