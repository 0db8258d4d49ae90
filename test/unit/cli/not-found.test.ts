import { Config } from '@oclif/core'
import { beforeAll, describe, expect, it } from 'vitest'
import { moveLeadingGlobalFlags } from '../../../src/cli/argv.js'
import { main } from '../../../src/cli/main.js'
import { closest } from '../../../src/cli/suggest.js'
import { ROOT } from '../../helpers/cli.js'
import { commandClass } from '../../helpers/in-process.js'
import { TestIO } from '../../helpers/io.js'

/**
 * A mistyped command (src/cli/not-found.ts): the nearest command at the depth of the mistyped
 * word, under the topic typed before it (its name or an alias); a read-only one before a
 * destructive one at the same distance; a mistyped flag written before the command gets the
 * nearest flag, never a command. Exit 2, nothing run.
 */

let config: Config
beforeAll(async () => {
  config = await Config.load({ root: ROOT, userPlugins: false })
})

const pay = async (...argv: string[]) => {
  const io = new TestIO()
  const ended = await main(moveLeadingGlobalFlags(argv), { env: {}, io, config, load: commandClass })
  return { code: ended.code, stdout: io.stdout.text, stderr: io.stderr.text }
}

const notACommand = (typed: string, guess: string | undefined, topic: string) => ({
  code: 2,
  stdout: '',
  stderr:
    `Error: "${typed}" is not a pay command.${guess ? ` Did you mean "${guess}"?` : ''}\n` +
    `See \`pay ${topic ? `${topic} ` : ''}--help\` for the commands there are.\n`,
})

describe('a mistyped command', () => {
  it('under a sub-topic: the nearest command of that sub-topic, never a destructive one', async () => {
    expect(await pay('sandbox', 'snapshot', 'lst')).toEqual(
      notACommand('sandbox snapshot lst', 'sandbox snapshot list', 'sandbox snapshot'),
    )
    expect(await pay('sandbox', 'faults', 'lst')).toEqual(
      notACommand('sandbox faults lst', 'sandbox faults list', 'sandbox faults'),
    )
    expect(await pay('sandbox', 'snapshot', 'restor', 'monday')).toEqual(
      notACommand('sandbox snapshot restor', 'sandbox snapshot restore', 'sandbox snapshot'),
    )
  })

  it('under a command that is also a topic: its subcommands, with the words after them left out', async () => {
    expect(await pay('sandbox', 'clock', 'advnce', '1d')).toEqual(
      notACommand('sandbox clock advnce', 'sandbox clock advance', 'sandbox clock'),
    )
    expect(await pay('sandbox', 'clock', 'st', '2030-01-01')).toEqual(
      notACommand('sandbox clock st', 'sandbox clock set', 'sandbox clock'),
    )
  })

  it('a mistyped topic: the nearest topic, and the command typed after it under that topic', async () => {
    expect(await pay('sandbox', 'fault', 'list')).toEqual(
      notACommand('sandbox fault list', 'sandbox faults list', 'sandbox'),
    )
    expect(await pay('lnks', 'lst')).toEqual(notACommand('lnks lst', 'links list', ''))
    expect(await pay('sandbox', 'snapshots', 'ls')).toEqual(
      notACommand('sandbox snapshots ls', 'sandbox snapshot ls', 'sandbox'),
    )
  })

  it('a read-only command before a destructive one at the same distance, and an alias is as good as a name', async () => {
    // "rs" is one letter from both `ls` and `rm`.
    expect(await pay('sandbox', 'snapshot', 'rs')).toEqual(
      notACommand('sandbox snapshot rs', 'sandbox snapshot ls', 'sandbox snapshot'),
    )
    // "rn" is nearest to `rm` alone: a destructive command is named when it is the nearest.
    expect(await pay('links', 'rn', 'ID')).toEqual(notACommand('links rn', 'links rm', 'links'))
    // A prefix: "re" begins `requests` and `reset`.
    expect(await pay('sandbox', 're')).toEqual(notACommand('sandbox re', 'sandbox requests', 'sandbox'))
    expect(await pay('links', 'cr')).toEqual(notACommand('links cr', 'links create', 'links'))
  })

  it('nothing near: no guess, and the help of the deepest topic typed', async () => {
    expect(await pay('frobnicate')).toEqual(notACommand('frobnicate', undefined, ''))
    expect(await pay('sandbox', 'clock', '1d')).toEqual(
      notACommand('sandbox clock 1d', undefined, 'sandbox clock'),
    )
    expect(await pay('lnks', 'frobnicate')).toEqual(notACommand('lnks', 'links', ''))
  })

  it('words after a command that takes none: an unexpected argument of that command', async () => {
    for (const [words, extra, command] of [
      [['links', 'list', 'extra'], 'extra', 'links list'],
      [['history', 'foo'], 'foo', 'history'],
      [['sandbox', 'packages', 'x', 'y'], 'x', 'sandbox packages'],
    ] as const) {
      expect(await pay(...words)).toEqual({
        code: 2,
        stdout: '',
        stderr: `Error: Unexpected argument: ${extra}\nSee \`pay ${command} --help\`.\n`,
      })
    }
  })

  it('--json: the same words as JSON on stderr', async () => {
    const result = await pay('sandbox', 'snapshot', 'lst', '--json')
    expect(result.code).toBe(2)
    expect(JSON.parse(result.stderr).error).toMatchObject({
      message: '"sandbox snapshot lst" is not a pay command. Did you mean "sandbox snapshot list"?',
      hint: 'See `pay sandbox snapshot --help` for the commands there are.',
    })
  })
})

describe('a mistyped flag before the command', () => {
  it('the nearest flag that goes there, never a command; the help of the command after it', async () => {
    expect(await pay('--jsn', 'links', 'list')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Error: Nonexistent flag: --jsn\nDid you mean --json? See `pay links list --help`.\n',
    })
    expect(await pay('-p', 'sandbox', '--profle', 'sandbox', 'links', 'get', 'ID')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Error: Nonexistent flag: --profle\nDid you mean --profile? See `pay links get --help`.\n',
    })
    expect(await pay('--verison')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Error: Nonexistent flag: --verison\nDid you mean --version? See `pay --help`.\n',
    })
    expect(await pay('-x', 'subs', 'list')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Error: Nonexistent flag: -x\nSee `pay subs list --help`.\n',
    })
    expect(await pay('--frobnicate', 'sandbox')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Error: Nonexistent flag: --frobnicate\nSee `pay sandbox --help`.\n',
    })
  })
})

describe('closest', () => {
  it('a word of three letters or fewer is one edit away at most', () => {
    expect(closest('xy', ['ls', 'rm'])).toBeUndefined()
    expect(closest('lst', ['set', 'list'])).toBe('list')
    expect(closest('ammount', ['amount', 'email'])).toBe('amount')
  })

  it('ties: not a destructive word before another, a name before a prefix match before nothing', () => {
    expect(closest('rs', ['rm', 'ls'])).toBe('ls')
    expect(closest('delet', ['delete', 'get'])).toBe('delete')
    expect(closest('cr', ['qr', 'create'])).toBe('create')
  })
})
