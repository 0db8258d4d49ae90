import type { RawResponse } from '../../api/transport.js'
import type { FieldErrors, PayError } from '../../errors.js'
import { sanitizeText } from '../../values.js'
import type { JqProgram } from '../jq.js'
import type { Screen, Stream } from '../screen.js'
import { wrapMessage, wrapText } from '../table/table.js'
import type { View } from '../views.js'
import { errorJson, errorText, invalidRowsText } from './error-text.js'
import { flagForField } from './flag-names.js'
import { type ListOutcome, listNotesText } from './list-notes.js'

/** How a command asked its output to be: output.ts's options, which the words on stderr follow too. */
export interface OutputOptions {
  /** --json: data as JSON, and errors as JSON on stderr. */
  json?: boolean
  /** --jq: data through this jq program (data as JSON, errors as chosen with --json). */
  jq?: JqProgram
  /** --jsonl: lists as one JSON record per line. */
  jsonl?: boolean
  /** --format csv: lists as CSV, with a header row (csv.ts). */
  csv?: boolean
  /** --bom with --format csv: the CSV starts with a UTF-8 byte-order mark (csv.ts, BOM). */
  bom?: boolean
  quiet?: boolean
  columns?: string[]
  /** A 422's fields are shown as sent (`pay api`), not as the flags that set them. */
  fieldsAsSent?: boolean
}

/**
 * The words a run says on stderr, sanitised and, on a terminal, wrapped to its width: notes
 * (silent under --json and -q), notices and warnings (always), errors (JSON under --json), the
 * notes under a list, a bulk run's summary. Output (output.ts), which writes the data on stdout,
 * is these words too.
 */
export class Words {
  /** Data is printed as JSON: --json, --jq or --jsonl. */
  readonly json: boolean
  /** Errors are printed as JSON (--json, --jq). */
  readonly jsonErrors: boolean
  readonly quiet: boolean
  readonly stdout: Stream
  readonly stderr: Stream
  protected readonly fieldLabel: (field: string) => string

  constructor(
    protected readonly screen: Screen,
    options: OutputOptions = {},
  ) {
    // --jq implies --json, for errors too: a script reading JSON gets its errors as JSON.
    this.jsonErrors = (options.json ?? false) || options.jq !== undefined
    this.json = this.jsonErrors || (options.jsonl ?? false)
    this.quiet = options.quiet ?? false
    this.fieldLabel = options.fieldsAsSent ? (field) => field : flagForField
    this.stdout = screen.stdout
    this.stderr = screen.stderr
  }

  /**
   * Under a list, on stderr (also with --json: scripts log stderr): how far a filter searched
   * when it took more than one request, and how to see what was left out.
   */
  listNotes(found: ListOutcome, view: View): void {
    this.stderr.write(this.said(listNotesText(found, view)))
  }

  /** A line on stderr as it is (the caller sanitised it: a request log line, a summary). */
  log(text: string): void {
    this.stderr.write(`${text}\n`)
  }

  /** A bulk run's summary line on stderr: wrapped at spaces on a terminal, one line in a log. */
  summary(line: string): void {
    this.log(this.screen.stderrIsTerminal ? wrapText(line, this.screen.width) : line)
  }

  /** The status line and headers of an answer (`pay api -i`), on stderr (stdout carries the body). */
  responseHead(response: RawResponse): void {
    const status = `HTTP/${response.httpVersion} ${response.status} ${response.statusMessage}`.trimEnd()
    const lines = [status, ...response.headers.map(([name, value]) => `${name}: ${value}`)]
    this.stderr.write(`${lines.map((line) => sanitizeText(line)).join('\n')}\n\n`)
  }

  /** A message for the person at the terminal (stderr), sanitised; silent under --json and --quiet. */
  note(message: string): void {
    if (this.json || this.quiet) return
    this.stderr.write(this.said(`${sanitizeText(message)}\n`))
  }

  /** A line on stderr, sanitised, in every output mode: what must not go unseen, worded as it is. */
  notice(message: string): void {
    this.stderr.write(this.said(`${sanitizeText(message)}\n`))
  }

  /** A warning on stderr, shown even under --json (scripts log stderr). */
  warn(message: string): void {
    const text = this.said(`Warning: ${sanitizeText(message)}\n`)
    this.stderr.write(
      this.screen.stderrColour ? text.replace(/^Warning:/, '\u001b[33mWarning:\u001b[39m') : text,
    )
  }

  /** An error on stderr: one clean message, field errors under their flags, or JSON under --json. */
  error(error: PayError): void {
    this.stderr.write(
      this.jsonErrors
        ? errorJson(error)
        : errorText(error, this.fieldLabel, this.screen.stderrColour, (text) => this.said(text)),
    )
  }

  /** Rows of an input file that failed local checks: each line number, its fields under their flags. */
  invalidRows(rows: { line: number; errors: FieldErrors }[]): void {
    this.stderr.write(this.said(invalidRowsText(rows, this.fieldLabel)))
  }

  /** Words for stderr: on a terminal, wrapped at spaces to its width rather than folded mid-word. */
  protected said(text: string): string {
    return this.screen.stderrIsTerminal ? wrapMessage(text, this.screen.width) : text
  }
}
