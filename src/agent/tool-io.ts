import { Readable, Writable } from 'node:stream'
import type { IO } from '../runtime/io.js'

/** A stream that keeps what is written to it. */
class Kept extends Writable {
  private readonly chunks: Buffer[] = []
  readonly isTTY = false

  _write(chunk: Buffer, _: BufferEncoding, done: () => void): void {
    this.chunks.push(Buffer.from(chunk))
    done()
  }

  get text(): string {
    return Buffer.concat(this.chunks).toString('utf8')
  }
}

const never = (what: string) => async (): Promise<never> => {
  throw new Error(`pay mcp asks no ${what}: nobody is at a terminal.`)
}

/**
 * The terminal of one tool call: none. What the plain functions would print is kept (the answer
 * is made of what they return, never of their output), nothing is asked, stdin is never read
 * (it carries the protocol), and the call's cancellation stands for Ctrl-C: a bulk run stops
 * starting new requests, as it does on Ctrl-C.
 */
export class ToolIO implements IO {
  readonly stdout = new Kept()
  readonly stderr = new Kept()
  readonly stdoutIsTerminal = false
  readonly stderrIsTerminal = false
  readonly stdinIsTerminal = false
  readonly canPrompt = false
  readonly canConfirm = false
  readonly colour = false
  readonly stderrColour = false
  readonly width = 120
  readonly accessible = true
  readonly canRedraw = false
  readonly ask = never('question')
  readonly choose = never('question')
  readonly askSecret = never('secret')
  readonly confirm = never('confirmation')

  constructor(private readonly signal?: AbortSignal) {}

  async readStdin(): Promise<string> {
    return ''
  }

  get stdin(): Readable {
    return Readable.from([])
  }

  onInterrupt(stop: () => void): () => void {
    const signal = this.signal
    if (!signal) return () => {}
    signal.addEventListener('abort', stop, { once: true })
    return () => signal.removeEventListener('abort', stop)
  }

  /** What the call said on stderr (a bulk run's summary, a warning), for the server's log. */
  get said(): string {
    return this.stderr.text
  }
}
