import type { IdChanges, IdKind } from '../config/id-cache.js'
import type { BulkRow } from '../render/bulk-rows.js'
import type { Shown } from '../render/result.js'
import { plain, type Rec } from '../values.js'

/**
 * The ids a run printed or made, for the completion cache (config/id-cache.ts): the records of
 * every view of links and subscriptions it showed (a created link, a list, a subscription's
 * charges, the links `--from-csv` made), in the order printed, and the ids a delete removed (or
 * found gone). Told of each part as print() prints it (CommandContext.show).
 */
export class SeenIds {
  readonly changes: IdChanges = {
    seen: { links: [], subscriptions: [] },
    gone: { links: [], subscriptions: [] },
  }

  /** `item` was printed; `records`: a list's, as print() tells them. */
  note(item: Shown, records: Rec[] | undefined, command: string): void {
    if (item.kind === 'record') this.add(item.view.noun, [item.record])
    else if (item.kind === 'list') this.add(item.view.noun, records ?? [])
    else if (item.kind === 'related') this.add(item.view.noun, item.records)
    else if (item.kind === 'bulk') {
      const { rows, rowsView } = item.outcome
      if (rowsView) return this.add(rowsView.noun, rows as Rec[])
      const kind = DELETES[command]
      if (kind === undefined) return
      for (const row of rows as BulkRow[])
        if (row.status === 'deleted' || row.status === 'not_found') this.changes.gone[kind].push(row.id)
    }
  }

  private add(noun: string, records: Rec[]): void {
    const source = SOURCES[noun]
    if (source === undefined) return
    for (const record of records) {
      const id = plain(record[source.field])
      if (id !== '') this.changes.seen[source.kind].push(id)
    }
  }
}

/** Which views hold ids to complete, of what kind, in which field (by the view's noun). */
const SOURCES: Record<string, { kind: IdKind; field: string }> = {
  'payment link': { kind: 'links', field: '_id' },
  subscription: { kind: 'subscriptions', field: '_id' },
  // A subscription's charges are payment links (`subs get`).
  charge: { kind: 'links', field: 'link_id' },
  // The results of `links create --from-csv`: the links made; of `subs create --from-csv`, the subscriptions.
  row: { kind: 'links', field: '_id' },
  'new subscription': { kind: 'subscriptions', field: '_id' },
}

/** The commands whose bulk results remove ids: what they deleted, or found gone, is no more. */
const DELETES: Record<string, IdKind> = { 'pay links delete': 'links', 'pay subs delete': 'subscriptions' }
