import type { Writable } from 'node:stream'

/**
 * A one-line progress bar on a terminal's stderr, redrawn in place at most every 100 ms:
 *   [██████░░░░░░░░░░░░░░] 312/1000  cancelled 300 · failed 12
 */
export class ProgressBar {
  private done = 0
  private readonly counts = new Map<string, number>()
  private lastDraw = 0

  constructor(
    private readonly stream: Writable,
    private readonly total: number,
  ) {}

  tick(status: string): void {
    this.done += 1
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1)
    const now = Date.now()
    if (now - this.lastDraw >= 100 || this.done === this.total) {
      this.lastDraw = now
      this.draw()
    }
  }

  /** Clears the bar so the next output starts on a clean line. */
  clear(): void {
    this.stream.write('\r\u001b[2K')
  }

  private draw(): void {
    const width = 20
    const filled = this.total === 0 ? width : Math.round((this.done / this.total) * width)
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`
    const counts = [...this.counts].map(([status, n]) => `${status.replace(/_/g, ' ')} ${n}`).join(' · ')
    this.stream.write(`\r\u001b[2K[${bar}] ${this.done}/${this.total}  ${counts}`)
  }
}
