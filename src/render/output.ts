import { createRequire } from 'node:module'
import type { Writable } from 'node:stream'
import { PayError } from '../errors.js'
import { plain, type Rec, sanitizeText } from '../values.js'
import { flagForField } from './fields.js'
import { cellText, lookup, tsvCell } from './format.js'
import { sanitizeCell, toJson } from './sanitize.js'
import { columnHeader, type View } from './views.js'

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

/** One id's outcome in a bulk run, as printed by --json: `{id, ok, status, error}`. */
export interface BulkRow {
  id: string
  ok: boolean
  /** What happened: "deleted", "cancelled", "already_cancelled", "not_found", "failed", "not_done". */
  status: string
  error: string | null
}

export interface OutputOptions {
  json?: boolean
  quiet?: boolean
  columns?: string[]
}

/**
 * The one place that writes what a command produced. stdout gets data only (JSON, a table,
 * TSV or ids); messages, warnings and errors go to stderr.
 */
export class Output {
  readonly json: boolean
  readonly quiet: boolean
  readonly columns?: string[]
  readonly stdout: Stream
  readonly stderr: Stream

  constructor(
    private readonly screen: Screen,
    options: OutputOptions = {},
  ) {
    this.json = options.json ?? false
    this.quiet = options.quiet ?? false
    this.columns = options.columns
    this.stdout = screen.stdout
    this.stderr = screen.stderr
  }

  /** Colour on stdout, for cellText. */
  get colour(): boolean {
    return this.screen.colour
  }

  private get isTerminal(): boolean {
    return this.screen.stdoutIsTerminal
  }

  /** One record: JSON, its id (--quiet), a key/value table (terminal) or key<TAB>value lines. */
  record(record: Rec, view: View): void {
    if (this.json) return this.data(record)
    if (this.quiet) return this.ids([record], view)
    const fields = this.pickColumns(view.recordFields, view, [record]).filter(
      (field) => this.columns !== undefined || lookup(record, field).value !== undefined,
    )
    if (!this.isTerminal) {
      this.stdout.write(fields.map((field) => `${field}\t${tsvCell(record, field)}\n`).join(''))
      return
    }
    const rows = fields.map((field) => [this.bold(field), cellText(record, field, this)])
    this.stdout.write(`${this.table(rows, undefined)}\n`)
  }

  /** Many records: one JSON array, ids (--quiet), a table (terminal) or TSV rows without header. */
  list(records: Rec[], view: View): void {
    if (this.json) return this.data(records)
    if (this.quiet) return this.ids(records, view)
    const columns = this.pickColumns(view.listColumns, view, records)
    if (!this.isTerminal) {
      this.stdout.write(
        records.map((record) => `${columns.map((c) => tsvCell(record, c)).join('\t')}\n`).join(''),
      )
      return
    }
    if (records.length === 0) {
      this.note(`No ${view.plural}.`)
      return
    }
    const header = columns.map((column) => this.bold(columnHeader(column)))
    const rows = records.map((record) => columns.map((column) => cellText(record, column, this)))
    this.stdout.write(`${this.table(rows, header)}\n`)
  }

  /** Under a list that showed only the first page. */
  morePages(view: View): void {
    this.stderr.write(`More ${view.plural} exist than this first page: add --all to fetch them all.\n`)
  }

  /** Per-id results of a bulk command: JSON array, ids done (--quiet), a table or TSV. */
  bulk(results: BulkRow[]): void {
    if (this.json) return this.data(results)
    if (this.quiet) {
      this.stdout.write(
        results
          .filter((r) => r.ok)
          .map((r) => `${sanitizeText(r.id)}\n`)
          .join(''),
      )
      return
    }
    if (!this.isTerminal) {
      const rows = results.map((r) => [r.id, r.status, r.error ?? ''].map(sanitizeCell).join('\t'))
      this.stdout.write(rows.map((row) => `${row}\n`).join(''))
      return
    }
    const colourFor = (r: BulkRow) => (r.ok ? 32 : r.status === 'not_done' ? 33 : 31)
    const paint = (r: BulkRow) => {
      const text = sanitizeText(r.status)
      return this.colour ? `\u001b[${colourFor(r)}m${text}\u001b[39m` : text
    }
    const header = ['ID', 'RESULT', 'ERROR'].map((h) => this.bold(h))
    const rows = results.map((r) => [sanitizeText(r.id), paint(r), sanitizeText(r.error ?? '')])
    this.stdout.write(`${this.table(rows, header)}\n`)
  }

  /** Exact data as JSON on stdout. */
  data(value: unknown): void {
    this.stdout.write(`${toJson(value)}\n`)
  }

  ids(records: Rec[], view: View): void {
    const field = view.idField ?? '_id'
    this.stdout.write(records.map((record) => `${sanitizeText(plain(record[field]))}\n`).join(''))
  }

  /** A message for the person at the terminal (stderr), sanitised; silent under --json and --quiet. */
  note(message: string): void {
    if (this.json || this.quiet) return
    this.stderr.write(`${sanitizeText(message)}\n`)
  }

  /** A warning on stderr, shown even under --json (scripts log stderr). */
  warn(message: string): void {
    this.stderr.write(
      `${this.screen.stderrColour ? '\u001b[33mWarning:\u001b[39m' : 'Warning:'} ${sanitizeText(message)}\n`,
    )
  }

  /** An error on stderr: one clean message, field errors under their flags, or JSON under --json. */
  error(error: PayError): void {
    if (this.json) {
      const body = {
        error: {
          status: error.status ?? null,
          kind: error.kind,
          exit_code: error.exitCode,
          message: error.message,
          ...(error.errors ? { errors: error.errors } : {}),
          ...(error.hint ? { hint: error.hint } : {}),
        },
      }
      this.stderr.write(`${JSON.stringify(body).replace(/[\u007f-\u009f]/g, jsonEscape)}\n`)
      return
    }
    const label = this.screen.stderrColour ? '\u001b[31mError:\u001b[39m' : 'Error:'
    const lines = [`${label} ${sanitizeText(error.message)}`]
    const entries = Object.entries(error.errors ?? {}).flatMap(([field, messages]) =>
      (Array.isArray(messages) ? messages : [String(messages)]).map((message) => [
        flagForField(field),
        message,
      ]),
    )
    const width = Math.max(0, ...entries.map(([flag]) => flag.length))
    for (const [flag, message] of entries)
      lines.push(`  ${flag.padEnd(width)}  ${sanitizeText(String(message))}`)
    if (error.hint) lines.push(sanitizeText(error.hint))
    this.stderr.write(`${lines.join('\n')}\n`)
  }

  private pickColumns(defaults: string[], view: View, records: Rec[]): string[] {
    if (!this.columns) return defaults
    const known = new Set([...view.listColumns, ...view.recordFields])
    for (const record of records) for (const key of Object.keys(record)) known.add(key)
    const picked = this.columns.map((column) => (column === 'id' ? '_id' : column))
    const unknown = picked.filter((column) => !known.has(column))
    if (unknown.length > 0) {
      throw new PayError(`Unknown column ${unknown.map((c) => `"${c}"`).join(', ')} for --columns.`, {
        kind: 'usage',
        hint: `Available: ${[...known].join(', ')}`,
      })
    }
    return picked
  }

  private bold(text: string): string {
    return this.colour ? `\u001b[1m${text}\u001b[22m` : text
  }

  private table(rows: string[][], header: string[] | undefined): string {
    const Table = loadTable()
    const width = this.screen.width
    const all = header ? [header, ...rows] : rows
    const colWidths = fitWidths(all, width)
    const table = new Table({
      head: header ?? [],
      colWidths,
      wordWrap: false,
      truncate: '…',
      chars: BORDERLESS,
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
    })
    table.push(...rows)
    return table.toString()
  }
}

const jsonEscape = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`

const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '',
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes to measure text
const ANSI = /\u001b\[[0-9;]*m/g

const visibleLength = (text: string) => [...text.replace(ANSI, '')].length

/** Column widths (with 2 spaces of padding) that fit the terminal, shrinking the widest first. */
function fitWidths(rows: string[][], terminalWidth: number): number[] {
  const count = Math.max(0, ...rows.map((row) => row.length))
  const widths = Array.from({ length: count }, (_, i) =>
    Math.max(1, ...rows.map((row) => visibleLength(row[i] ?? ''))),
  )
  const budget = Math.max(terminalWidth - 2 * count, count * 4)
  let total = widths.reduce((sum, w) => sum + w, 0)
  while (total > budget) {
    const widest = widths.indexOf(Math.max(...widths))
    if (widths[widest] <= 8) break
    widths[widest] -= 1
    total -= 1
  }
  return widths.map((w) => w + 2)
}

type TableConstructor = new (
  options: Record<string, unknown>,
) => { push(...rows: unknown[]): void; toString(): string }

let tableModule: TableConstructor | undefined

/** cli-table3 is loaded only when a table is drawn: scripts and --json never pay for it. */
function loadTable(): TableConstructor {
  tableModule ??= createRequire(import.meta.url)('cli-table3') as TableConstructor
  return tableModule
}
