import os from 'node:os'
import path from 'node:path'

/** The well-known key of the sandbox's default business. It unlocks nothing but the local sandbox. */
export const SANDBOX_KEY = 'sk_sandbox_4f3c9a1b7e2d5f8a0c6b9e1d'

export const DEFAULT_SANDBOX_PORT = 4010

/** Where the sandbox keeps its store: `$PAY_SANDBOX_DIR`, else the XDG data dir. */
export function sandboxDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PAY_SANDBOX_DIR) return path.resolve(env.PAY_SANDBOX_DIR)
  // The XDG spec says to ignore a relative XDG_DATA_HOME.
  const dataHome =
    env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME)
      ? env.XDG_DATA_HOME
      : path.join(env.HOME || os.homedir(), '.local', 'share')
  return path.join(dataHome, 'pay', 'sandbox')
}

/** What the customer may do on a payment page in test mode (outcomes.ts). */
export const OUTCOMES = ['paid', 'cancelled', 'failed'] as const
export type Outcome = (typeof OUTCOMES)[number]
