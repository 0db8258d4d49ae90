import type { Writable } from 'node:stream'
import { fitLine } from './status-line.js'

/** In plain mode, a line at least this often while work goes on… */
const PLAIN_EVERY_MS = 5000
/** …and at each tenth of the work done. */
const PLAIN_STEPS = 10

/**
 * Progress on a terminal's stderr. Normally one line redrawn in place at most every 100 ms:
 *   [██████░░░░░░░░░░░░░░] 312/1000  cancelled 300 · failed 12
 * In accessible mode (PAY_ACCESSIBLE, ACCESSIBLE) or on a terminal that cannot redraw
 * (TERM=dumb), plain lines instead, never redrawn, at each 10 % and at least every 5 seconds,
 * which a screen reader reads once each:
 *   Progress: 312 of 1000 (31%): cancelled 300, failed 12.
 */
export class ProgressBar {
  private done = 0
  private readonly counts = new Map<string, number>()
  private lastDraw = 0
  private lastStep = 0
  private readonly plain: boolean
  private readonly width: () => number

  constructor(
    private readonly stream: Writable,
    private readonly total: number,
    /**
     * `plain`: lines never redrawn, in accessible mode or where the terminal cannot redraw
     * (io.canRedraw); `width`: the terminal's columns, which a redrawn line never reaches.
     */
    options: { plain: boolean; width?: () => number },
  ) {
    this.plain = options.plain
    this.width = options.width ?? (() => 80)
    this.lastDraw = this.plain ? Date.now() : 0
  }

  tick(status: string): void {
    this.done += 1
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1)
    const now = Date.now()
    if (this.plain) {
      const step = this.total === 0 ? PLAIN_STEPS : Math.floor((this.done * PLAIN_STEPS) / this.total)
      if (step > this.lastStep || now - this.lastDraw >= PLAIN_EVERY_MS || this.done === this.total) {
        this.lastStep = step
        this.lastDraw = now
        this.line()
      }
      return
    }
    if (now - this.lastDraw >= 100 || this.done === this.total) {
      this.lastDraw = now
      this.draw()
    }
  }

  /** Clears the bar so the next output starts on a clean line (plain lines need no clearing). */
  clear(): void {
    if (!this.plain) this.stream.write('\r\u001b[2K')
  }

  private countsText(separator: string): string {
    return [...this.counts].map(([status, n]) => `${status.replace(/_/g, ' ')} ${n}`).join(separator)
  }

  /** The bar, narrower or gone on a narrow terminal; the counts are what it must say. */
  private draw(): void {
    const counts = `${this.done}/${this.total}  ${this.countsText(' · ')}`
    const versions = [20, 10, 0].map((width) => {
      const filled = this.total === 0 ? width : Math.round((this.done / this.total) * width)
      return width ? `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${counts}` : counts
    })
    this.stream.write(`\r\u001b[2K${fitLine(versions, this.width())}`)
  }

  private line(): void {
    const percent = this.total === 0 ? 100 : Math.floor((this.done * 100) / this.total)
    this.stream.write(`Progress: ${this.done} of ${this.total} (${percent}%): ${this.countsText(', ')}.\n`)
  }
}
