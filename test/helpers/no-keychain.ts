import { NO_KEYCHAIN_ENV } from './cli.js'

/**
 * Set up in every test worker (vitest.config.ts): what runs in the worker itself, or inherits its
 * environment, reaches no system keychain either (test/helpers/cli.ts says how).
 */
Object.assign(process.env, NO_KEYCHAIN_ENV)
if (process.platform === 'linux') delete process.env.XDG_RUNTIME_DIR
