import { deleteMany } from '../../bulk/delete.js'
import { idInput } from '../../bulk/ids.js'
import type { BulkOutcome } from '../../render/bulk-rows.js'
import { type RunContext, workflowOf } from '../../runtime/context.js'
import { type ByIdOptions, SUBSCRIPTION_REPORT } from './cancel.js'
import { describeSubscription, SUBSCRIPTION_MONEY, SUBSCRIPTION_VIEW } from './view.js'

/** `subs delete`: ids from arguments, a file or stdin, confirmed, then deleted for good. */
export async function deleteSubscriptions(options: ByIdOptions, context: RunContext): Promise<BulkOutcome> {
  const input = await idInput(options.ids, options, context.io, 'subscription')
  const { api, target } = await context.api()
  const deletion = {
    command: 'pay subs delete',
    view: SUBSCRIPTION_VIEW,
    irreversible: true,
    remove: async (id: string) => {
      await api.send('deleteSubscription', { id })
    },
    gone: (id: string) => api.found('deleteSubscription', id, 'gone'),
    lookUp: {
      fetch: (id: string) => api.send('getSubscription', { id }),
      describe: describeSubscription,
      money: SUBSCRIPTION_MONEY,
    },
    ...SUBSCRIPTION_REPORT,
  }
  return deleteMany(deletion, { ...input, concurrency: options.concurrency, ...workflowOf(context, target) })
}
