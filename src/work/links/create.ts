import type { RunContext } from '../../runtime/context.js'
import type { Rec } from '../../values.js'
import type { FieldValues } from '../common/field-set.js'
import { checkAmountDigits, LINK_FIELDS } from './fields.js'

/**
 * `links create`: the fields given, the required ones asked for on a terminal, then the link
 * created; the link as the service answered it.
 */
export async function createLink(
  options: { fields: FieldValues; idempotencyKey?: string },
  context: RunContext,
): Promise<Rec> {
  const fields = { ...options.fields }
  LINK_FIELDS.check(fields)
  // On a terminal, a missing key or a refused base URL is reported before any question.
  if (context.io.canPrompt) await context.api()
  await LINK_FIELDS.fillMissing(fields, context.io)
  checkAmountDigits(fields)
  const { api } = await context.api()
  return api.send('createLink', { body: LINK_FIELDS.body(fields), idempotencyKey: options.idempotencyKey })
}
