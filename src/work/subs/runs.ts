import { deleteMany } from '../../bulk/delete.js'
import { type IdFlags, idInput } from '../../bulk/ids.js'
import { usageError } from '../../errors.js'
import { type Result, shown } from '../../render/result.js'
import { type RunContext, workflowOf } from '../../runtime/context.js'
import type { Duration } from '../../shared/duration.js'
import type { Rec } from '../../values.js'
import type { FieldValues } from '../common/field-set.js'
import { walkList } from '../common/list-walk.js'
import { sortOrder } from '../common/sort.js'
import { cancelSubscriptions, SUBSCRIPTION_REPORT } from './cancel.js'
import { CHARGE_VIEW, chargeFilter, chargesOf, chargesTitle } from './charges.js'
import {
  describeSubscription,
  packageChoice,
  SUBSCRIPTION_CHANGE_FIELDS,
  SUBSCRIPTION_FIELDS,
  SUBSCRIPTION_VIEW,
  subscriptionFilter,
} from './subscriptions.js'

/**
 * The work of the `subs` commands, one function each: its options and the run context
 * (cli/context.ts), as link-runs.ts does for links.
 */

/** `subs create`: on a terminal the missing fields are asked for (with the sandbox, its packages offered). */
export async function createSubscription(
  options: { fields: FieldValues; idempotencyKey?: string },
  context: RunContext,
): Promise<Result> {
  const fields = { ...options.fields }
  SUBSCRIPTION_FIELDS.check(fields)
  // On a terminal, a missing key or a refused base URL is reported before any question.
  const early = context.io.canPrompt ? await context.api() : undefined
  // With the sandbox profile, its seeded packages are the choices: no id to look up.
  const offered = early?.sandboxPackages?.map(packageChoice)
  await SUBSCRIPTION_FIELDS.fillMissing(fields, context.io, { choices: { package_id: offered ?? [] } })
  const { api } = await context.api()
  const subscription = await api.send('createSubscription', {
    body: SUBSCRIPTION_FIELDS.body(fields),
    idempotencyKey: options.idempotencyKey,
  })
  return shown.record(subscription, SUBSCRIPTION_VIEW)
}

/** `subs get`: the subscription, then its charges. */
export async function showSubscription(options: { id: string }, context: RunContext): Promise<Result> {
  const { api } = await context.api()
  const subscription = await api.send('getSubscription', { id: options.id })
  const charges = chargesOf(subscription)
  return [
    shown.record(subscription, SUBSCRIPTION_VIEW),
    shown.related(chargesTitle(charges), charges, CHARGE_VIEW),
  ]
}

/**
 * `subs list`: filtered by fields, by when they were created and by charges (unpaid, overdue),
 * sorted by `sort` (`-FIELD`: descending), as much as the list scope says.
 */
export async function listSubscriptions(
  options: {
    status?: string
    email?: string
    'created-after'?: string
    'created-before'?: string
    unpaid?: boolean
    overdue?: Duration
    sort?: string
  },
  context: RunContext,
): Promise<Result> {
  const fields = subscriptionFilter(options, context.now())
  const charges = chargeFilter(options)
  const order = sortOrder(options.sort, SUBSCRIPTION_VIEW)
  const { api } = await context.api()
  const match = charges
    ? (record: Rec) => (fields === undefined || fields(record)) && charges.match(record)
    : fields
  const pages = charges ? charges.watch(api.pages('listSubscriptions')) : api.pages('listSubscriptions')
  const found = walkList(pages, match, order, context.listScope)
  return [shown.list(found.batches, SUBSCRIPTION_VIEW, found.outcome), shown.later(() => charges?.notes())]
}

/** `subs update`: only the changes given are sent. */
export async function updateSubscription(
  options: { id: string; changes: FieldValues },
  context: RunContext,
): Promise<Result> {
  const { changes } = options
  if (Object.keys(changes).length === 0)
    throw usageError('Nothing to change.', 'Give --email, --phone or --status.')
  SUBSCRIPTION_CHANGE_FIELDS.check(changes)
  const { api } = await context.api()
  const updated = await api.send('updateSubscription', {
    id: options.id,
    body: SUBSCRIPTION_CHANGE_FIELDS.body(changes),
  })
  return shown.record(updated, SUBSCRIPTION_VIEW)
}

/** What the bulk commands by id take: the ids (arguments; --from-file, -), the report, the concurrency. */
type ByIdOptions = IdFlags & { ids: string[]; concurrency: number }

/** `subs cancel`: each subscription set to status "cancel" (bulk/cancel.ts). */
export async function cancelMany(options: ByIdOptions, context: RunContext): Promise<Result> {
  const input = await idInput(options.ids, options, context.io, 'subscription')
  const { api, target } = await context.api()
  return cancelSubscriptions(api, {
    ...input,
    concurrency: options.concurrency,
    ...workflowOf(context, target),
  })
}

/** `subs delete`: ids from arguments, a file or stdin, confirmed, then deleted for good. */
export async function deleteSubscriptions(options: ByIdOptions, context: RunContext): Promise<Result> {
  const input = await idInput(options.ids, options, context.io, 'subscription')
  const { api, target } = await context.api()
  const deletion = {
    command: 'pay subs delete',
    view: SUBSCRIPTION_VIEW,
    irreversible: true,
    remove: (id: string) => api.send('deleteSubscription', { id: id }),
    lookUp: {
      fetch: (id: string) => api.send('getSubscription', { id: id }),
      describe: describeSubscription,
    },
    ...SUBSCRIPTION_REPORT,
  }
  return deleteMany(deletion, { ...input, concurrency: options.concurrency, ...workflowOf(context, target) })
}
