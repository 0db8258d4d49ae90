import type { Output } from '../render/output.js'
import { type Printing, printsOnStdout } from '../render/result.js'
import type { Access } from './access.js'
import { unservedWarning } from './sandbox/profile.js'
import { SeenIds } from './seen-ids.js'

/**
 * What a run says of what it printed: the ids it showed, kept for completion (seen-ids.ts), and,
 * when the built-in profile's sandbox ran inside this command, that nothing serves the customer
 * pages whose addresses it handed out (said once, on stderr, in every output mode).
 */
export class PageNotices {
  /** The ids printed, kept at close for completing them (config/id-cache.ts). */
  readonly ids = new SeenIds()
  private pagesPrinted = false
  private pagesWarned = false

  constructor(
    private readonly out: Output,
    private readonly access: Access,
    private readonly command: string,
  ) {}

  /** For a command that hands out a customer page (`links open`, `links qr`): said at once. */
  warnIfUnserved(url: string): void {
    const connection = this.access.connection
    if (!connection?.inProcess || this.pagesWarned) return
    this.pagesWarned = true
    let origin = url
    try {
      origin = new URL(url).origin
    } catch {}
    this.out.warn(unservedWarning(origin, connection.squatter, 'this page'))
  }

  /** Each part printed: its ids noted; with the in-process sandbox, its page addresses looked at. */
  readonly printed: Printing = (item, records) => {
    this.ids.note(item, records, this.command)
    if (!this.access.connection?.inProcess || this.pagesPrinted) return
    if (printsOnStdout(this.out, item, `${this.access.pageOrigin}/checkout/`, records))
      this.pagesPrinted = true
  }

  /** At the end of a run that did not fail: the page addresses printed that nothing serves, said once. */
  atClose(failure: unknown): void {
    const connection = this.access.connection
    // A command that failed (its output may not have been written at all) has other news to give.
    if (failure !== undefined || !this.pagesPrinted || !connection?.inProcess || this.pagesWarned) return
    this.pagesWarned = true
    this.out.warn(unservedWarning(this.access.pageOrigin, connection.squatter, 'the page addresses printed'))
  }
}
