import type { RunContext } from '../../../runtime/context.js'
import { sandboxPackages } from '../../../runtime/sandbox/packages.js'
import type { Rec } from '../../../values.js'
import { sandboxKeys } from './keys.js'

/**
 * `pay sandbox packages`: the packages a sandbox seeds for a business; no server is started or
 * asked. The keys: --key and --key-file; else the key every other sandbox command acts with when
 * something chose it (PAY_API_KEY, a profile's); else as `sandbox start` takes them (keys.ts:
 * PAY_SANDBOX_KEYS, else the sandbox directory's own key, made if it has none yet).
 * `keyNote`: what to say of keys given with --key (the process list shows them).
 */
export async function listSandboxPackages(
  options: { key?: string[]; keyFile?: string },
  context: Pick<RunContext, 'env' | 'sandboxDir' | 'sandboxKey'>,
): Promise<{ packages: Rec[]; keyNote?: string }> {
  const flags = { key: options.key, 'key-file': options.keyFile }
  const given = Boolean(options.key?.length) || options.keyFile !== undefined
  const chosen = given ? undefined : await context.sandboxKey()
  const { keys, note } = chosen
    ? { keys: [chosen], note: undefined }
    : sandboxKeys(flags, context.env, context.sandboxDir)
  return { packages: sandboxPackages(keys), ...(note ? { keyNote: note } : {}) }
}
