import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { BIN, runCli, tempDir } from '../../helpers/cli.js'
import { startTerminal, type Terminal } from '../../helpers/terminal.js'

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

const hasFish = spawnSync('fish', ['-c', 'exit 0']).status === 0

/**
 * Ids on <TAB> in each shell, set up as the README says, in a real terminal: the ids pay showed
 * or made for the profile on the command line, read by `pay __complete` from pay's cache (no
 * request is sent: nothing runs a sandbox while completing).
 */
describe('ids on <TAB>, from the ids pay has shown', () => {
  /** A home, pay on PATH, and a cache holding two links and a subscription of the sandbox profile. */
  async function seeded() {
    const cache = tempDir('pay-cache-')
    const env = { XDG_CACHE_HOME: cache, PAY_SANDBOX_DIR: tempDir('pay-sandbox-') }
    const made: string[] = []
    for (const title of ['First', 'Second']) {
      const link = await runCli(
        [
          '-p',
          'sandbox',
          'links',
          'create',
          '--email',
          'a@b.co',
          '--currency',
          'EUR',
          '--amount',
          '5',
          '--title',
          title,
          '-q',
        ],
        { env },
      )
      expect(link.code).toBe(0)
      made.push(link.stdout.trim())
    }
    const packages = await runCli(['sandbox', 'packages', '-q'], { env })
    const sub = await runCli(
      [
        '-p',
        'sandbox',
        'subs',
        'create',
        '--package-id',
        packages.stdout.split('\n')[0],
        '--email',
        'a@b.co',
        '-q',
      ],
      { env },
    )
    expect(sub.code).toBe(0)
    const [first, second] = made
    // The shortest start of the first id that the second does not share: <TAB> completes it alone.
    let n = 1
    while (second.startsWith(first.slice(0, n))) n += 1
    const home = tempDir('pay-shell-home-')
    const bin = tempDir('pay-shell-bin-')
    fs.symlinkSync(BIN, path.join(bin, 'pay'))
    return {
      env: { ...env, HOME: home, PATH: `${bin}:${process.env.PATH}` },
      home,
      link: first,
      prefix: first.slice(0, n),
      sub: sub.stdout.trim(),
    }
  }

  /** Types `typed` and <TAB> on a shell's prompt (`% `), and waits for the line to read `expected`. */
  const completes = async (terminal: Terminal, typed: string, expected: string) => {
    await terminal.press('C-u')
    await terminal.type(typed, 'Tab')
    await terminal.waitFor(new RegExp(`^% ${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ?$`, 'm'))
  }

  test('bash', async () => {
    const s = await seeded()
    const script = await runCli(['autocomplete', 'script', 'bash'], { env: s.env })
    expect((await runCli(['autocomplete', 'bash'], { env: s.env })).code).toBe(0)
    fs.writeFileSync(path.join(s.home, '.bashrc'), `${script.stdout}\nPS1='% '\n`)
    const terminal = await startTerminal([], { command: ['bash', '-i'], env: s.env })
    try {
      await terminal.waitFor(/^%\s*$/m)
      await completes(terminal, `pay -p sandbox links get ${s.prefix}`, `pay -p sandbox links get ${s.link}`)
      await completes(
        terminal,
        `pay --profile=sandbox subs cancel --yes ${s.sub.slice(0, 1)}`,
        `pay --profile=sandbox subs cancel --yes ${s.sub}`,
      )
      // Everything else is oclif's, as before.
      await completes(terminal, 'pay li', 'pay links')
      await completes(terminal, 'pay links cr', 'pay links create')
    } finally {
      await terminal.close()
    }
  })

  test.skipIf(!hasZsh)('zsh', async () => {
    const s = await seeded()
    const script = await runCli(['autocomplete', 'script', 'zsh'], { env: s.env })
    expect((await runCli(['autocomplete', 'zsh'], { env: s.env })).code).toBe(0)
    fs.writeFileSync(path.join(s.home, '.zshrc'), `${script.stdout}\nPS1='%% '\n`)
    const terminal = await startTerminal([], { command: ['zsh', '-i'], env: { ...s.env, ZDOTDIR: s.home } })
    try {
      await terminal.waitFor(/^%\s*$/m)
      await completes(
        terminal,
        `pay -p sandbox links delete ${s.prefix}`,
        `pay -p sandbox links delete ${s.link}`,
      )
      await completes(
        terminal,
        `pay subs get -p sandbox ${s.sub.slice(0, 1)}`,
        `pay subs get -p sandbox ${s.sub}`,
      )
      await completes(terminal, 'pay subs cancel --from', 'pay subs cancel --from-file')
    } finally {
      await terminal.close()
    }
  })

  test.skipIf(!hasFish)('fish', async () => {
    const s = await seeded()
    const script = await runCli(['autocomplete', 'fish'], { env: s.env })
    expect(script.code).toBe(0)
    const completions = path.join(s.home, '.config', 'fish', 'completions')
    fs.mkdirSync(completions, { recursive: true })
    fs.writeFileSync(path.join(completions, 'pay.fish'), script.stdout)
    fs.mkdirSync(path.join(s.home, '.config', 'fish', 'conf.d'), { recursive: true })
    fs.writeFileSync(
      path.join(s.home, '.config', 'fish', 'config.fish'),
      "function fish_prompt; printf '%% '; end\nset -g fish_greeting\n",
    )
    const terminal = await startTerminal([], { command: ['fish', '-i'], env: s.env })
    try {
      await terminal.waitFor(/^%\s*$/m)
      await completes(terminal, `pay -p sandbox links qr ${s.prefix}`, `pay -p sandbox links qr ${s.link}`)
      await completes(
        terminal,
        `pay -p sandbox subs update ${s.sub.slice(0, 1)}`,
        `pay -p sandbox subs update ${s.sub}`,
      )
      await completes(terminal, 'pay sandbox snap', 'pay sandbox snapshot')
      await completes(terminal, 'pay links list --for', 'pay links list --format')
      await completes(terminal, 'pay links list --format c', 'pay links list --format csv')
    } finally {
      await terminal.close()
    }
  })
})
