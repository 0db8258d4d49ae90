import type { Call } from '../../api/client.js'
import { type Result, shown } from '../../render/result.js'
import type { View } from '../../render/views.js'
import type { RunContext } from '../../runtime/context.js'
import type { Endpoint } from '../../shared/endpoints.js'
import { LINK_VIEW } from '../links/links.js'
import { SUBSCRIPTION_VIEW } from '../subs/subscriptions.js'
import { TOKEN_VIEW } from '../token/create.js'

/** How each resource is shown, by its noun in the endpoint declarations (src/shared/endpoints.ts). */
const VIEWS: Readonly<Record<string, View>> = {
  'payment link': LINK_VIEW,
  subscription: SUBSCRIPTION_VIEW,
  token: TOKEN_VIEW,
}

/**
 * The whole work of a command that sends one request to a declared endpoint and shows the record
 * it answers, in its resource's view (`links get ID`, a new `links refund ID`): the command names
 * the endpoint and the call, and needs no function of its own here or in the client.
 */
export async function sendForRecord(endpoint: Endpoint, call: Call, context: RunContext): Promise<Result> {
  const view = VIEWS[endpoint.noun]
  if (!view) throw new Error(`No view for ${endpoint.noun}: add it to VIEWS (src/work/common/send.ts).`)
  const { api } = await context.api()
  return shown.record(await api.send(endpoint, call), view)
}
