import { deleteMany } from '../../bulk/delete.js'
import { type IdFlags, idInput } from '../../bulk/ids.js'
import type { BulkOutcome } from '../../render/bulk-rows.js'
import { type RunContext, workflowOf } from '../../runtime/context.js'
import { plain, type Rec } from '../../values.js'
import { describeLink, LINK_MONEY, LINK_VIEW } from './view.js'

/** What an id report says of a payment link: its customer, title and amount. */
export const LINK_REPORT = {
  columns: ['email', 'title', 'amount', 'currency'],
  describe: (link: Rec) => ({
    email: plain(link.email),
    title: plain(link.title),
    amount: plain(link.amount),
    currency: plain(link.currency),
  }),
}

/** `links delete`: ids from arguments, a file or stdin, confirmed, then deleted (bulk/by-id.ts). */
export async function deleteLinks(
  options: IdFlags & { ids: string[]; concurrency: number },
  context: RunContext,
): Promise<BulkOutcome> {
  const input = await idInput(options.ids, options, context.io, 'payment link')
  const { api, target } = await context.api()
  const deletion = {
    command: 'pay links delete',
    view: LINK_VIEW,
    remove: async (id: string) => {
      await api.send('deleteLink', { id })
    },
    gone: (id: string) => api.found('deleteLink', id, 'gone'),
    lookUp: { fetch: (id: string) => api.send('getLink', { id }), describe: describeLink, money: LINK_MONEY },
    ...LINK_REPORT,
  }
  return deleteMany(deletion, { ...input, concurrency: options.concurrency, ...workflowOf(context, target) })
}
