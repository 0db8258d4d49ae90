import type { RunContext } from '../../runtime/context.js'
import type { Rec } from '../../values.js'
import { chargesOf } from './charges.js'

/** `subs get`: the subscription, and its charges (date, amount, paid, link id). */
export async function showSubscription(
  options: { id: string },
  context: RunContext,
): Promise<{ subscription: Rec; charges: Rec[] }> {
  const { api } = await context.api()
  const subscription = await api.send('getSubscription', { id: options.id })
  return { subscription, charges: chargesOf(subscription) }
}
