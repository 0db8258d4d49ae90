import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { describe, expect, test } from 'vitest'
import { runCli, tempDir } from '../helpers/cli.js'

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

  test('zsh: the setup script points at a _pay completion function listing every command', async () => {
    const cache = tempDir('pay-cache-')
    const instructions = await runCli(['autocomplete', 'zsh'], { env: { XDG_CACHE_HOME: cache } })
    expect(instructions.code).toBe(0)
    expect(instructions.stdout).toContain('printf "$(pay autocomplete script zsh)" >> ~/.zshrc')
    const script = await runCli(['autocomplete', 'script', 'zsh'], { env: { XDG_CACHE_HOME: cache } })
    expect(script.code).toBe(0)
    expect(script.stdout).toContain(`PAY_AC_ZSH_SETUP_PATH=${cache}/pay/autocomplete/zsh_setup`)
    const functions = fs.readFileSync(`${cache}/pay/autocomplete/functions/zsh/_pay`, 'utf8')
    expect(functions).toMatch(/^#compdef pay/)
    for (const command of ['links', 'subs', 'token', 'profiles', 'sandbox', 'login']) {
      expect(functions).toContain(`"${command}[`)
    }
  })
})
