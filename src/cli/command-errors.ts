import { Errors } from '@oclif/core'
import { asPayError, PayError, usageError } from '../errors.js'
import type { SentWith } from '../runtime/context.js'
import { globalFlags } from './flags.js'
import { closest } from './suggest.js'

/**
 * Errors through one place: whatever a command threw, as the PayError the base command prints
 * (render/error-text.ts) and exits with; and what the command line says that it cannot mean.
 */

const SANDBOX_KEYS_HINT =
  'The sandbox running there was started with its own keys (--key, --key-file or PAY_SANDBOX_KEYS): ' +
  "send one of them with PAY_API_KEY, or restart it without any to serve its directory's own key."

/** A key the service refused (401/403): which profile's key, sent where, and the way out. */
export function explainRefusedKey(error: PayError, sent: SentWith | undefined): PayError {
  if (error.kind !== 'auth' || error.status === undefined || !sent) return error
  const fromEnv = sent.keyFromEnv || sent.profile === undefined
  const whose = fromEnv ? 'the key in PAY_API_KEY' : `the key of profile "${sent.profile}"`
  let hint: string
  if (fromEnv) hint = "Check PAY_API_KEY (it overrides any profile's key)."
  else if (sent.builtIn)
    hint = sent.inProcess ? 'The built-in sandbox accepts its own key only.' : SANDBOX_KEYS_HINT
  // The built-in profile at a --base-url: a sandbox of other keys (it cannot be logged into).
  else if (sent.sandbox) hint = SANDBOX_KEYS_HINT
  else hint = `Run \`pay login -p ${sent.profile}\` to store a key this service accepts.`
  // The built-in profile's own address, not the in-process sandbox's port.
  const base = sent.baseUrl
  // pay's own wording of a bare 401/403 ends in "(401)."; the service's own words are kept.
  const said = /\((401|403)\)\.$/.test(error.message) ? '' : `: ${error.message}`
  const message =
    error.status === 403
      ? `${base} does not allow ${whose} to do this (403${said})`
      : `${base} did not accept ${whose} (${error.status}${said})`
  return new PayError(message, { kind: 'auth', status: error.status, hint })
}

/**
 * An error whose hint says to run again with a flag the run was given (`Run again with --debug
 * to see the exchange.` under --debug, whose trace is above it): the same error without it.
 */
export function withoutHintGiven(error: PayError, argv: string[]): PayError {
  const flag = /^Run again with (--[a-z-]+)\b/.exec(error.hint ?? '')?.[1]
  if (!flag || !argv.includes(flag)) return error
  const { kind, status, errors, idempotencyKey, unsent } = error
  return new PayError(error.message, { kind, status, errors, idempotencyKey, unsent, cause: error.cause })
}

/** Errors are printed as JSON with --json, and with --jq, which implies it (also before the parse). */
export function wantsJsonErrors(argv: string[]): boolean {
  return argv.some((arg) => arg === '--json' || arg === '--jq' || arg.startsWith('--jq='))
}

/**
 * `--paid --no-paid` (any flag and its negation) says two opposite things: refused, rather than
 * the last one silently winning.
 */
export function refuseContradictions(raw: { type: string; flag?: string; input?: string }[]): void {
  const said = new Map<string, Set<string>>()
  for (const token of raw) {
    if (token.type !== 'flag' || !token.flag) continue
    // A boolean flag's token is the flag as typed; an option flag's is its value.
    const negated = token.input === `--no-${token.flag}`
    if (!negated && token.input !== `--${token.flag}`) continue
    const forms = said.get(token.flag) ?? new Set<string>()
    forms.add(negated ? 'no' : 'yes')
    said.set(token.flag, forms)
    if (forms.size === 2) {
      throw usageError(`--${token.flag} and --no-${token.flag} cannot be given together.`)
    }
  }
}

/**
 * Any error as a PayError: oclif's parse errors are usage errors (a mistyped flag, or a mistyped
 * value of a flag that takes one of a list, with what it most likely meant), a cancelled prompt is 130.
 */
export function toPayError(error: Error, commandId?: string, flags: string[] = []): PayError {
  let help = `See \`pay ${commandId?.replace(/:/g, ' ') ?? ''} --help\`.`
  const unknown = (error as { flags?: unknown }).flags
  if (
    /^Nonexistent flags?: /.test(error.message ?? '') &&
    Array.isArray(unknown) &&
    typeof unknown[0] === 'string'
  ) {
    const short = /^-([^-])$/.exec(unknown[0])?.[1]
    if (short) {
      // A one-letter flag is not a typo of a long one (-p is not --jq): it is a flag of pay's that
      // this command does not take, or none at all.
      const known = Object.entries(globalFlags).find(([, flag]) => 'char' in flag && flag.char === short)
      if (known)
        help = `\`pay ${commandId?.replace(/:/g, ' ') ?? ''}\` takes no --${known[0]} (-${short}). ${help}`
    } else {
      const guess = closest(unknown[0].replace(/^-+/, '').replace(/=.*$/, ''), flags)
      if (guess) help = `Did you mean --${guess}? ${help}`
    }
  }
  const notAnOption = /^Expected --([\w-]+)=(.*) to be one of: (.+)$/m.exec(error.message ?? '')
  if (notAnOption) {
    const guess = closest(notAnOption[2], notAnOption[3].split(', '))
    if (guess) help = `Did you mean --${notAnOption[1]}=${guess}? ${help}`
  }
  const flagParse = /^Parsing --(\S+) \n\t([\s\S]*?)\nSee more help with --help$/.exec(error.message ?? '')
  if (flagParse) return new PayError(`--${flagParse[1]}: ${flagParse[2]}`, { kind: 'usage', hint: help })
  if (error instanceof Errors.CLIError && (error as Errors.CLIError).oclif?.exit === 2) {
    // oclif's note on flags that take many values does not hold for pay's (one value each).
    const message = error.message
      .replace(/\nSee more help with --help$/, '')
      .replace(/\n+Note: [^\n]* allow multiple values\.[\s\S]*beginning of arguments\.$/, '')
    return new PayError(message, {
      kind: 'usage',
      hint: help,
    })
  }
  return asPayError(error)
}
