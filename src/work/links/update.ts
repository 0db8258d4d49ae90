import { confirmRisk } from '../../bulk/consent.js'
import { usageError } from '../../errors.js'
import { formatAmount } from '../../render/format.js'
import type { RunContext } from '../../runtime/context.js'
import type { Rec } from '../../values.js'
import type { FieldValues } from '../common/field-set.js'
import { checkAmountDigits, checkCurrencyChange, LINK_FIELDS, mergeLinkUpdate } from './fields.js'

/**
 * `links update`: the link fetched, the changes merged in, the whole link sent back (PUT needs
 * every required field); a paid link only once confirmed. The link after.
 */
export async function updateLink(
  options: { id: string; changes: FieldValues },
  context: RunContext,
): Promise<Rec> {
  const { id, changes } = options
  if (Object.keys(changes).length === 0) {
    throw usageError('Nothing to change.', `Give at least one of ${LINK_FIELDS.flagNames.join(', ')}.`)
  }
  LINK_FIELDS.check(changes)
  const { api } = await context.api()
  const current = await api.send('getLink', { id })
  const body = mergeLinkUpdate(current, changes)
  checkCurrencyChange(body, changes)
  if (changes.amount !== undefined || changes.currency !== undefined) checkAmountDigits(body)
  if (current.paid === true) {
    const paid = formatAmount(current.amount, current.currency)
    const warning = `Payment link ${id} is already paid (${paid}); changing it does not change what the customer paid.`
    const { consent, out, io } = context
    await confirmRisk(warning, 'Change the paid link anyway?', 'change', consent, out, io)
  }
  return api.send('updateLink', { id, body })
}
