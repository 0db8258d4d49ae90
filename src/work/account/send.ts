/**
 * A request to an endpoint of the account's (`pay businesses`, `pay webhooks`, `pay mcp`'s tools of
 * them): with the access token `pay login --email` kept, to the profile's integration (its business
 * and integration in the path). A token the service refuses (it lasts days, and is never renewed)
 * is said as such, with how to sign in again.
 */
import type { AnswerOf, Call } from '../../api/client.js'
import { signInAgain } from '../../config/credentials.js'
import { PayError } from '../../errors.js'
import type { AccountConnected, RunContext } from '../../runtime/context.js'
import { ENDPOINTS, type EndpointName, paramsOf } from '../../shared/endpoints.js'

/** The path's parameters of the profile's integration: its business and integration. */
function integrationOf({ account }: AccountConnected): Record<string, string> {
  const { businessId, integrationId, profile } = account
  if (businessId === undefined || integrationId === undefined) {
    throw new PayError(`Profile "${profile}" has no business chosen.`, {
      kind: 'usage',
      hint: `Run \`pay login --email ${account.email ?? 'EMAIL'} -p ${profile} --business ID\` to choose one.`,
    })
  }
  return { business: businessId, integration: integrationId }
}

/** A refused access token, said with how to sign in again; other errors as they are. */
export function refusedToken(error: unknown, { account }: AccountConnected): unknown {
  if (!(error instanceof PayError) || error.kind !== 'auth') return error
  return new PayError(
    `${account.baseUrl} refused the access token of profile "${account.profile}" (${error.status ?? 'refused'}): it has expired or was revoked.`,
    { kind: 'auth', status: error.status, hint: signInAgain(account.profile, account.email) },
  )
}

/** One request to endpoint `name` of the account's, for the profile's integration where its path names one. */
export async function accountSend<N extends EndpointName>(
  name: N,
  call: Omit<Call, 'params'>,
  context: Pick<RunContext, 'account'>,
): Promise<{ answer: AnswerOf<(typeof ENDPOINTS)[N]>; connected: AccountConnected }> {
  const connected = await context.account()
  const params = paramsOf(ENDPOINTS[name]).length > 0 ? integrationOf(connected) : undefined
  try {
    const answer = (await connected.api.send(name, { ...call, params })) as AnswerOf<(typeof ENDPOINTS)[N]>
    return { answer, connected }
  } catch (error) {
    throw refusedToken(error, connected)
  }
}
