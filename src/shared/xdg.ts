import os from 'node:os'
import path from 'node:path'

/**
 * The one XDG base-directory lookup (config, data, cache): `$XDG_CONFIG_HOME`, `$XDG_DATA_HOME`,
 * `$XDG_CACHE_HOME` when absolute (the spec says to ignore a relative one), else the spec's
 * default under the home directory. Ground the sandbox shares with its client (src/shared/,
 * .dependency-cruiser.cjs): pay's config and journal use it too.
 */
const DEFAULTS = {
  config: ['XDG_CONFIG_HOME', ['.config']],
  data: ['XDG_DATA_HOME', ['.local', 'share']],
  cache: ['XDG_CACHE_HOME', ['.cache']],
} as const

export type XdgKind = keyof typeof DEFAULTS

/** `kind`'s base directory with `parts` below it: `xdgDir('data', env, 'pay', 'sandbox')`. */
export function xdgDir(kind: XdgKind, env: NodeJS.ProcessEnv, ...parts: string[]): string {
  const [variable, fallback] = DEFAULTS[kind]
  const set = env[variable]
  const base = set && path.isAbsolute(set) ? set : path.join(env.HOME || os.homedir(), ...fallback)
  return path.join(base, ...parts)
}
