import { expect } from 'vitest'
import type { Runner } from './cli.js'
import { readStore } from './sandbox.js'

/**
 * Links in the local sandbox store ($PAY_SANDBOX_DIR, the built-in profile with no server at its
 * address), for the `sandbox pay` and `sandbox reset` tests.
 */

/** The fields of the link those tests make. */
export const LINK = Object.freeze({
  email: 'jane@example.com',
  currency: 'EUR',
  amount: '25.50',
  title: 'Invoice 1042',
})

/** `{email: 'a@b.co'}` as `['--email', 'a@b.co']`. */
const flagsOf = (fields: Record<string, string>) => Object.entries(fields).flatMap(([k, v]) => [`--${k}`, v])

/**
 * A link made by pay itself (`run`: runInProcess or runCli) in the local store of `dir` (the
 * built-in profile, no server); `env` adds to the run's environment (a key given by name).
 */
export async function createLocal(dir: string, run: Runner, env: Record<string, string> = {}) {
  const made = await run(['-p', 'sandbox', 'links', 'create', ...flagsOf(LINK), '--json'], {
    env: { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: '1', ...env },
  })
  expect(made.code).toBe(0)
  return JSON.parse(made.stdout)
}

/** The link `id` as the local store of `dir` holds it, or undefined. */
export const localLink = (dir: string, id: string) =>
  Object.values(readStore(dir).businesses)
    .flatMap((b) => Object.values(b.payment_links))
    .find((link) => (link as { _id: string })._id === id) as { paid: boolean } | undefined
