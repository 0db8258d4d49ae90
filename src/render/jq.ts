import fs from 'node:fs'
import Module, { createRequire } from 'node:module'
import path from 'node:path'
import { PayError } from '../errors.js'
import { sanitizeText } from '../values.js'
import { escapeControls } from './json.js'

/**
 * --jq: jq itself (jq 1.7.1 compiled to WebAssembly, from the jq-wasm package), loaded only
 * when the flag is given.
 *
 * jq-wasm 1.0.1 feeds jq its input and collects its output one byte at a time, copying the whole
 * buffer for each byte: quadratic, so 1,000 links took 3.4 s and 10,000 would take minutes. It
 * also hides jq's exit status and drops an error that follows some output. So pay drives the
 * Emscripten module underneath it directly: the input is a file in jq's in-memory file system,
 * stdout and stderr are files too (10,000 links in ~0.1 s), and jq's own exit status decides. The
 * file system is not exported by jq-wasm's build; one line of its source, checked below, is
 * changed when it is loaded to export it, and to give jq pay's environment (`env`, `$ENV`)
 * without PAY_API_KEY instead of Emscripten's made-up one.
 */

/** The jq-wasm release this was written for (package.json pins it). */
const JQ_WASM_VERSION = '1.0.1'
/**
 * The line of jq-wasm's build/jq.js that exports callMain. It runs before the module starts, which
 * is when jq reads its environment.
 */
const EXPORT_LINE = 'Module["callMain"] = callMain;'
/** What replaces it: the file system exported too, and the environment taken from the module's options. */
const EXPORTS = `${EXPORT_LINE} Module["FS"] = FS; Object.assign(ENV, Module["environment"]);`

/** jq's exit status for an expression that does not compile. */
const COMPILE_ERROR = 3

const INPUT = '<stdin>'
const OUTPUT = '/pay-jq-stdout'
const ERRORS = '/pay-jq-stderr'

/** What pay uses of the Emscripten module. */
interface EmscriptenJq {
  callMain(args: string[]): number
  FS: {
    writeFile(path: string, data: string): void
    readFile(path: string, options: { encoding: 'utf8' }): string
    unlink(path: string): void
    open(path: string, flags: string): { fd: number }
    close(stream: unknown): void
    streams: unknown[]
  }
}

/**
 * The jq loaded last, and the environment it was given: jq reads its environment once, when it
 * starts, so a run with another environment (a test's) loads its own.
 */
let engine: { environment: string; jq: Promise<EmscriptenJq> } | undefined

/**
 * Two members of Node's CommonJS loader (lib/internal/modules/cjs/loader.js) that @types/node
 * does not declare: pay loads jq-wasm's build as Node would load the file, from a changed source.
 */
declare module 'node:module' {
  namespace Module {
    /** The node_modules folders a module in `dir` looks in, nearest first. */
    function _nodeModulePaths(dir: string): string[]
  }
}
declare global {
  namespace NodeJS {
    interface Module {
      /** Runs `source` as this module's code, as if read from `filename`. */
      _compile(source: string, filename: string): void
    }
  }
}

/**
 * jq-wasm's build with its file system exported, instantiated with `env` (without the key): once
 * per process, as a process has one environment.
 */
function loadEngine(env: NodeJS.ProcessEnv): Promise<EmscriptenJq> {
  // jq's environment (env, $ENV) is pay's, without the key, instead of Emscripten's made-up one.
  const environment: Record<string, string | undefined> = {}
  for (const name of ['USER', 'LOGNAME', 'PATH', 'PWD', 'HOME', 'LANG', '_']) environment[name] = undefined
  for (const [name, value] of Object.entries(env)) {
    if (name !== 'PAY_API_KEY') environment[name] = value
  }
  const key = JSON.stringify(environment)
  if (engine?.environment === key) return engine.jq
  const jq = (async () => {
    const require = createRequire(import.meta.url)
    const version = (require('jq-wasm/package.json') as { version: string }).version
    const file = require.resolve('jq-wasm/dist/build/jq.js')
    const source = fs.readFileSync(file, 'utf8')
    if (version !== JQ_WASM_VERSION || !source.includes(EXPORT_LINE)) {
      throw new PayError(`--jq needs jq-wasm ${JQ_WASM_VERSION}, but ${version} is installed.`, {
        kind: 'general',
        hint: 'Reinstall pay (npm ci) to get the version it was built with.',
      })
    }
    const loaded = new Module(file)
    loaded.filename = file
    loaded.paths = Module._nodeModulePaths(path.dirname(file))
    loaded._compile(source.replace(EXPORT_LINE, EXPORTS), file)
    const factory = loaded.exports as (options: object) => Promise<EmscriptenJq>
    return factory({ thisProgram: 'jq', environment })
  })()
  engine = { environment: key, jq }
  return jq
}

interface Run {
  status: number
  stdout: string
  stderr: string
}

/** One run of jq: `args`, then the input file holding `input`. */
function runJq(jq: EmscriptenJq, args: string[], input: string): Run {
  const { FS } = jq
  FS.writeFile(INPUT, input)
  // stdout and stderr become files: jq-wasm's own collectors copy their whole buffer per byte.
  for (const [fd, file] of [
    [1, OUTPUT],
    [2, ERRORS],
  ] as const) {
    if (FS.streams[fd]) FS.close(FS.streams[fd])
    const stream = FS.open(file, 'w')
    if (stream.fd !== fd) throw new Error(`jq: ${file} opened as fd ${stream.fd}, not ${fd}`)
  }
  // Emscripten sets process.exitCode to jq's exit status: pay's exit code is pay's own.
  const exitCode = process.exitCode
  let status: number
  try {
    status = jq.callMain([...args, INPUT])
  } finally {
    process.exitCode = exitCode
  }
  const run = {
    status,
    stdout: FS.readFile(OUTPUT, { encoding: 'utf8' }),
    stderr: FS.readFile(ERRORS, { encoding: 'utf8' }),
  }
  // Free the copies held in jq's file system.
  FS.writeFile(INPUT, '')
  return run
}

/** What a run of the expression gave: the text to print, jq's messages (debug), and its error. */
export interface JqResult {
  /** One value a line: strings raw (sanitised), other values as compact JSON. */
  text: string
  /** What jq wrote on stderr besides its error (`debug`, `stderr`), sanitised. */
  messages: string
  error?: PayError
}

/** A jq expression checked by jq itself, ready to run over JSON text. */
export class JqProgram {
  private constructor(
    readonly expression: string,
    private readonly jq: EmscriptenJq,
  ) {}

  /**
   * Loads jq (the first time) with the run's environment `env` (jq's `env` and `$ENV`), and checks
   * the expression: a syntax error or an unknown name is a usage error before anything is sent.
   * The check compiles it where it never runs.
   */
  static async compile(expression: string, env: NodeJS.ProcessEnv): Promise<JqProgram> {
    if (expression.trim() === '') {
      throw new PayError('--jq needs an expression, e.g. --jq .[].id', { kind: 'usage' })
    }
    const jq = await loadEngine(env)
    const program = new JqProgram(expression, jq)
    const check = runJq(jq, ['-n', `if false then (\n${expression}\n) else empty end`], '')
    if (check.status === 0) return program
    // jq's own words about the expression as written (a compile error runs nothing).
    const plain = runJq(jq, ['-n', expression], '')
    throw plain.status === COMPILE_ERROR
      ? program.failure(plain.stderr, 0)
      : program.failure(check.stderr, -1)
  }

  /**
   * Runs over JSON text: one value, or several one a line (each is an input, as jq takes a stream).
   * Output up to a runtime error is kept, as jq prints it.
   */
  run(json: string): JqResult {
    const run = runJq(this.jq, ['-c', '-M', this.expression], json)
    const text = run.stdout
      .split('\n')
      .slice(0, -1)
      .map(
        (line) =>
          `${line.startsWith('"') ? sanitizeText(JSON.parse(line) as string) : escapeControls(line)}\n`,
      )
      .join('')
    if (run.status === 0) return { text, messages: sanitizeText(run.stderr) }
    return { text, messages: '', error: this.failure(run.stderr, 0) }
  }

  /** jq's error as a usage error naming the expression; `lineShift` undoes the check's wrapping. */
  private failure(stderr: string, lineShift: number): PayError {
    const multiline = this.expression.includes('\n')
    const errors = stderr
      .split('\n')
      .filter((line) => /^jq: error/.test(line))
      .map((line) =>
        line
          .replace(/^jq: error(?: \(at [^)]*\))?(?: \(not a string\))?: ?/, '')
          .replace(/ at <top-level>, line (\d+):$/, (_, n) =>
            multiline ? ` (line ${Number(n) + lineShift})` : '',
          ),
      )
    // halt_error writes its message as it is, without "jq: error".
    const said = errors.length > 0 ? errors.join('; ') : stderr.trim() || 'jq failed'
    return new PayError(`--jq ${quote(this.expression)}: ${sanitizeText(said)}`, {
      kind: 'usage',
      hint: 'pay runs jq 1.7.1: see https://jqlang.org/manual/v1.7/',
    })
  }
}

const quote = (expression: string) =>
  expression.includes("'") ? JSON.stringify(expression) : `'${expression}'`
