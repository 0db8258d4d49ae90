import type { RunContext } from '../../../runtime/context.js'
import { sandboxPackages } from '../../../runtime/sandbox/packages.js'
import type { Rec } from '../../../values.js'
import { sandboxKeys } from './keys.js'

/**
 * `pay sandbox packages`: the packages a sandbox serving these keys seeds, the keys taken as
 * `sandbox start` takes them (keys.ts: given none, the sandbox directory's own key, made if it has
 * none yet); no server is started or asked. `keyNote`: what to say of
 * keys given with --key (the process list shows them).
 */
export function listSandboxPackages(
  options: { key?: string[]; keyFile?: string },
  context: Pick<RunContext, 'env' | 'sandboxDir'>,
): { packages: Rec[]; keyNote?: string } {
  const flags = { key: options.key, 'key-file': options.keyFile }
  const { keys, note } = sandboxKeys(flags, context.env, context.sandboxDir)
  return { packages: sandboxPackages(keys), ...(note ? { keyNote: note } : {}) }
}
