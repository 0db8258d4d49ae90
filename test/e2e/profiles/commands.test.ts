import { spawnSync } from 'node:child_process'
import { describe, it } from 'vitest'
import { BIN, cleanEnv } from '../../helpers/cli.js'
import { keyedSandboxDir, threeProfiles } from '../../helpers/profiles.js'

describe.concurrent('pay profiles list', () => {
  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'draws a table with a header on a terminal',
    async ({ expect }) => {
      const dir = threeProfiles()
      const sandbox = keyedSandboxDir()
      // `script` gives pay a real pty; its size is set first (a fresh pty reports 0 columns).
      const run = spawnSync(
        'script',
        ['-qec', `stty cols 120; ${process.execPath} ${BIN} profiles list`, '/dev/null'],
        {
          env: cleanEnv({ PAY_CONFIG_DIR: dir, PAY_SANDBOX_DIR: sandbox.dir, NO_COLOR: '1' }),
          encoding: 'utf8',
          input: '',
        },
      )
      expect(run.status).toBe(0)
      const lines = run.stdout.split('\r\n').map((line) => line.trimEnd())
      expect(lines).toEqual([
        'NAME     CURRENT  BASE URL               KEY        STORAGE',
        `sandbox  false    http://127.0.0.1:1     ${sandbox.shown}  built-in`,
        'alpha    false    https://alpha.example  sk_l…0002  file',
        'mid      true     https://mid.example    sk_t…0003  file',
        'zeta     false    https://zeta.example   sk_l…0001  file',
        '',
      ])
    },
  )
})
