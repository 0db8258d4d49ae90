import type { PayApi } from '../api/client.js'
import type { AccountCredentials, Credentials } from '../config/credentials.js'
import type { KeychainOptions } from '../config/keychain.js'
import type { BuiltInProfile } from '../config/profiles.js'
import type { Output } from '../render/output.js'
import type { Result } from '../render/result.js'
import type { Rec } from '../values.js'
import type { IO } from './io.js'

/**
 * The run context: what one invocation of pay works with, built once (src/runtime/run-context.ts)
 * and handed to the plain functions that do a command's work, `run(options, context)`, as gh
 * hands its Factory's parts to `closeRun(opts)`. Those functions read no global: the
 * environment, the terminal, the API client, the sandbox and the journal all come from here, so
 * a test (or `pay mcp`) calls them with a context of its own.
 */

/** The environment of the run, read once: nothing else reads process.env. */
export type Env = Readonly<Record<string, string | undefined>>

/** The credentials a command's requests went out with, to explain a refused key. */
export type SentWith = Credentials & { inProcess: boolean }

/** Where the command's requests go, for confirmations and messages. */
export interface Target {
  profile: string
  baseUrl: string
}

/**
 * Where a sandbox command acts (RunContext.sandboxTarget): a running sandbox, through its API,
 * or the local store in `dir`, with the key and address it would be reached at.
 */
export type SandboxTarget =
  | { server: true; api: PayApi; target: Target }
  | { server: false; dir: string; baseUrl: string; apiKey: string }

/** The API client of the selected profile, where it sends, and the built-in sandbox's packages when it is that. */
export interface Connected {
  api: PayApi
  target: Target
  /** The packages the built-in sandbox seeds for the profile's key (they derive from it); undefined for any other profile. */
  sandboxPackages?: Rec[]
  /** The profile is the built-in sandbox (at its own address or a --base-url): a sandbox of the user's answers. */
  sandbox: boolean
}

/**
 * The selected profile's account (`pay login --email`): a client whose requests carry its access
 * token (the account's endpoints take nothing else), where it sends, and what the profile chose
 * (its business, integration and signature key).
 */
export interface AccountConnected {
  api: PayApi
  target: Target
  account: AccountCredentials
}

/** How much of a list to fetch and show: --all, and --limit (30 by default on a terminal). */
export interface ListScope {
  all: boolean
  limit?: number
  limitGiven: boolean
  /** The command takes --all (`pay history` does not: it reads one file whole). */
  takesAll: boolean
}

/** --yes and --dry-run, as given. */
export interface Consent {
  yes: boolean
  dryRun: boolean
}

/**
 * One part of a run that works apart from the rest (a tool call of `pay mcp`): its own terminal
 * and output, list scope and consent, and the command its changes are journaled under.
 */
export interface RunPart {
  /** As the journal records it: `pay mcp links_delete`. */
  command: string
  io: IO
  out: Output
  listScope?: ListScope
  consent?: Consent
}

export interface RunContext {
  readonly env: Env
  readonly io: IO
  /** Prints in the output mode asked: table, TSV, --json, --jq, --jsonl, -q, --columns. */
  readonly out: Output
  /** The command as typed (`pay links create`): the journal's, and messages'. */
  readonly command: string
  /** The time now, in milliseconds since the epoch. */
  now(): number
  /** --profile, as given. */
  readonly profile?: string
  /** The built-in `sandbox` profile, at the port this environment gives it. */
  readonly builtIn: BuiltInProfile
  /** The system keychain's options: this environment, and the --debug trace. */
  readonly keychain: KeychainOptions
  readonly listScope: ListScope
  readonly consent: Consent
  /** pay's config directory ($PAY_CONFIG_DIR, else the XDG one). */
  readonly configDir: string
  /** The sandbox's directory ($PAY_SANDBOX_DIR, else the user's data dir). */
  readonly sandboxDir: string
  /** The journal of changes; undefined when PAY_JOURNAL=0. */
  readonly journalFile?: string
  /**
   * The API client of the selected profile, built on first use and kept for the run: the
   * credentials, the sandbox's proof or the in-process sandbox, the journal.
   */
  api(): Promise<Connected>
  /** The selected profile's account, made on first use and kept for the run (AccountConnected). */
  account(): Promise<AccountConnected>
  /** A client for this base URL and key (login's check): the run's timeout and trace, no journal. */
  client(baseUrl: string, apiKey: string): PayApi
  /**
   * Where a sandbox command acts: a running sandbox that proved it is the user's own, else, for
   * the built-in profile, the local store; any other base URL without one is an error.
   */
  sandboxTarget(): Promise<SandboxTarget>
  /**
   * For a command that hands out a customer page (`links open`, `links qr`): says on stderr,
   * once, that nothing serves it when the sandbox ran inside this command.
   */
  warnIfPageUnserved(url: string): void
  /** Prints what was produced so far, for a command that goes on running (`sandbox start`). */
  show(result: Result): Promise<void>
  /**
   * A context for one part of this run (RunPart): the same profile, credentials, sandbox and
   * journal file, its own IO, output, scope and consent; its changes journaled under its command.
   */
  within(part: RunPart): RunContext
}

/** What a bulk workflow (src/bulk) takes of the run: where it sends, consent, the screen. */
export const workflowOf = (context: RunContext, target: Target) => ({
  target,
  consent: context.consent,
  out: context.out,
  io: context.io,
})
