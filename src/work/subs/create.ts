import type { RunContext } from '../../runtime/context.js'
import type { Rec } from '../../values.js'
import type { FieldValues } from '../common/field-set.js'
import { packageChoice, SUBSCRIPTION_FIELDS } from './fields.js'

/**
 * `subs create`: on a terminal the missing fields are asked for (with the sandbox, its packages
 * offered); the subscription as the service answered it.
 */
export async function createSubscription(
  options: { fields: FieldValues; idempotencyKey?: string },
  context: RunContext,
): Promise<Rec> {
  const fields = { ...options.fields }
  SUBSCRIPTION_FIELDS.check(fields)
  // On a terminal, a missing key or a refused base URL is reported before any question.
  const early = context.io.canPrompt ? await context.api() : undefined
  // With the sandbox profile, its seeded packages are the choices: no id to look up.
  const offered = early?.sandboxPackages?.map(packageChoice)
  await SUBSCRIPTION_FIELDS.fillMissing(fields, context.io, { choices: { package_id: offered ?? [] } })
  const { api } = await context.api()
  return api.send('createSubscription', {
    body: SUBSCRIPTION_FIELDS.body(fields),
    idempotencyKey: options.idempotencyKey,
  })
}
