import type { View } from '../render/views.js'
import { actOnIds, type ByIdJob } from './by-id.js'
import type { LookUp } from './consent.js'

/** What `links delete` and `subs delete` each bring: their records, and how to delete one. */
export interface Deletion {
  command: string
  view: View
  irreversible?: boolean
  remove: (id: string) => Promise<void>
  lookUp: LookUp
}

/**
 * `links delete` and `subs delete`: the plan (what each record is, on a terminal), consent,
 * then each id deleted with bounded concurrency; one result per id; exit 0, or 7 when some
 * failed.
 */
export function deleteMany(deletion: Deletion, job: ByIdJob): Promise<void> {
  return actOnIds(
    {
      ...deletion,
      action: 'delete',
      done: 'deleted',
      acts: 'deletions',
      doneStatuses: ['deleted'],
      counted: ['deleted', 'not_found', 'failed'],
      work: async (id) => {
        await deletion.remove(id)
        return { status: 'deleted' }
      },
    },
    job,
  )
}
