import { freshConfigDir } from './config-files.js'
import type { InProcessOptions, InProcessResult } from './in-process.js'
import { runInProcess } from './in-process.js'
import { KEY_A, KEY_B, startTestSandbox, type TestSandbox } from './sandbox.js'

/**
 * A sandbox and a profile signed in to its account (`pay login --email`), for the commands of the
 * account's endpoints (`pay businesses`, `pay webhooks`): the sandbox's account (the one made for
 * its directory), a config directory of the test's own, and a run of pay with both.
 */
export interface AccountSandbox {
  t: TestSandbox
  account: { email: string; password: string }
  /** PAY_CONFIG_DIR of the profile. */
  configDir: string
  /** The environment of a run: the config directory, no PAY_API_KEY. */
  env: Record<string, string>
  /** `pay ARGS` in this process with that environment (stdin `input`). */
  pay(args: string[], options?: Omit<InProcessOptions, 'env'>): Promise<InProcessResult>
  /** `pay login --email … -p shop --password-stdin --base-url <sandbox><base>` and more `args`. */
  signIn(options?: { profile?: string; base?: string; args?: string[] }): Promise<InProcessResult>
  close(): Promise<void>
}

/** A sandbox of two businesses (KEY_A's, KEY_B's: the account's), its account, and a fresh config directory. */
export async function startAccountSandbox(keys: string[] = [KEY_A, KEY_B]): Promise<AccountSandbox> {
  const t = await startTestSandbox({ keys })
  const account = t.sandbox.account
  const configDir = freshConfigDir()
  const env = { PAY_CONFIG_DIR: configDir, PAY_SANDBOX_DIR: t.dir }
  const pay: AccountSandbox['pay'] = (args, options = {}) =>
    runInProcess(args, { input: '', ...options, env })
  return {
    t,
    account,
    configDir,
    env,
    pay,
    signIn: ({ profile = 'shop', base = '/api', args = [] } = {}) =>
      pay(
        [
          'login',
          '--email',
          account.email,
          '--password-stdin',
          '-p',
          profile,
          '--base-url',
          `${t.baseUrl}${base}`,
          '--business',
          String(t.sandbox.packages[t.key][0].business_id),
          ...args,
        ],
        { input: `${account.password}\n` },
      ),
    close: () => t.close(),
  }
}
