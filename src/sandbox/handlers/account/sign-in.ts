/**
 * `POST /auth/sign-in {email, password}`: the sandbox's account signs in, as the service's shop
 * plugins sign in (docs/choices.md), and gets an access token (`data.token`), which opens the
 * account's routes (integration.ts) and none of the API's. A wrong e-mail or password is Laravel's
 * 422 of a failed login, on the e-mail: the plugins show `errors.<first field>[0]`.
 */

import { newAccessToken, signsIn } from '../../domain/account.js'
import { invalid, type Reply, success } from '../../domain/answers.js'
import type { CheckedAccountContext } from '../context.js'

/** Laravel's words for a login that does not match (auth.failed). */
export const SIGN_IN_FAILED = 'These credentials do not match our records.'

export function signIn({ account, secret, input, now }: CheckedAccountContext<'signIn'>): Reply {
  if (!signsIn(account, input.email, input.password)) throw invalid({ email: [SIGN_IN_FAILED] })
  return success({ token: newAccessToken(secret, account, now) }, now)
}
