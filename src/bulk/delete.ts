import type { BulkOutcome } from '../render/bulk-rows.js'
import type { View } from '../render/views.js'
import type { Rec } from '../values.js'
import { actOnIds, type ByIdJob } from './by-id.js'
import type { LookUp } from './consent.js'

/** What `links delete` and `subs delete` each bring: their records, and how to delete one. */
export interface Deletion {
  command: string
  view: View
  irreversible?: boolean
  remove: (id: string) => Promise<void>
  /** On --resume, an id found gone (`not_found`): what a delete the killed run sent may have done. */
  gone?: (id: string) => void
  lookUp: LookUp
  /** The report's columns for what was deleted, and their values for a record. */
  columns: string[]
  describe: (record: Rec) => Record<string, string>
}

/**
 * `links delete` and `subs delete`: the plan (what each record is, up to 20), consent, then
 * each id deleted with bounded concurrency; one result per id; exit 0, or 7 when some were not
 * deleted. With a report, each record is read before it is deleted (unless the plan read it),
 * so that the report says what was deleted: its e-mail, amount and currency.
 */
export function deleteMany(deletion: Deletion, job: ByIdJob): Promise<BulkOutcome> {
  return actOnIds(
    {
      ...deletion,
      action: 'delete',
      done: 'deleted',
      acts: 'deletions',
      doneStatuses: ['deleted'],
      found: (result) => {
        if (result.status === 'not_found') deletion.gone?.(result.id)
      },
      work: async (id, known, wantRecord) => {
        const record = known ?? (wantRecord ? await deletion.lookUp.fetch(id) : undefined)
        await deletion.remove(id)
        return { status: 'deleted', record }
      },
    },
    job,
  )
}
