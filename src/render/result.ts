import type { RawResponse } from '../api/transport.js'
import type { PayError } from '../errors.js'
import type { Rec } from '../values.js'
import type { BulkRow } from './bulk-rows.js'
import type { ListOutcome, Output } from './output.js'
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
  /** Per-id results of a bulk run. */
  | { kind: 'bulk'; rows: BulkRow[] }
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
  /** Data as one line of JSON whatever the mode (where `sandbox start` listens). */
  | { kind: 'jsonLine'; json: unknown }
  /** Rows of an input file that failed local checks, on stderr. */
  | { kind: 'invalid'; rows: Parameters<Output['invalidRows']>[0] }
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

/** Prints what a command produced, in order; a `fail` is thrown once all before it is out. */
export async function print(out: Output, result: Result): Promise<void> {
  if (result === undefined || result === null) return
  if (Array.isArray(result)) {
    for (const part of result) await print(out, part)
    return
  }
  const item = result as Shown
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
      return out.bulk(item.rows)
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
    case 'jsonLine':
      return out.jsonLine(item.json)
    case 'invalid':
      return out.invalidRows(item.rows)
    case 'note':
      return out.note(item.text)
    case 'notice':
      return out.notice(item.text)
    case 'warn':
      return out.warn(item.text)
    case 'log':
      return out.log(item.text)
    case 'either':
      return print(out, out.json ? item.json : item.text)
    case 'later':
      return print(out, await item.produce())
    case 'fail':
      throw item.error
  }
}
