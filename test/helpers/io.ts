import { Readable, Writable } from 'node:stream'
import { Output, type OutputOptions } from '../../src/render/output.js'
import type { IO, Question, Selection } from '../../src/runtime/io.js'

/** A stream that keeps what was written; a terminal of `columns` columns when `isTTY`. */
export class Sink extends Writable {
  readonly chunks: Buffer[] = []
  /** Told of each chunk as it is written (a test that reads `pay mcp`'s answers as they come). */
  onWrite?: (chunk: Buffer) => void
  constructor(
    readonly isTTY = false,
    readonly columns = 0,
  ) {
    super()
  }
  _write(chunk: Buffer, _: BufferEncoding, done: () => void) {
    this.chunks.push(Buffer.from(chunk))
    this.onWrite?.(Buffer.from(chunk))
    done()
  }
  get bytes(): Buffer {
    return Buffer.concat(this.chunks)
  }
  get text(): string {
    return this.bytes.toString('utf8')
  }
}

export interface TestIOOptions {
  /** stdout (and stderr) are terminals, and stdin is one too: questions may be asked. */
  terminal?: boolean
  /** stdout alone is not a terminal (`pay … | cat`), or stdin alone (`… < file`): default `terminal`. */
  stdoutTerminal?: boolean
  stdinTerminal?: boolean
  colour?: boolean
  /** Columns of the terminal; 0 means unknown (120 is used). */
  width?: number
  /** What stdin holds. */
  stdin?: string
  /** stdin as a live stream (a test that talks to `pay mcp` as it runs); else `stdin`'s text. */
  stdinStream?: Readable
  /** Not a terminal, but a person can confirm on the controlling terminal (stdin is data). */
  terminalBehindPipe?: boolean
  /** Answers to questions and confirmations, in order (a confirmation takes a boolean). */
  answers?: readonly (string | boolean)[]
  /** Accessible mode (PAY_ACCESSIBLE). */
  accessible?: boolean
  /** A line may be redrawn in place (default: unless in accessible mode). */
  canRedraw?: boolean
}

/**
 * The IO object of a test: streams that keep what was written, a terminal or not, scripted
 * answers, and `interrupt()` standing for Ctrl-C. Workflows run on it in-process.
 */
export class TestIO implements IO {
  readonly stdout: Sink
  readonly stderr: Sink
  readonly stdoutIsTerminal: boolean
  readonly stderrIsTerminal: boolean
  readonly stdinIsTerminal: boolean
  readonly canPrompt: boolean
  readonly canConfirm: boolean
  readonly colour: boolean
  readonly stderrColour: boolean
  readonly width: number
  readonly accessible: boolean
  readonly canRedraw: boolean
  /** The questions asked, in order. */
  readonly asked: string[] = []
  private readonly answers: (string | boolean)[]
  private readonly stdinText: string
  private readonly stdinStream?: Readable
  private readonly interruptHandlers = new Set<() => void>()
  /** Ctrl-C presses seen while someone listened; a second one would have quit. */
  interrupts = 0

  constructor(options: TestIOOptions = {}) {
    const terminal = options.terminal ?? false
    this.stdoutIsTerminal = options.stdoutTerminal ?? terminal
    this.stdinIsTerminal = options.stdinTerminal ?? terminal
    this.stdout = new Sink(this.stdoutIsTerminal, options.width ?? 0)
    this.stderr = new Sink(terminal, options.width ?? 0)
    this.stderrIsTerminal = terminal
    this.canPrompt = this.stdinIsTerminal && this.stdoutIsTerminal
    this.canConfirm = terminal || (options.terminalBehindPipe ?? false)
    this.colour = terminal && (options.colour ?? false)
    this.stderrColour = this.colour
    this.width = options.width || 120
    this.accessible = options.accessible ?? false
    this.canRedraw = options.canRedraw ?? !this.accessible
    this.answers = [...(options.answers ?? [])]
    this.stdinText = options.stdin ?? ''
    this.stdinStream = options.stdinStream
  }

  async readStdin(): Promise<string> {
    return this.stdinText
  }

  get stdin(): Readable {
    return this.stdinStream ?? Readable.from([Buffer.from(this.stdinText)])
  }

  async ask(question: Question): Promise<string> {
    this.asked.push(question.message)
    const answer = this.next(question.message)
    if (typeof answer !== 'string')
      throw new Error(`TestIO: a text answer was expected for "${question.message}"`)
    const verdict = question.validate?.(answer) ?? true
    if (verdict !== true) throw new Error(`TestIO: "${answer}" was refused: ${verdict}`)
    return answer
  }

  /** A choice is answered with its value, which must be one of the choices. */
  async choose(question: Selection): Promise<string> {
    this.asked.push(question.message)
    const answer = this.next(question.message)
    if (!question.choices.some((choice) => choice.value === answer))
      throw new Error(`TestIO: "${String(answer)}" is not one of the choices of "${question.message}"`)
    return answer as string
  }

  async askSecret(message: string): Promise<string> {
    return this.ask({ message })
  }

  async confirm(message: string): Promise<boolean> {
    this.asked.push(message)
    const answer = this.next(message)
    if (typeof answer !== 'boolean') throw new Error(`TestIO: yes or no was expected for "${message}"`)
    return answer
  }

  onInterrupt(stop: () => void): () => void {
    this.interruptHandlers.add(stop)
    return () => this.interruptHandlers.delete(stop)
  }

  /** Ctrl-C: tells whoever listens. */
  interrupt(): void {
    this.interrupts += 1
    for (const handler of this.interruptHandlers) handler()
  }

  private next(question: string): string | boolean {
    if (this.answers.length === 0) throw new Error(`TestIO: no answer left for "${question}"`)
    return this.answers.shift()!
  }
}

/** An Output on a TestIO, as a command would make it. */
export function testOutput(options: TestIOOptions & OutputOptions = {}): { io: TestIO; out: Output } {
  const io = new TestIO(options)
  return { io, out: new Output(io, options) }
}
