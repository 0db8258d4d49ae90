import path from 'node:path'
import { xdgDir } from './xdg.js'

/**
 * Where the sandbox keeps its store: `$PAY_SANDBOX_DIR`, else the XDG data dir. The caller hands
 * in the environment (the CLI its own; the sandbox is handed a directory and never looks).
 */
export function sandboxDir(env: NodeJS.ProcessEnv): string {
  if (env.PAY_SANDBOX_DIR) return path.resolve(env.PAY_SANDBOX_DIR)
  return xdgDir('data', env, 'pay', 'sandbox')
}
