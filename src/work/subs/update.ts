import type { PayApi } from '../../api/client.js'
import { confirmPlan, type WorkflowContext } from '../../bulk/consent.js'
import { usageError } from '../../errors.js'
import { type RunContext, workflowOf } from '../../runtime/context.js'
import { type Rec, sanitizeText } from '../../values.js'
import type { FieldValues } from '../common/field-set.js'
import { CANCELLED_STATUS, isCancelled, SUBSCRIPTION_CHANGE_FIELDS } from './fields.js'
import { describeSubscription, SUBSCRIPTION_VIEW } from './view.js'

/**
 * `subs update`: only the changes given are sent; the subscription after. The one status an update
 * can set cancels the subscription, so it is agreed to as `subs cancel ID` is: the same plan,
 * `--yes`, `--dry-run`, and a refusal off a terminal without `--yes`, before anything is sent
 * (undefined after a dry run: nothing was).
 */
export async function updateSubscription(
  options: { id: string; changes: FieldValues },
  context: RunContext,
): Promise<Rec | undefined> {
  const { id, changes } = options
  if (Object.keys(changes).length === 0)
    throw usageError('Nothing to change.', 'Give --email, --phone or --status.')
  SUBSCRIPTION_CHANGE_FIELDS.check(changes)
  const { api, target } = await context.api()
  const body = SUBSCRIPTION_CHANGE_FIELDS.body(changes)
  if (body.status === CANCELLED_STATUS && !(await agreedToCancel(api, id, workflowOf(context, target)))) {
    return undefined
  }
  return api.send('updateSubscription', { id, body })
}

/**
 * The plan of `subs cancel ID`, agreed to as there: the subscription read to describe it where a
 * person confirms and for a dry run (not with --yes alone), its state shown; one cancelled already
 * needs no question. False after a dry run.
 */
async function agreedToCancel(api: PayApi, id: string, job: Omit<WorkflowContext, 'concurrency'>) {
  const { consent, out, io } = job
  const current = consent.yes && !consent.dryRun ? undefined : await api.send('getSubscription', { id })
  if (current && isCancelled(current) && !consent.dryRun) return true
  const plan = {
    action: 'cancel',
    done: 'cancelled',
    noun: SUBSCRIPTION_VIEW.noun,
    plural: SUBSCRIPTION_VIEW.plural,
    ids: [id],
    target: job.target,
    details: current && [sanitizeText(`  ${id}  ${describeSubscription(current)}`)],
  }
  return confirmPlan(plan, consent, out, io)
}
