import { isLoopback } from '../../api/base-url.js'
import { configDir, readConfig } from '../../config/file.js'
import { storedProfile } from '../../config/profiles.js'
import { usageError } from '../../errors.js'
import type { RunContext } from '../context.js'
import { probeSandbox } from './connection.js'

/**
 * The global flags on the commands that act on the local sandbox's files (`sandbox start`,
 * `sandbox packages`, the snapshots): taken as on every command, so `pay -p sandbox sandbox
 * packages` works as typed, but a profile or base URL given must be the user's own sandbox (the
 * built-in profile, or one whose address is the built-in's or a sandbox that proved it keeps its
 * store in PAY_SANDBOX_DIR). Anything else is a usage error naming it and why: acting on the local
 * files would not be acting where the profile points. PAY_PROFILE, which may name the live
 * profile for every other command, is left aside: only the flags given ask for a profile here.
 */
export async function refuseForeignSandbox(
  given: { profile?: string; baseUrl?: string },
  context: RunContext,
): Promise<void> {
  if (given.profile === undefined && given.baseUrl === undefined) return
  const { builtIn } = context
  const name = given.profile ?? builtIn.name
  let baseUrl = given.baseUrl
  if (baseUrl === undefined && name !== builtIn.name) {
    const stored = storedProfile(readConfig(configDir(context.env)), name)
    if (!stored) {
      throw usageError(
        `There is no profile named "${name}" (given with --profile).`,
        'See `pay profiles list`; the built-in `sandbox` profile needs no set-up.',
      )
    }
    baseUrl = stored.base_url
  }
  if (baseUrl === undefined || sameAddress(baseUrl, builtIn.baseUrl)) return
  const why = await notYourSandbox(baseUrl, context.sandboxDir)
  if (why === undefined) return
  const named = given.baseUrl === undefined ? `profile "${name}"` : `--base-url ${baseUrl}`
  throw usageError(
    `\`${context.command}\` acts on your local sandbox, and ${named} is not it: ${why}.`,
    `Use -p sandbox, or leave -p and --base-url out: your local sandbox keeps its store in ${context.sandboxDir}.`,
  )
}

/** Why what answers at `baseUrl` is not the user's sandbox, or undefined when it proved it is. */
async function notYourSandbox(baseUrl: string, dir: string): Promise<string | undefined> {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    return `${baseUrl} is not a URL`
  }
  // A sandbox of this user's listens on this machine: a service elsewhere is not asked.
  if (!isLoopback(url.hostname)) return `${url.origin} is not on this machine`
  const found = await probeSandbox(baseUrl, { dir })
  if (found === 'proven') return undefined
  if (found === 'unproven') return `the sandbox at ${url.origin} could not prove it keeps its store in ${dir}`
  if (found === 'other') return `${url.origin} is not a pay sandbox`
  return `nothing answers at ${url.origin}, which is not the built-in sandbox's address`
}

const sameAddress = (a: string, b: string) => {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return false
  }
}
