import { spawnSync } from 'node:child_process'
import { describe, it } from 'vitest'
import { BIN, cleanEnv } from '../../helpers/cli.js'
import { freshConfigDir, writeConfig } from '../../helpers/config-files.js'

const KEYS = {
  zeta: 'sk_live_ZetaZetaZeta0001',
  alpha: 'sk_live_AlphaAlphaAl0002',
  mid: 'sk_test_MidMidMidMid0003',
}

/** A config with three stored profiles (written out of order), `mid` current. */
function threeProfiles(): string {
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

describe.concurrent('pay profiles list', () => {
  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'draws a table with a header on a terminal',
    async ({ expect }) => {
      const dir = threeProfiles()
      // `script` gives pay a real pty; its size is set first (a fresh pty reports 0 columns).
      const run = spawnSync(
        'script',
        ['-qec', `stty cols 120; ${process.execPath} ${BIN} profiles list`, '/dev/null'],
        {
          env: cleanEnv({ PAY_CONFIG_DIR: dir, NO_COLOR: '1' }),
          encoding: 'utf8',
          input: '',
        },
      )
      expect(run.status).toBe(0)
      const lines = run.stdout.split('\r\n').map((line) => line.trimEnd())
      expect(lines).toEqual([
        'NAME     CURRENT  BASE URL               KEY        STORAGE',
        'sandbox  false    http://127.0.0.1:1     sk_s…9e1d  built-in',
        'alpha    false    https://alpha.example  sk_l…0002  file',
        'mid      true     https://mid.example    sk_t…0003  file',
        'zeta     false    https://zeta.example   sk_l…0001  file',
        '',
      ])
    },
  )
})
