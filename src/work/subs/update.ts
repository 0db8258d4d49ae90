import { usageError } from '../../errors.js'
import type { RunContext } from '../../runtime/context.js'
import type { Rec } from '../../values.js'
import type { FieldValues } from '../common/field-set.js'
import { SUBSCRIPTION_CHANGE_FIELDS } from './fields.js'

/** `subs update`: only the changes given are sent; the subscription after. */
export async function updateSubscription(
  options: { id: string; changes: FieldValues },
  context: RunContext,
): Promise<Rec> {
  const { changes } = options
  if (Object.keys(changes).length === 0)
    throw usageError('Nothing to change.', 'Give --email, --phone or --status.')
  SUBSCRIPTION_CHANGE_FIELDS.check(changes)
  const { api } = await context.api()
  return api.send('updateSubscription', { id: options.id, body: SUBSCRIPTION_CHANGE_FIELDS.body(changes) })
}
