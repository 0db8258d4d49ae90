/**
 * `pay webhooks verify` (and `pay mcp`'s webhooks_verify): a notification an app received, checked
 * with the profile's signature key (`pay login --email` keeps it) by the one check of a
 * notification, src/shared/webhook-signature.ts (the sandbox signs with it, its library and `pay
 * sandbox listen` check with it): exactly the documented keys in order (a key missing is named),
 * each value's form, and the hash. Nothing is sent.
 */
import fs from 'node:fs'
import { resolveAccount } from '../../config/credentials.js'
import { PayError, usageError } from '../../errors.js'
import type { RunContext } from '../../runtime/context.js'
import { webhookProblem } from '../../shared/webhook-signature.js'
import { plain, type Rec } from '../../values.js'

/** What a notification that holds says of the payment. */
export interface Verified {
  valid: true
  profile: string
  event: unknown
  data: Rec
}

/** The notification's text: the file, or stdin (`-` too); a terminal's stdin is refused (nothing to read). */
async function bodyOf(file: string | undefined, context: Pick<RunContext, 'io'>): Promise<string> {
  if (file !== undefined && file !== '-') {
    try {
      return fs.readFileSync(file, 'utf8')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw usageError(`--file: cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code}.`)
    }
  }
  if (context.io.stdinIsTerminal)
    throw usageError(
      'No notification given.',
      'Give it with --file FILE, or pipe it in: pay webhooks verify < body.json',
    )
  return context.io.readStdin()
}

/** Checks the notification in `file` (or stdin) with the profile's signature key: what it says, or exit 3 saying why not. */
export async function verifyNotification(
  { file, text }: { file?: string; text?: string },
  context: Pick<RunContext, 'io' | 'env' | 'profile' | 'builtIn' | 'keychain'>,
): Promise<Verified> {
  const account = await resolveAccount({
    profile: context.profile,
    builtIn: context.builtIn,
    env: context.env,
    keychain: context.keychain,
    token: false,
  })
  const body = text ?? (await bodyOf(file, context))
  const problem = webhookProblem(body, account.signatureKey)
  if (problem !== undefined) {
    throw new PayError(`The notification does not hold: ${problem}.`, {
      kind: 'validation',
      hint:
        account.signatureKey === undefined
          ? `Profile "${account.profile}" keeps no signature key: sign in with \`pay login --email\` to keep one.`
          : undefined,
    })
  }
  const parsed = JSON.parse(body) as { event?: unknown; data: Rec }
  const { hash: _hash, ...data } = parsed.data
  return { valid: true, profile: account.profile, event: parsed.event, data }
}

/** What a notification that holds says: `Signed with profile "shop"'s key: payment 1 (paid) of link L, 2550 MYR cents.` */
export function verifiedText({ profile, data }: Verified): string {
  const status = { 1: 'paid', 2: 'pending' }[Number(data.payment_status)] ?? 'failed'
  return (
    `The notification holds: signed with profile "${profile}"'s signature key. ` +
    `Attempt ${plain(data.attempt_id)}, ${status} (payment_status ${plain(data.payment_status)}), of payment link ` +
    `${plain(data.payment_link_id)} (reference ${JSON.stringify(plain(data.payment_link_reference))}), ` +
    `${plain(data.payment_amount)} cents ${plain(data.payment_currency)}.`
  )
}
