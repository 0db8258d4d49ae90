import type { Reply } from '../domain/answers.js'
import type { ServedRequest } from './context.js'
import { CHALLENGE, endpointOf, proofOf } from './proof.js'

/**
 * `GET /_sandbox/health[?challenge=…]`: says a pay sandbox answers here, with no key and without
 * opening the store. A client's challenge is answered with a proof that this sandbox holds its
 * directory's secret, bound to the address and port the connection reached (proof.ts).
 */
export function health({ query, request, secret }: ServedRequest): Reply {
  const challenge = query.get('challenge')
  if (challenge === null || !CHALLENGE.test(challenge))
    return { status: 200, body: { service: 'pay-sandbox' } }
  const { localAddress, localPort } = request.socket
  const proof = proofOf(secret, challenge, endpointOf(localAddress, localPort))
  return { status: 200, body: { service: 'pay-sandbox', proof } }
}
