/**
 * Where a sandbox command acts (RunContext.sandboxTarget): a running sandbox that proved it is the
 * user's, through its API, or the local store of $PAY_SANDBOX_DIR; and how its messages name it.
 */
import type { PayApi } from '../../api/client.js'
import { PayError } from '../../errors.js'
import type { RunContext, SandboxTarget, Target } from '../../runtime/context.js'

/** What the work of most sandbox commands takes of the run: where the sandbox is. */
export type SandboxContext = Pick<RunContext, 'sandboxTarget'>

/** A context whose sandbox is `where` (`pay mcp`'s sandbox tools act on the sandbox their profile reaches). */
export const sandboxAt = (where: SandboxTarget): SandboxContext => ({ sandboxTarget: async () => where })

/**
 * The running sandbox a command acts through. Faults, the requests sent and a listener live in a
 * running server's memory: with none, there is nothing to act on (exit 6).
 */
export function runningSandbox(where: SandboxTarget, command: string): { api: PayApi; target: Target } {
  if (where.server) return where
  throw new PayError(`No sandbox of yours is running at ${where.baseUrl}.`, {
    kind: 'unavailable',
    hint:
      `\`pay ${command}\` acts on a running sandbox: start one with \`pay sandbox start\` ` +
      '(or point at yours with --base-url or PAY_SANDBOX_PORT).',
  })
}

/**
 * Where it was done, for the message: `the sandbox at URL`, or `the local sandbox store DIR`, with
 * why (`no sandbox is running at URL`) when `why`.
 */
export function placeOf(where: SandboxTarget, why = false): string {
  if (where.server) return `the sandbox at ${where.target.baseUrl}`
  const local = `the local sandbox store ${where.dir}`
  return why ? `${local} (no sandbox is running at ${where.baseUrl})` : local
}
