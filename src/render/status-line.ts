import type { Writable } from 'node:stream'

/**
 * One line of status on a terminal's stderr, redrawn in place (`links wait`): never wider than
 * the terminal, so that a redraw never leaves a wrapped half behind. For terminals that can
 * redraw only; elsewhere the caller prints plain lines when something changes (a screen reader
 * would read a redrawn line again at every redraw).
 */
export class StatusLine {
  private shown = false

  constructor(
    private readonly stream: Writable,
    private readonly width: () => number,
  ) {}

  /**
   * Replaces the line with `text`, cut with … to leave the last 3 columns free: the terminal
   * echoes a Ctrl-C as `^C` after it, which must not wrap onto a line of its own.
   */
  draw(text: string): void {
    const room = Math.max(10, this.width() - 3)
    const chars = [...text]
    const line = chars.length > room ? `${chars.slice(0, room - 1).join('')}…` : text
    this.stream.write(`\r\u001b[2K${line}`)
    this.shown = true
  }

  /** Removes the line, so that what follows starts on a clean one. */
  clear(): void {
    if (!this.shown) return
    this.stream.write('\r\u001b[2K')
    this.shown = false
  }
}
