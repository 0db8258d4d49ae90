/** `pay businesses list` (and `pay mcp`'s businesses_list): the account's approved businesses. */
import type { RunContext } from '../../runtime/context.js'
import type { Rec } from '../../values.js'
import { accountSend } from './send.js'
import { shownBusiness } from './view.js'

/** The businesses of the profile's account, each with its integration, the profile's marked `chosen`. */
export async function listBusinesses(context: Pick<RunContext, 'account'>): Promise<Rec[]> {
  const { answer, connected } = await accountSend('approvedBusinesses', {}, context)
  return answer.map((business) => shownBusiness(business, connected.account.businessId))
}
