import type { RawResponse } from '../api/transport.js'
import type { PayError } from '../errors.js'
import { plain, type Rec } from '../values.js'
import {
  type BulkOutcome,
  type BulkRow,
  bulkIds,
  bulkTsv,
  foldNotDone,
  NOT_DONE_FOLDED,
} from './bulk-rows.js'
import { lookup } from './format.js'
import type { ListOutcome, Output } from './output.js'
import { pickColumns } from './table/columns.js'
import type { View } from './views.js'

/**
 * What a command produced, as its run() returns it: the base command (cli/base-command.ts)
 * prints it through Output in the mode asked (table, TSV, --json, --jq, --jsonl, -q), in order.
 * No command writes to a stream itself, nor asks which mode was asked (in the spirit of
 * sf-plugins-core's SfCommand, whose run() returns its data).
 */
export type Shown =
  /** One record; `json`: what --json prints when it holds more than the record. */
  | { kind: 'record'; record: Rec; view: View; json?: unknown }
  /** Records belonging to the record shown before (a subscription's charges). */
  | { kind: 'related'; title: string; records: Rec[]; view: View }
  /** Many records, whole or in batches (a page each); `outcome`, once printed, for the notes under it. */
  | { kind: 'list'; records: Rec[] | AsyncIterable<Rec[]>; view: View; outcome?: () => ListOutcome }
  /** Records shown as they come rather than as a table (`sandbox requests`). */
  | {
      kind: 'entries'
      records: Rec[]
      view: View
      show: { text: (record: Rec) => string; tsv: (record: Rec) => string }
    }
  /** What a bulk run came to: its results, the words under them, its exit. */
  | { kind: 'bulk'; outcome: BulkOutcome }
  /** A bulk run given nothing to do: `[]` under --json and a word on stderr. */
  | { kind: 'nothing'; message: string }
  /** A document as it came (`pay api`). */
  | { kind: 'document'; value: unknown }
  /** The status line and headers of an answer (`pay api -i`), on stderr. */
  | { kind: 'head'; response: RawResponse }
  /** A message for the person (stderr); under --json, `json` on stdout instead. */
  | { kind: 'message'; text: string; json: unknown }
  /** Text for stdout (a URL, a QR code); under --json, `json` instead. */
  | { kind: 'text'; text: string; json: unknown }
  /** Data as JSON whatever the mode. */
  | { kind: 'data'; json: unknown }
  /**
   * Words on stderr: `note` silent under --json and -q, `notice` always, `warn` a warning, `log`
   * as it is (already sanitised: a request log line, a summary).
   */
  | { kind: 'note' | 'notice' | 'warn' | 'log'; text: string }
  /** One of two by the mode asked: under --json (--jq, --jsonl), and otherwise. */
  | { kind: 'either'; json: Result; text: Result }
  /** What is done once all before it is printed (notes that count what a list read, a browser opened). */
  | { kind: 'later'; produce: () => Result | Promise<Result> }
  /** The run's error, once all before it is printed (a bulk run's exit 7). */
  | { kind: 'fail'; error: PayError }

/** What run() returns: nothing, one thing shown, or several in order. */
export type Result = Shown | Result[] | undefined

/** Builders of what a command shows, for run()'s return value. */
export const shown = {
  record: (record: Rec, view: View, json?: unknown): Shown => ({ kind: 'record', record, view, json }),
  related: (title: string, records: Rec[], view: View): Shown => ({ kind: 'related', title, records, view }),
  bulk: (outcome: BulkOutcome): Shown => ({ kind: 'bulk', outcome }),
  list: (records: Rec[] | AsyncIterable<Rec[]>, view: View, outcome?: () => ListOutcome): Shown => ({
    kind: 'list',
    records,
    view,
    outcome,
  }),
  nothing: (message: string): Shown => ({ kind: 'nothing', message }),
  message: (text: string, json: unknown): Shown => ({ kind: 'message', text, json }),
  text: (text: string, json: unknown): Shown => ({ kind: 'text', text, json }),
  data: (json: unknown): Shown => ({ kind: 'data', json }),
  note: (text: string): Shown => ({ kind: 'note', text }),
  notice: (text: string): Shown => ({ kind: 'notice', text }),
  warn: (text: string): Shown => ({ kind: 'warn', text }),
  log: (text: string): Shown => ({ kind: 'log', text }),
  later: (produce: () => Result | Promise<Result>): Shown => ({ kind: 'later', produce }),
  fail: (error: PayError): Shown => ({ kind: 'fail', error }),
}

/**
 * Told of each part print() has printed: the part, and a list's records (those of each batch
 * with --jsonl, else all of them once printed). The run context notices the in-process
 * sandbox's page addresses this way (printsOnStdout), rather than by watching the stream.
 */
export type Printing = (item: Shown, records?: Rec[]) => void

/** Prints what a command produced, in order; a `fail` is thrown once all before it is out. */
export async function print(out: Output, result: Result, printing?: Printing): Promise<void> {
  if (result === undefined || result === null) return
  if (Array.isArray(result)) {
    for (const part of result) await print(out, part, printing)
    return
  }
  const item = result as Shown
  if (item.kind === 'either') return print(out, out.json ? item.json : item.text, printing)
  if (item.kind === 'later') return print(out, await item.produce(), printing)
  if (!printing) return printOne(out, item)
  if (item.kind !== 'list' || Array.isArray(item.records)) {
    await printOne(out, item)
    return printing(item, item.kind === 'list' ? (item.records as Rec[]) : undefined)
  }
  const all: Rec[] = []
  await printOne(out, {
    ...item,
    records: told(item.records, (batch) => (out.jsonl ? printing(item, batch) : all.push(...batch))),
  })
  if (!out.jsonl) printing(item, all)
}

/** The batches of a list as they come, each told to `seen` first. */
async function* told(batches: AsyncIterable<Rec[]>, seen: (batch: Rec[]) => unknown): AsyncIterable<Rec[]> {
  for await (const batch of batches) {
    seen(batch)
    yield batch
  }
}

async function printOne(out: Output, item: Shown): Promise<void> {
  switch (item.kind) {
    case 'record':
      return out.record(item.record, item.view, item.json)
    case 'related':
      return out.related(item.title, item.records, item.view)
    case 'list':
      if (Array.isArray(item.records)) out.list(item.records, item.view)
      else await out.listFrom(item.records, item.view)
      if (item.outcome) out.listNotes(item.outcome(), item.view)
      return
    case 'entries':
      return out.entries(item.records, item.view, item.show)
    case 'bulk':
      return printBulk(out, item.outcome)
    case 'nothing':
      return out.nothingToDo(item.message)
    case 'document':
      return out.document(item.value)
    case 'head':
      return out.responseHead(item.response)
    case 'message':
      return out.json ? out.data(item.json) : out.note(item.text)
    case 'text':
      return out.json ? out.data(item.json) : out.text(item.text)
    case 'data':
      return out.data(item.json)
    case 'note':
      return out.note(item.text)
    case 'notice':
      return out.notice(item.text)
    case 'warn':
      return out.warn(item.text)
    case 'log':
      return out.log(item.text)
    case 'either':
    case 'later':
      return print(out, item)
    case 'fail':
      throw item.error
  }
}

/**
 * Whether printing `item` in out's mode put `text` on stdout: in a field the mode shows (the
 * view's, or --columns), in the JSON (after --jq), or in the text. `records`: a list's, as
 * print() tells them. Output decides what is shown; this follows the same choices.
 */
export function printsOnStdout(out: Output, item: Shown, text: string, records: Rec[] = []): boolean {
  const inJson = (value: unknown) =>
    (out.jq ? out.jq.run(JSON.stringify(value)).text : JSON.stringify(value)).includes(text)
  const inFields = (rows: Rec[], fields: string[]) =>
    rows.some((row) => fields.some((field) => plain(lookup(row, field).value).includes(text)))
  const picked = (defaults: string[], view: View, rows: Rec[]) =>
    out.columns ? pickColumns(out.columns, view, rows) : defaults
  switch (item.kind) {
    case 'record':
      if (out.json) return inJson(item.json ?? item.record)
      return !out.quiet && inFields([item.record], picked(item.view.recordFields, item.view, [item.record]))
    case 'related':
      return !out.json && !out.quiet && !out.columns && inFields(item.records, item.view.listColumns)
    case 'list': {
      if (out.jsonl) {
        const lines = records.map((record) => JSON.stringify(record)).join('\n')
        return (out.jq ? out.jq.run(lines).text : lines).includes(text)
      }
      if (out.json) return inJson(records)
      const { view } = item
      const columns = out.stdout.isTTY ? (view.tableColumns ?? view.listColumns) : view.listColumns
      return !out.quiet && inFields(records, picked(columns, view, records))
    }
    case 'entries': {
      if (out.json) return inJson(item.records)
      const line = out.stdout.isTTY ? item.show.text : item.show.tsv
      return !out.quiet && item.records.some((record) => line(record).includes(text))
    }
    case 'bulk': {
      const { rows, rowsView } = item.outcome
      if (rowsView)
        return printsOnStdout(
          out,
          { kind: 'list', records: rows as Rec[], view: rowsView },
          text,
          rows as Rec[],
        )
      if (out.json) return inJson(rows)
      const results = rows as BulkRow[]
      return (out.quiet ? bulkIds(results) : bulkTsv(results)).includes(text)
    }
    case 'document':
    case 'data':
      return inJson(item.kind === 'data' ? item.json : item.value)
    case 'message':
      return out.json && inJson(item.json)
    case 'text':
      return out.json ? inJson(item.json) : item.text.includes(text)
    default:
      return false
  }
}

/** A bulk run's results, then its words on stderr (refused rows, summary, report, warning), then its exit. */
function printBulk(out: Output, outcome: BulkOutcome): void {
  if (outcome.nothing !== undefined) return out.nothingToDo(outcome.nothing)
  if (outcome.planOnly) return
  if (outcome.rowsView) {
    // A table on a terminal folds the rows never attempted into one; TSV, CSV and JSON keep each.
    const rows = out.drawsTables
      ? foldNotDone(outcome.rows as Rec[], (count) => ({
          line: `(${count} rows)`,
          ok: false,
          status: 'not_done',
          error: NOT_DONE_FOLDED,
        }))
      : (outcome.rows as Rec[])
    out.list(rows, outcome.rowsView)
  } else out.bulk(outcome.rows as BulkRow[])
  if (outcome.refused && outcome.refused.length > 0) {
    const count = outcome.refused.length
    out.log(`The service refused ${count === 1 ? 'a row' : `${count} rows`}:`)
    out.invalidRows(outcome.refused)
  }
  if (outcome.summary) out.summary(outcome.summary)
  if (outcome.report) {
    if ('unwritten' in outcome.report) out.warn(outcome.report.unwritten)
    else out.log(`Report written to ${outcome.report.written}`)
  }
  if (outcome.warning) out.warn(outcome.warning)
  if (outcome.failure) throw outcome.failure
}
