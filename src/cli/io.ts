import type { Screen, Stream } from '../render/output.js'

/** A question with a free-text answer, checked as it is typed. */
export interface Question {
  message: string
  /** true, or what is wrong with the answer (shown under it; the question is asked again). */
  validate?: (value: string) => true | string
}

/**
 * The terminal as pay sees it, in one place (in the spirit of gh's iostreams): the streams,
 * whether they are terminals, colour, width, questions and Ctrl-C. Nothing else in pay reads
 * `process.stdin.isTTY` or listens for SIGINT, so a workflow can be driven by a test IO.
 */
export interface IO extends Screen {
  /** stdin and stdout are a terminal: pay may ask questions. */
  readonly canPrompt: boolean
  /** All of stdin as text (for --with-key and `-` id lists). */
  readStdin(): Promise<string>
  ask(question: Question): Promise<string>
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

/** The IO of the running process. */
export class ProcessIO implements IO {
  readonly stdout: Stream = process.stdout
  readonly stderr: Stream = process.stderr
  readonly stdoutIsTerminal = Boolean(process.stdout.isTTY)
  readonly stderrIsTerminal = Boolean(process.stderr.isTTY)
  readonly canPrompt = Boolean(process.stdin.isTTY && process.stdout.isTTY)
  readonly colour: boolean
  readonly stderrColour: boolean

  constructor(env: NodeJS.ProcessEnv = process.env) {
    const colourAllowed = !env.NO_COLOR && env.TERM !== 'dumb'
    this.colour = this.stdoutIsTerminal && colourAllowed
    this.stderrColour = this.stderrIsTerminal && colourAllowed
  }

  get width(): number {
    return process.stdout.columns || 120
  }

  async readStdin(): Promise<string> {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }

  async ask(question: Question): Promise<string> {
    const { input } = await import('@inquirer/prompts')
    return input({ message: question.message, validate: question.validate }, { output: process.stderr })
  }

  async askSecret(message: string): Promise<string> {
    const { password } = await import('@inquirer/prompts')
    return password({ message, mask: '*' }, { output: process.stderr })
  }

  async confirm(message: string): Promise<boolean> {
    const { confirm } = await import('@inquirer/prompts')
    return confirm({ message, default: false }, { output: process.stderr })
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
