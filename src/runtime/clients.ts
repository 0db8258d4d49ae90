import type http from 'node:http'
import { PayApi } from '../api/client.js'
import type { ChangeLog } from '../api/types.js'
import { Journal, osUser } from '../config/journal.js'
import type { Output } from '../render/output.js'
import { sanitizeText } from '../values.js'
import type { Env, Target } from './context.js'

/** Seconds allowed for each request when neither --timeout nor PAY_TIMEOUT says. */
const DEFAULT_TIMEOUT_SECONDS = 30

/**
 * The API clients of one run: each with the run's timeout, --debug trace and User-Agent, and,
 * for the changes it sends, the journal (`pay history`). Journals stay open until close().
 */
export class Clients {
  private readonly journals: Journal[] = []

  constructor(
    private readonly options: {
      env: Env
      out: Output
      /** The command as typed: `pay links create`, the journal's. */
      command: string
      userAgent: string
      /** Whether stderr is a terminal: the journal notes it. */
      terminal: boolean
      /** The journal's file; undefined when PAY_JOURNAL=0. */
      journalFile?: string
      debug?: boolean
      /** --timeout, in seconds. */
      timeoutSeconds?: number
    },
  ) {}

  /** The journal this run's changes (or a part's: `command`) are written to; undefined when PAY_JOURNAL=0. */
  journal(target: Target, command = this.options.command): Journal | undefined {
    const { journalFile, terminal, env, out } = this.options
    if (journalFile === undefined) return undefined
    const { profile, baseUrl } = target
    const context = { command, profile, baseUrl, terminal, user: osUser(env) }
    const journal = new Journal(journalFile, context, (message) => out.warn(message))
    this.journals.push(journal)
    return journal
  }

  /** A client for this base URL and key, with the run's timeout, --debug trace and `changes` (the journal). */
  make(baseUrl: string, apiKey: string, changes?: ChangeLog, agent?: http.Agent): PayApi {
    return new PayApi({
      baseUrl,
      apiKey,
      changes,
      agent,
      timeoutMs: this.timeoutSeconds() * 1000,
      userAgent: this.options.userAgent,
      debug: this.debugSink(),
    })
  }

  /**
   * Where --debug lines go: stderr, each sanitised like every other text shown (a trace carries
   * a server's status line, headers and bodies); undefined without --debug.
   */
  debugSink(): ((line: string) => void) | undefined {
    if (!this.options.debug) return undefined
    const { out } = this.options
    return (line) => out.stderr.write(`[debug] ${sanitizeText(line)}\n`)
  }

  /** The journals' files closed. */
  close(): void {
    for (const journal of this.journals.splice(0)) journal.close()
  }

  /** Seconds allowed for each request, retries included: --timeout, else PAY_TIMEOUT, else 30. */
  private timeoutSeconds(): number {
    if (this.options.timeoutSeconds !== undefined) return this.options.timeoutSeconds
    const fromEnv = Number(this.options.env.PAY_TIMEOUT)
    return fromEnv > 0 ? fromEnv : DEFAULT_TIMEOUT_SECONDS
  }
}
