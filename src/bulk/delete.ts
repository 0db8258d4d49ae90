import type { Target } from '../cli/base-command.js'
import type { IO } from '../cli/io.js'
import type { Output } from '../render/output.js'
import type { View } from '../render/views.js'
import { type Consent, confirmPlan } from './consent.js'
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
}

/** `links delete` and `subs delete`: confirm, delete each id, one result per id, exit 0/7. */
export async function deleteMany(job: DeleteJob): Promise<void> {
  const { noun, plural } = job.view
  const ids = [...new Set(job.ids)]
  const plan = {
    action: 'delete',
    done: 'deleted',
    noun,
    plural,
    ids,
    target: job.target,
    irreversible: job.irreversible,
  }
  if (!(await confirmPlan(plan, job.consent, job.out, job.io))) return
  const run = await runBulk(
    ids,
    async (id) => {
      await job.remove(id)
      return 'deleted'
    },
    { concurrency: 4 },
  )
  job.out.bulk(run.results)
  const problem = bulkOutcome(run, noun, plural, 'deleted')
  if (problem) throw problem
}
