import { Flags } from '@oclif/core'
import { usageError } from '../../../errors.js'
import type { Env } from '../../../runtime/context.js'

/**
 * The sandbox's account (`sandbox start`): the e-mail and password a shop signs in with, as the
 * service's shop plugins do, and `pay login --email`. From `--account EMAIL:PASSWORD`, else
 * `PAY_SANDBOX_ACCOUNT`, else the `account` of the --seed fixtures, else the one the sandbox makes
 * for its directory.
 */

export const sandboxAccountFlags = {
  account: Flags.string({
    description:
      'The account a shop signs in with, EMAIL:PASSWORD (default: PAY_SANDBOX_ACCOUNT, else the --seed ' +
      "file's account, else one made for the sandbox directory). Other users of this machine can read it " +
      'in the process list: prefer PAY_SANDBOX_ACCOUNT.',
    helpValue: 'EMAIL:PASSWORD',
  }),
}

/** Said on stderr when the account comes from --account. */
export const ACCOUNT_FLAG_NOTE =
  '--account puts the password on the command line, where other users of this machine can read it (ps, /proc): ' +
  'give it in PAY_SANDBOX_ACCOUNT instead.'

/** `EMAIL:PASSWORD`: split at the first colon after the e-mail's `@` (a password may hold colons). */
export function parseAccount(text: string, from: string): { email: string; password: string } {
  const at = text.indexOf('@')
  const colon = at === -1 ? -1 : text.indexOf(':', at)
  const email = colon === -1 ? '' : text.slice(0, colon)
  const password = colon === -1 ? '' : text.slice(colon + 1)
  if (!/^[^\s@:]+@[^\s@:]+$/.test(email) || password === '') {
    throw usageError(
      `${from} must be EMAIL:PASSWORD, an e-mail address and a password of at least one character.`,
      'For example: merchant@example.com:a-password',
    )
  }
  return { email, password }
}

/** The account asked for: --account, else PAY_SANDBOX_ACCOUNT; undefined for the sandbox's own. */
export function sandboxAccount(
  flag: string | undefined,
  env: Env,
): { account?: { email: string; password: string }; note?: string } {
  if (flag !== undefined) return { account: parseAccount(flag, '--account'), note: ACCOUNT_FLAG_NOTE }
  const fromEnv = env.PAY_SANDBOX_ACCOUNT
  return fromEnv ? { account: parseAccount(fromEnv, 'PAY_SANDBOX_ACCOUNT') } : {}
}
