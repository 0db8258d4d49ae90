import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { BIN, runCli, tempDir } from '../../helpers/cli.js'
import { startTerminal } from '../../helpers/terminal.js'

const hasZsh = spawnSync('zsh', ['-c', 'exit 0']).status === 0

/** Shell completion from @oclif/plugin-autocomplete, as the README tells users to set it up. */
describe('shell completion', () => {
  test('bash: the setup line installs a completion function that completes pay commands and flags', async () => {
    const env = { XDG_CACHE_HOME: tempDir('pay-cache-') }
    const instructions = await runCli(['autocomplete', 'bash'], { env })
    expect(instructions.code).toBe(0)
    expect(instructions.stdout).toContain('printf "$(pay autocomplete script bash)" >> ~/.bashrc')

    const script = await runCli(['autocomplete', 'script', 'bash'], { env })
    expect(script.code).toBe(0)
    expect(script.stdout).toMatch(/^\nPAY_AC_BASH_SETUP_PATH=\S+ && test -f/)

    const complete = (words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `${script.stdout.trim()}
           COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
           _pay_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8' },
      )
        .trim()
        .split('\n')
        .filter((word, i, all) => all.indexOf(word) === i)
    expect(complete(['pay', 'li'])).toEqual(['links'])
    expect(complete(['pay', 'links', 'cr'])).toEqual(['create'])
    expect(complete(['pay', 'subs', 'cancel', '--from'])).toEqual(['--from-file'])
    expect(complete(['pay', 'links', 'create', '--reference'])).toEqual(['--reference', '--reference-2'])
  })

  // .ci/run installs zsh, so CI always runs this; a developer machine without zsh skips it.
  test.skipIf(!hasZsh)(
    'zsh: the setup line, sourced by an interactive zsh, completes commands and flags on <TAB>',
    async () => {
      const cache = tempDir('pay-cache-')
      const instructions = await runCli(['autocomplete', 'zsh'], { env: { XDG_CACHE_HOME: cache } })
      expect(instructions.code).toBe(0)
      expect(instructions.stdout).toContain('printf "$(pay autocomplete script zsh)" >> ~/.zshrc')
      const script = await runCli(['autocomplete', 'script', 'zsh'], { env: { XDG_CACHE_HOME: cache } })
      expect(script.code).toBe(0)
      expect(script.stdout).toContain(`PAY_AC_ZSH_SETUP_PATH=${cache}/pay/autocomplete/zsh_setup`)

      // What a user has after following the instructions: pay on PATH, the line in ~/.zshrc.
      const home = tempDir('pay-zsh-home-')
      const bin = tempDir('pay-zsh-bin-')
      fs.symlinkSync(BIN, path.join(bin, 'pay'))
      fs.writeFileSync(path.join(home, '.zshrc'), `${script.stdout}\nPS1='%% '\n`)
      const terminal = await startTerminal([], {
        command: ['zsh', '-i'],
        env: { HOME: home, ZDOTDIR: home, XDG_CACHE_HOME: cache, PATH: `${bin}:${process.env.PATH}` },
      })
      try {
        await terminal.waitFor(/^%\s*$/m)
        const complete = async (typed: string, expected: string) => {
          await terminal.press('C-u')
          await terminal.type(typed, 'Tab')
          // The prompt line, trailing blanks trimmed: what <TAB> made of what was typed.
          await terminal.waitFor(new RegExp(`^% ${expected} ?$`, 'm'))
        }
        await complete('pay li', 'pay links')
        await complete('pay links cr', 'pay links create')
        await complete('pay subs cancel --from', 'pay subs cancel --from-file')
      } finally {
        await terminal.close()
      }
    },
  )
})
