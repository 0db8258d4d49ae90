import fs from 'node:fs'
import type { Readable } from 'node:stream'
import tty from 'node:tty'
import { PayError } from '../errors.js'
import { accessibleMode, canRedraw } from '../render/accessible.js'
import type { Screen, Stream } from '../render/screen.js'
import { errorJson, errorText } from '../render/words/error-text.js'

/** A question with a free-text answer, checked as it is typed. */
export interface Question {
  message: string
  /** true, or what is wrong with the answer (shown under it; the question is asked again). */
  validate?: (value: string) => true | string
  /** The answer as it will be sent, shown as it is typed (`eur` shows as `EUR`). */
  transform?: (value: string) => string
}

/** One answer of a question with a few possible answers. */
export interface Choice {
  /** What the person reads: `Starter  120.00 USD yearly`. */
  name: string
  /** What the answer is: an id. */
  value: string
}

/** A question answered by picking one of `choices`. */
export interface Selection {
  message: string
  choices: Choice[]
}

/**
 * The terminal as pay sees it, in one place (in the spirit of gh's iostreams): the streams,
 * whether they are terminals, colour, width, questions and Ctrl-C. Nothing else in pay reads
 * `process.stdin.isTTY` or listens for SIGINT, so a workflow can be driven by a test IO.
 */
export interface IO extends Screen {
  readonly stdinIsTerminal: boolean
  /** stdin and stdout are a terminal: pay may ask questions. */
  readonly canPrompt: boolean
  /**
   * A person can answer yes or no: on the terminal, or, when stdin carries data (`cat ids |
   * pay subs cancel -`), on the controlling terminal (/dev/tty) that stderr shows, as gh does.
   */
  readonly canConfirm: boolean
  /** Accessible mode (PAY_ACCESSIBLE, ACCESSIBLE): see render/accessible.ts. */
  readonly accessible: boolean
  /** A line may be redrawn in place: not in accessible mode, nor with TERM=dumb (render/accessible.ts). */
  readonly canRedraw: boolean
  /** All of stdin as text (for --with-key and `-` id lists). */
  readStdin(): Promise<string>
  /** stdin as a stream, read as it comes (`pay mcp`: the protocol's messages). */
  readonly stdin: Readable
  ask(question: Question): Promise<string>
  /**
   * One of a few answers: picked with the arrow keys, or in accessible mode typed (its number or
   * its value) after the choices are listed in words.
   */
  choose(question: Selection): Promise<string>
  /** A secret, typed masked. */
  askSecret(message: string): Promise<string>
  /** Yes or no; no is the default. */
  confirm(message: string): Promise<boolean>
  /**
   * Calls `stop` on the first Ctrl-C (and on SIGTERM when asked); a second signal quits at
   * once (exit 130). Returns the function that stops listening.
   */
  onInterrupt(stop: () => void, options?: { terminate?: boolean }): () => void
}

/**
 * Why pay does not ask (canPrompt is false), naming the stream that is not a terminal:
 * `stdout is a pipe or a file, not a terminal` for `pay links create | cat`.
 */
export function notATerminal(io: Pick<IO, 'stdinIsTerminal' | 'stdoutIsTerminal'>): string {
  if (!io.stdinIsTerminal && !io.stdoutIsTerminal) return 'neither stdin nor stdout is a terminal'
  return `${io.stdoutIsTerminal ? 'stdin' : 'stdout'} is a pipe or a file, not a terminal`
}

/** The IO of the running process, in its environment `env`. */
export class ProcessIO implements IO {
  readonly stdout: Stream = process.stdout
  readonly stderr: Stream = process.stderr
  readonly stdoutIsTerminal = Boolean(process.stdout.isTTY)
  readonly stderrIsTerminal = Boolean(process.stderr.isTTY)
  readonly stdinIsTerminal = Boolean(process.stdin.isTTY)
  readonly canPrompt = Boolean(process.stdin.isTTY && process.stdout.isTTY)
  readonly colour: boolean
  private terminalAnswers?: boolean
  readonly stderrColour: boolean
  readonly accessible: boolean
  readonly canRedraw: boolean

  constructor(env: NodeJS.ProcessEnv) {
    this.accessible = accessibleMode(env)
    this.canRedraw = canRedraw(env)
    const colourAllowed = !env.NO_COLOR && env.TERM !== 'dumb'
    this.colour = this.stdoutIsTerminal && colourAllowed
    this.stderrColour = this.stderrIsTerminal && colourAllowed
  }

  get canConfirm(): boolean {
    if (this.canPrompt) return true
    this.terminalAnswers ??= this.stderrIsTerminal && hasTerminal()
    return this.terminalAnswers
  }

  /** Columns of the terminal: stdout's, else stderr's (a plan shown while stdout is piped). */
  get width(): number {
    return process.stdout.columns || process.stderr.columns || 120
  }

  /** Made by Node on first use: a command that never reads stdin never opens it. */
  get stdin(): Readable {
    return process.stdin
  }

  async readStdin(): Promise<string> {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }

  async ask(question: Question): Promise<string> {
    const { input } = await import('@inquirer/prompts')
    const { message, validate, transform } = question
    return input(
      { message, validate, transformer: transform && ((value: string) => transform(value)) },
      { output: process.stderr },
    )
  }

  async choose(question: Selection): Promise<string> {
    if (!this.accessible) {
      const { select } = await import('@inquirer/prompts')
      return select(
        { message: question.message, choices: question.choices, pageSize: 10 },
        { output: process.stderr },
      )
    }
    // Each choice once, as a plain line a screen reader reads in order; the answer is typed.
    const { choices } = question
    const lines = choices.map((choice, i) => `  ${i + 1}. ${choice.name}`)
    process.stderr.write(`${question.message}, one of:\n${lines.join('\n')}\n`)
    const pick = (typed: string) => {
      const text = typed.trim()
      const number = /^\d+$/.test(text) ? Number(text) : Number.NaN
      return choices[number - 1] ?? choices.find((choice) => choice.value === text)
    }
    const answer = await this.ask({
      message: `${question.message} (type a number from 1 to ${choices.length}, or the id)`,
      validate: (typed) =>
        pick(typed) ? true : `Type a number from 1 to ${choices.length}, or one of the ids listed.`,
    })
    return pick(answer)?.value ?? answer
  }

  async askSecret(message: string): Promise<string> {
    const { password } = await import('@inquirer/prompts')
    return password({ message, mask: '*' }, { output: process.stderr })
  }

  async confirm(message: string): Promise<boolean> {
    const { confirm } = await import('@inquirer/prompts')
    // In accessible mode the choices are said in words rather than as "(y/N)".
    const theme = this.accessible
      ? { style: { defaultAnswer: () => '(type yes or no; Enter means no)' } }
      : {}
    const question = { message, default: false, theme }
    if (process.stdin.isTTY) return confirm(question, { output: process.stderr })
    // stdin is data: the answer comes from the terminal itself.
    const input = openTerminal()
    if (!input) throw new Error('There is no terminal to confirm on.')
    try {
      return await confirm(question, { input, output: process.stderr })
    } finally {
      input.destroy()
    }
  }

  onInterrupt(stop: () => void, options: { terminate?: boolean } = {}): () => void {
    const signals: NodeJS.Signals[] = options.terminate ? ['SIGINT', 'SIGTERM'] : ['SIGINT']
    let interrupted = false
    const onSignal = () => {
      if (interrupted) process.exit(130)
      interrupted = true
      stop()
    }
    for (const signal of signals) process.on(signal, onSignal)
    return () => {
      for (const signal of signals) process.off(signal, onSignal)
    }
  }
}

/** Whether this process has a controlling terminal (none in CI, cron, or under a service). */
function hasTerminal(): boolean {
  try {
    const fd = fs.openSync('/dev/tty', 'r')
    const isTerminal = tty.isatty(fd)
    fs.closeSync(fd)
    return isTerminal
  } catch {
    return false
  }
}

/** The controlling terminal for reading, or undefined when there is none. */
function openTerminal(): tty.ReadStream | undefined {
  let fd: number
  try {
    fd = fs.openSync('/dev/tty', 'r')
  } catch {
    return undefined
  }
  if (!tty.isatty(fd)) {
    fs.closeSync(fd)
    return undefined
  }
  return new tty.ReadStream(fd)
}

const WRITE_FAILURES: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EBADF: 'it is closed',
  EFBIG: 'the file is too large',
}

/**
 * Output that cannot be written ends pay with one clean line and exit 1 (`> /dev/full`), never a
 * stack trace; under `json` (a run given --json or --jq) that line is the error as JSON, as every
 * error of such a run is. A reader that left (`pay links list | head -1`) ends it quietly with
 * exit 0. A message that cannot be written to stderr (`2>/dev/full`, `2>&1 | head -1`) is
 * dropped: the data was written, and the exit code is that of the command.
 */
export function guardOutput(options: { json?: boolean } = {}): void {
  // @oclif/core's own listener rethrows anything but EPIPE, which Node prints as a crash.
  process.stdout.removeAllListeners('error')
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0)
    const reason = WRITE_FAILURES[error.code ?? ''] ?? error.code ?? error.message
    const failure = new PayError(
      `could not write the output: ${reason}${error.code ? ` (${error.code})` : ''}.`,
      { kind: 'general' },
    )
    process.stderr.write(options.json ? errorJson(failure) : errorText(failure, (field) => field, false))
    process.exit(1)
  })
  // Nowhere left to say anything, and nothing lost: stderr carries no data.
  process.stderr.on('error', () => {})
}
