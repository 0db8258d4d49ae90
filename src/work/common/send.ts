import type { AnswerOf, Call } from '../../api/client.js'
import type { RunContext } from '../../runtime/context.js'
import type { ENDPOINTS, EndpointName } from '../../shared/endpoints.js'

/**
 * The whole work of a command that sends one request to an endpoint of the table and shows what
 * it answers (`links get ID`, a new `links refund ID`): the command names the endpoint and the
 * call, and needs no function of its own here or in the client. What the endpoint answered.
 */
export async function sendTo<N extends EndpointName>(
  name: N,
  call: Call,
  context: RunContext,
): Promise<AnswerOf<(typeof ENDPOINTS)[N]>> {
  const { api } = await context.api()
  return api.send(name, call) as Promise<AnswerOf<(typeof ENDPOINTS)[N]>>
}
