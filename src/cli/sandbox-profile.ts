import type { BuiltInProfile } from '../config/profiles.js'
import { DEFAULT_SANDBOX_PORT, SANDBOX_KEY } from '../sandbox/constants.js'

/** The built-in profile `sandbox`: the well-known key, at the sandbox's port on loopback. */
export function sandboxProfile(env: NodeJS.ProcessEnv = process.env): BuiltInProfile {
  return {
    name: 'sandbox',
    apiKey: SANDBOX_KEY,
    baseUrl: `http://127.0.0.1:${env.PAY_SANDBOX_PORT || DEFAULT_SANDBOX_PORT}`,
  }
}
