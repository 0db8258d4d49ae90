import { plain, type Rec, sanitizeText } from '../values.js'
import { type BulkRow, bulkIds, bulkRows, bulkTsv } from './bulk-rows.js'
import { BOM, csvTable } from './csv.js'
import { cellText, lookup, sanitizeCell, tsvCell } from './format.js'
import type { JqProgram } from './jq.js'
import { toJson, toJsonLine } from './json.js'
import { drained, type Screen } from './screen.js'
import { dropRank, pickColumns, withCurrencies } from './table/columns.js'
import { drawTable, fieldKind, layOut, type TableColumn, visibleLength, wrapText } from './table/table.js'
import { columnHeader, inWords, type View } from './views.js'
import { type OutputOptions, Words } from './words/words.js'

export type { ListOutcome } from './words/list-notes.js'
export type { OutputOptions } from './words/words.js'

/**
 * The one place that writes what a command produced. stdout gets data only (JSON, a table,
 * TSV or ids); messages, warnings and errors go to stderr (words.ts).
 */
export class Output extends Words {
  readonly jq?: JqProgram
  readonly jsonl: boolean
  readonly csv: boolean
  readonly bom: boolean
  readonly columns?: string[]

  constructor(screen: Screen, options: OutputOptions = {}) {
    super(screen, options)
    this.jq = options.jq
    this.jsonl = options.jsonl ?? false
    this.csv = options.csv ?? false
    this.bom = options.bom ?? false
    this.columns = options.columns
  }

  /** Colour on stdout, for cellText. */
  get colour(): boolean {
    return this.screen.colour
  }

  private get isTerminal(): boolean {
    return this.screen.stdoutIsTerminal
  }

  /** A list is drawn as a table: on a terminal, without --json, -q or --format csv. */
  get drawsTables(): boolean {
    return this.isTerminal && !this.json && !this.quiet && !this.csv
  }

  /**
   * One record: JSON, its id (--quiet), a key/value table (terminal), key<TAB>value lines, or
   * with --columns one TSV row of the values (so that `$(pay … --columns payment_url)` is the URL).
   */
  record(asSent: Rec, view: View, asJson?: unknown): void {
    // What a command prints under --json may hold more than the record (`sandbox pay --outcome`).
    if (this.json) return this.data(asJson ?? asSent)
    if (this.quiet) return this.ids([asSent], view)
    const record = inWords(asSent, view)
    if (!this.isTerminal) {
      if (this.columns) {
        const columns = this.pickColumns(view.recordFields, view, [record])
        this.stdout.write(`${columns.map((field) => tsvCell(record, field)).join('\t')}\n`)
        return
      }
      const fields = withCurrencies(view.recordFields).filter(
        (field) => lookup(record, field).value !== undefined,
      )
      this.stdout.write(fields.map((field) => `${field}\t${tsvCell(record, field)}\n`).join(''))
      return
    }
    const fields = this.pickColumns(view.recordFields, view, [record]).filter(
      (field) => this.columns !== undefined || lookup(record, field).value !== undefined,
    )
    const keyWidth = Math.max(1, ...fields.map((field) => visibleLength(field)))
    const valueWidth = Math.max(TEXT_WRAP_MIN, this.screen.width - keyWidth - 2)
    const rows = fields.map((field) => {
      const value = cellText(record, field, this)
      // At spaces only: an e-mail address wider than the room stays whole, for the terminal to fold.
      return [
        this.bold(field),
        fieldKind(field) === 'text' ? wrapText(value, valueWidth, { unbroken: true }) : value,
      ]
    })
    const widths = [keyWidth, Math.max(1, ...rows.map(([, value]) => longestLine(value)))]
    this.stdout.write(`${drawTable(rows, widths)}\n`)
  }

  /**
   * Records that belong to the record printed just before (a subscription's charges): on a
   * terminal a table under `title`; piped one TSV line each, led by the view's noun
   * (`charge<TAB>2026-12-01<TAB>15<TAB>USD<TAB>false<TAB>ID`), so that they read as more
   * key<TAB>value lines of the record and `grep '^charge'` finds them. Nothing with --json, --jq,
   * -q or --columns: the record printed holds them, or the fields asked for are printed.
   */
  related(title: string, asSent: Rec[], view: View): void {
    if (this.json || this.quiet || this.columns) return
    const records = asSent.map((record) => inWords(record, view))
    if (!this.isTerminal) {
      const columns = withCurrencies(view.listColumns)
      const label = sanitizeCell(view.noun)
      this.stdout.write(
        records
          .map((record) => `${[label, ...columns.map((c) => tsvCell(record, c))].join('\t')}\n`)
          .join(''),
      )
      return
    }
    if (records.length === 0) return this.note(`No ${view.plural}.`)
    this.stdout.write(`\n${this.bold(sanitizeText(title))}\n`)
    const columns = view.listColumns
    const header = columns.map((column) => columnHeader(column))
    const rows = records.map((record) => columns.map((column) => cellText(record, column, this)))
    this.table(
      columns.map((column) => ({ kind: fieldKind(column) })),
      rows,
      header,
    )
  }

  /**
   * Many records: one JSON array, ids (--quiet), CSV with a header (--format csv), a table
   * (terminal) or TSV rows without header. CSV and TSV amounts are the plain number, with the
   * currency in a column of its own.
   */
  list(asSent: Rec[], view: View): void {
    if (this.jsonl) return this.lines(asSent)
    if (this.json) return this.data(asSent)
    if (this.quiet) return this.ids(asSent, view)
    const records = asSent.map((record) => inWords(record, view))
    if (this.csv || !this.isTerminal) {
      const columns = this.columns
        ? this.pickColumns(view.listColumns, view, records)
        : withCurrencies(view.listColumns)
      const tsv = () => records.map((record) => `${columns.map((c) => tsvCell(record, c)).join('\t')}\n`)
      this.stdout.write(this.csv ? `${this.bom ? BOM : ''}${csvTable(records, columns)}` : tsv().join(''))
      return
    }
    if (records.length === 0) {
      this.note(`No ${view.plural}.`)
      return
    }
    // Columns picked with --columns show their fields exactly; the view's own may combine two.
    const columns = this.columns
      ? this.pickColumns(view.listColumns, view, records)
      : (view.tableColumns ?? view.listColumns)
    const combined = this.columns ? undefined : view.tableCell
    const header = columns.map((column) => columnHeader(column))
    // One line per record: a newline inside a value is shown as a space.
    const rows = records.map((record) =>
      columns.map((column) =>
        (combined?.(record, column, this) ?? cellText(record, column, this)).replace(/\n/g, ' '),
      ),
    )
    // Columns picked with --columns are all shown: the user asked for them.
    const kinds = columns.map((column) => ({
      kind: fieldKind(column),
      dropRank: this.columns ? undefined : dropRank(view, column),
    }))
    this.table(kinds, rows, header)
  }

  /**
   * A list arriving in batches (a page's worth each): with --jsonl each batch is printed as it
   * comes, waiting for a slow reader, so memory holds one page; otherwise the list is printed whole.
   */
  async listFrom(batches: AsyncIterable<Rec[]>, view: View): Promise<void> {
    if (!this.jsonl) {
      const records: Rec[] = []
      for await (const batch of batches) for (const record of batch) records.push(record)
      return this.list(records, view)
    }
    for await (const batch of batches) {
      if (!this.stdout.write(this.linesText(batch))) await drained(this.stdout)
    }
  }

  /**
   * Records that are shown as they come rather than as a table (`sandbox requests`, its
   * `--follow`): under --json one array, or with `lines` one JSON line each (--jq on each); with
   * -q their ids; on a terminal `show.text`, piped `show.tsv`.
   */
  entries(
    records: Rec[],
    view: View,
    show: { text: (record: Rec) => string; tsv: (record: Rec) => string },
    lines = false,
  ): void {
    if (this.json) return lines ? this.lines(records) : this.data(records)
    if (this.quiet) return this.ids(records, view)
    const shown = this.isTerminal ? show.text : show.tsv
    this.stdout.write(records.map((record) => `${shown(record)}\n`).join(''))
  }

  /** Per-id results of a bulk command: JSON array, ids done (--quiet), a table or TSV. */
  bulk(results: BulkRow[]): void {
    if (this.json) return this.data(results)
    if (this.quiet) {
      this.stdout.write(bulkIds(results))
      return
    }
    if (!this.isTerminal) {
      this.stdout.write(bulkTsv(results))
      return
    }
    const rows = bulkRows(results, this.colour)
    this.table([{ kind: 'whole' }, { kind: 'whole' }, { kind: 'text' }], rows, ['ID', 'RESULT', 'ERROR'])
  }

  /** A bulk command given an empty list: an empty result (`[]` under --json) and a word on stderr. */
  nothingToDo(message: string): void {
    if (this.json) this.data([])
    this.stderr.write(`${message}\n`)
  }

  /** Text for stdout as it is (the caller sanitised it: a URL, a QR code's lines). */
  text(text: string): void {
    this.stdout.write(`${text}\n`)
  }

  /** Data as JSON on one line. */
  jsonLine(value: unknown): void {
    this.stdout.write(`${toJsonLine(value)}\n`)
  }

  /** Exact data as JSON on stdout (pretty), or what --jq makes of it. */
  data(value: unknown): void {
    if (this.jq) return this.filtered(JSON.stringify(value))
    this.stdout.write(`${toJson(value)}\n`)
  }

  /**
   * A document as it came (`pay api`): JSON pretty on a terminal and compact when piped, as gh
   * does, or what --jq makes of it.
   */
  document(value: unknown): void {
    if (this.jq) return this.filtered(JSON.stringify(value))
    this.stdout.write(`${this.isTerminal ? toJson(value) : toJsonLine(value)}\n`)
  }

  /** Records one a line (--jsonl): compact JSON, or with --jq the program run on each. */
  private lines(records: Rec[]): void {
    this.stdout.write(this.linesText(records))
  }

  private linesText(records: Rec[]): string {
    if (this.jq) return this.jqText(records.map((record) => JSON.stringify(record)).join('\n'))
    return records.map((record) => `${toJsonLine(record)}\n`).join('')
  }

  /** JSON text through --jq, printed; a jq error after it. */
  private filtered(json: string): void {
    this.stdout.write(this.jqText(json))
  }

  /** What --jq makes of JSON text; its messages go to stderr, its error is thrown once the output is out. */
  private jqText(json: string): string {
    const result = this.jq!.run(json)
    if (result.messages) this.stderr.write(result.messages)
    if (result.error) {
      this.stdout.write(result.text)
      throw result.error
    }
    return result.text
  }

  ids(records: Rec[], view: View): void {
    const field = view.idField ?? '_id'
    this.stdout.write(records.map((record) => `${sanitizeText(plain(record[field]))}\n`).join(''))
  }

  /** The columns --columns names (columns.ts), or `defaults`. */
  private pickColumns(defaults: string[], view: View, records: Rec[]): string[] {
    return this.columns ? pickColumns(this.columns, view, records) : defaults
  }

  private bold(text: string): string {
    return this.colour ? `\u001b[1m${text}\u001b[22m` : text
  }

  /** A list table fitted to the terminal (see table.ts): whole columns are never cut. */
  private table(columns: TableColumn[], rows: string[][], header: string[]): void {
    const layout = layOut(columns, [header, ...rows], this.screen.width, header)
    const pick = (row: string[]) => layout.shown.map((i) => row[i] ?? '')
    const text = drawTable(
      rows.map(pick),
      layout.widths,
      pick(header).map((h) => this.bold(h)),
    )
    this.stdout.write(`${text}\n`)
  }
}

/** A value's column in a record table is never narrower than this, however long the field names. */
const TEXT_WRAP_MIN = 20

const longestLine = (text: string) => Math.max(...text.split('\n').map(visibleLength))
