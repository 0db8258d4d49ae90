import type { Target } from '../cli/base-command.js'
import type { IO } from '../cli/io.js'
import type { Output } from '../render/output.js'
import type { View } from '../render/views.js'
import { agree, type Consent, type LookUp } from './consent.js'
import { bulkOutcome, runBulk } from './runner.js'

interface DeleteJob {
  ids: string[]
  view: View
  target: Target
  consent: Consent
  out: Output
  io: IO
  irreversible?: boolean
  remove: (id: string) => Promise<void>
  /** How the plan says what each record is. */
  lookUp: LookUp
}

/**
 * `links delete` and `subs delete`: the plan (what each record is, on a terminal), consent,
 * then each id deleted, 4 at a time; one result per id; exit 0, or 7 when some failed.
 */
export async function deleteMany(job: DeleteJob): Promise<void> {
  const { noun, plural } = job.view
  const ids = [...new Set(job.ids)]
  const what = { action: 'delete', done: 'deleted', view: job.view, irreversible: job.irreversible }
  const agreed = await agree(ids, what, job, job.lookUp)
  if (!agreed) return
  const run = await runBulk(
    agreed.ids,
    async (id) => {
      await job.remove(id)
      return 'deleted'
    },
    { concurrency: 4, skipped: agreed.skipped, order: ids },
  )
  job.out.bulk(run.results)
  const problem = bulkOutcome(run, noun, plural, 'deleted')
  if (problem) throw problem
}
