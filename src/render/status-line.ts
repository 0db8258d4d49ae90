import type { Writable } from 'node:stream'
import { cutToWidth, displayWidth } from './table/width.js'

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
   * Replaces the line with the first of `versions` (the fullest first) that fits, leaving the
   * last 3 columns free: the terminal echoes a Ctrl-C as `^C` after it, which must not wrap onto
   * a line of its own. When none fits, the last is cut with …, but never its ending `keep` (the
   * state, which is the one thing the line must say).
   */
  draw(versions: string | string[], keep = ''): void {
    this.stream.write(`\r\u001b[2K${fitLine(versions, this.width(), keep)}`)
    this.shown = true
  }

  /** Removes the line, so that what follows starts on a clean one. */
  clear(): void {
    if (!this.shown) return
    this.stream.write('\r\u001b[2K')
    this.shown = false
  }
}

/**
 * The first of `versions` (the fullest first) that fits a redrawn line on a terminal `width`
 * columns wide, the last 3 columns left free (StatusLine.draw); when none fits, the last cut
 * with …, but never its ending `keep`.
 */
export function fitLine(versions: string | string[], width: number, keep = ''): string {
  const room = Math.max(10, width - 3)
  const all = typeof versions === 'string' ? [versions] : versions
  const fitting = all.find((version) => displayWidth(version) <= room)
  if (fitting !== undefined) return fitting
  const last = all[all.length - 1]
  const kept = keep && last.endsWith(keep) && displayWidth(keep) < room ? keep : ''
  return `${cutToWidth(last.slice(0, last.length - kept.length), room - displayWidth(kept))}${kept}`
}
