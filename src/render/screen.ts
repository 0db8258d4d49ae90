import type { Writable } from 'node:stream'

export type Stream = Writable & { isTTY?: boolean; columns?: number }

/** What rendering needs to know of the terminal (the cli's IO object provides it). */
export interface Screen {
  readonly stdout: Stream
  readonly stderr: Stream
  /** stdout is a terminal: tables; otherwise TSV. */
  readonly stdoutIsTerminal: boolean
  readonly stderrIsTerminal: boolean
  /** Colour on stdout (a terminal, and NO_COLOR unset). */
  readonly colour: boolean
  readonly stderrColour: boolean
  /** Columns available for a table. */
  readonly width: number
}

/** Resolves when a stream that refused more (write returned false) has drained. */
export function drained(stream: Stream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done)
      stream.off('close', done)
      resolve()
    }
    stream.on('drain', done)
    stream.on('close', done)
  })
}
