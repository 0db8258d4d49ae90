import { redactKey } from '../../src/config/profiles.js'
import { sandboxKeyOf } from '../../src/shared/sandbox-key.js'
import { tempDir } from './cli.js'
import { freshConfigDir, writeConfig } from './config-files.js'

/**
 * A sandbox directory whose own key is made (src/shared/sandbox-key.ts), for runs that show the
 * built-in profile: `shown` is its key as `profiles list` prints it, redacted.
 */
export function keyedSandboxDir(): { dir: string; shown: string } {
  const dir = tempDir('pay-sandbox-')
  return { dir, shown: redactKey(sandboxKeyOf(dir)) }
}

/** The keys of the three profiles of threeProfiles(), by profile name. */
export const KEYS = Object.freeze({
  zeta: 'sk_live_ZetaZetaZeta0001',
  alpha: 'sk_live_AlphaAlphaAl0002',
  mid: 'sk_test_MidMidMidMid0003',
})

/** A config with three stored profiles (written out of order), `mid` current; its dir. */
export function threeProfiles(): string {
  const dir = freshConfigDir()
  writeConfig(dir, {
    current: 'mid',
    profiles: {
      zeta: { api_key: KEYS.zeta, base_url: 'https://zeta.example' },
      alpha: { api_key: KEYS.alpha, base_url: 'https://alpha.example' },
      mid: { api_key: KEYS.mid, base_url: 'https://mid.example' },
    },
  })
  return dir
}

/** No full key of KEYS, nor 6 characters of one in a row, in what a command printed. */
export function keysHidden(output: string): boolean {
  return Object.values(KEYS).every((key) =>
    Array.from({ length: key.length - 5 }, (_, i) => key.slice(i, i + 6)).every(
      (part) => !output.includes(part),
    ),
  )
}
