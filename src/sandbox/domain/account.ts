/**
 * The sandbox's account: the e-mail and password a shop signs in with (`POST /auth/sign-in`, as the
 * service's official shop plugins do: docs/choices.md), whose businesses are the sandbox's (one per
 * API key), and the access tokens a sign-in gives. A token is no API key and opens none of the
 * API's routes; it opens the account's (its businesses, their integrations' webhook events).
 *
 * Tokens are signed, not stored: an HMAC, under the secret of the sandbox's directory, of when the
 * token ends and of the account it was given for. Every sandbox of the directory (a running one,
 * or the one `pay -p sandbox` starts in its own process) takes the tokens of the others; a token of
 * another account (another `--account`), of another directory, or past its end is refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { sha256Hex } from '../../shared/crypto.js'
import { type Business, businessOf } from './business.js'

export interface Account {
  email: string
  password: string
}

/** How long an access token opens the account's routes, in sandbox time. */
export const ACCESS_TOKEN_DAYS = 7
const DAY_MS = 24 * 60 * 60 * 1000

const TOKEN = /^sat_([0-9a-z]{1,12})_([0-9a-f]{64})$/

const macOf = (secret: Buffer, account: Account, until: string) =>
  createHmac('sha256', secret)
    .update(`pay-sandbox-access-token\n${until}\n${sha256Hex(`${account.email}\n${account.password}`)}`)
    .digest('hex')

/**
 * The account of a sandbox directory when none is given: made from the directory's secret, so the
 * same for every sandbox of the directory and never written anywhere else.
 */
export function accountOfSecret(secret: Buffer): Account {
  const part = (label: string, length: number) =>
    createHmac('sha256', secret).update(`pay-sandbox-account\n${label}`).digest('hex').slice(0, length)
  return { email: `merchant-${part('email', 8)}@sandbox.pay.example`, password: part('password', 24) }
}

/** An access token for `account`, good for ACCESS_TOKEN_DAYS from `now` (sandbox time). */
export function newAccessToken(secret: Buffer, account: Account, now: number): string {
  const until = (now + ACCESS_TOKEN_DAYS * DAY_MS).toString(36)
  return `sat_${until}_${macOf(secret, account, until)}`
}

/** Whether `token` is one of `account`'s, and not past its end at `now` (sandbox time). */
export function isAccessToken(secret: Buffer, account: Account, token: string, now: number): boolean {
  const match = TOKEN.exec(token)
  if (!match) return false
  const [, until, mac] = match
  const expected = Buffer.from(macOf(secret, account, until), 'hex')
  if (!timingSafeEqual(expected, Buffer.from(mac, 'hex'))) return false
  return Number.parseInt(until, 36) > now
}

/** Whether an e-mail and a password are the account's: the e-mail in any case, the password exactly. */
export function signsIn(account: Account, email: string, password: string): boolean {
  const same = (a: string, b: string) => {
    const x = Buffer.from(sha256Hex(a), 'hex')
    const y = Buffer.from(sha256Hex(b), 'hex')
    return timingSafeEqual(x, y)
  }
  // Both compared, always: the answer takes as long whichever is wrong.
  const emailSame = same(account.email.toLowerCase(), email.toLowerCase())
  const passwordSame = same(account.password, password)
  return emailSame && passwordSame
}

/** A business of the account: the sandbox's business of one API key, with its key. */
export interface AccountBusiness extends Business {
  key: string
  /** The id of its one integration (the service's plugins name it in their webhook-event paths). */
  integrationId: string
  /** Its name, as the business picker shows it. */
  name: string
}

/** The account's businesses: one per API key of the sandbox, in the order of the keys. */
export function accountBusinesses(keys: readonly string[]): AccountBusiness[] {
  return keys.map((key, i) => {
    const business = businessOf(key)
    return {
      ...business,
      key,
      integrationId: sha256Hex(`pay-sandbox-integration:${business.businessId}`).slice(0, 24),
      name: keys.length === 1 ? 'Sandbox business' : `Sandbox business ${i + 1}`,
    }
  })
}
