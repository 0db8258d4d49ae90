import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { PayError } from '../errors.js'

/**
 * The confirmations of `pay mcp`'s delete and cancel tools. The first call answers a plan and a
 * `confirm` string: an HMAC, keyed with a secret this server made at start and never shows, over
 * the tool, its arguments (in one canonical form), a nonce and an expiry. Only a second call with
 * the very same arguments and that string acts, once: other ids or any changed argument, a
 * string this server did not make (or made before a restart), an expired or a used one is
 * refused. A refused attempt does not use it up; acting does.
 */

/** How long a plan may be confirmed. */
export const CONFIRM_TTL_MS = 10 * 60 * 1000

/** The arguments in one form whatever the order of their keys: a confirmation binds their meaning. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

const refused = (message: string) =>
  new PayError(message, {
    kind: 'usage',
    hint: 'Call the tool again without confirm to get a new plan and its confirm string.',
  })

export class Confirmations {
  private readonly secret = randomBytes(32)
  /** Nonces acted on, with their expiry (kept until then: after it, the expiry refuses them). */
  private readonly used = new Map<string, number>()

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = CONFIRM_TTL_MS,
  ) {}

  /** A confirmation of `tool` called with `args` (without confirm), and when it expires. */
  issue(tool: string, args: Record<string, unknown>): { confirm: string; expiresAt: string } {
    const nonce = randomBytes(12).toString('base64url')
    const expires = this.now() + this.ttlMs
    return {
      confirm: `${nonce}.${expires}.${this.mac(tool, args, nonce, expires)}`,
      expiresAt: new Date(expires).toISOString(),
    }
  }

  /**
   * Checks that `confirm` was made by this server for `tool` with exactly `args`, and is neither
   * expired nor used; throws a usage error saying which, and uses nothing up.
   */
  check(tool: string, args: Record<string, unknown>, confirm: string): void {
    const [nonce, expiresText, mac, ...rest] = confirm.split('.')
    const expires = Number(expiresText)
    if (rest.length > 0 || !nonce || !mac || !/^\d+$/.test(expiresText ?? '')) {
      throw refused('This confirm string was not made by this server.')
    }
    const expected = Buffer.from(this.mac(tool, args, nonce, expires))
    const given = Buffer.from(mac)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw refused(
        `This confirm string is not for these arguments: it confirms a plan of ${tool} with other ids or ` +
          'other arguments (or one made by another run of pay mcp). Nothing was done.',
      )
    }
    if (this.used.has(nonce))
      throw refused('This confirm string was used already: it confirms one action. Nothing was done.')
    if (this.now() > expires) throw refused('This confirm string has expired. Nothing was done.')
  }

  /** Uses a checked confirmation up: it acts once. */
  use(confirm: string): void {
    const now = this.now()
    for (const [nonce, expires] of this.used) if (expires < now) this.used.delete(nonce)
    const [nonce, expires] = confirm.split('.')
    this.used.set(nonce, Number(expires))
  }

  private mac(tool: string, args: Record<string, unknown>, nonce: string, expires: number): string {
    return createHmac('sha256', this.secret)
      .update(canonical([tool, args, nonce, expires]))
      .digest('base64url')
  }
}
