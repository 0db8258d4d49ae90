import { Config } from '@oclif/core'
import { beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/main.js'
import { ROOT } from '../../helpers/cli.js'
import { commandClass } from '../../helpers/in-process.js'
import { TestIO } from '../../helpers/io.js'

/**
 * pay's entry (src/cli/main.ts): everything it says goes to the IO it is given, in the
 * environment it is given, and it ends with the exit code; the Config it runs with is left as
 * it was, so that one Config serves runs that overlap.
 */

let config: Config
beforeAll(async () => {
  config = await Config.load({ root: ROOT, userPlugins: false })
})

const run = async (argv: string[]) => {
  const io = new TestIO()
  const ended = await main(argv, { env: {}, io, config, load: commandClass })
  return { code: ended.code, stdout: io.stdout.text, stderr: io.stderr.text }
}

describe('main', () => {
  it('-v and --version: the version on the IO given', async () => {
    const expected = { code: 0, stdout: `${config.userAgent}\n`, stderr: '' }
    expect(await run(['-v'])).toEqual(expected)
    expect(await run(['--version'])).toEqual(expected)
  })

  it('help on the IO given, the same every time: the Config keeps its ids', async () => {
    const first = await run(['links', 'create', '--help'])
    const topic = await run(['links'])
    const root = await run([])
    expect(first.code).toBe(0)
    expect(first.stdout).toContain('$ pay links create')
    expect(topic.stdout).toContain('  links create  Create a payment link\n')
    expect(root.stdout).toContain('links')
    expect(await run(['links', 'create', '--help'])).toEqual(first)
    expect(await run(['links'])).toEqual(topic)
    expect(config.findCommand('links:create')?.id).toBe('links:create')
    expect(config.findCommand('links:delete')?.aliases).toEqual(['links:rm'])
    expect(config.topics.filter((topic) => topic.name.includes(' '))).toEqual([])
  })

  it('every topic has words of its own, never a command’s; a command that is a topic too names its subcommands', async () => {
    const topics = config.topics.filter((topic) =>
      config.commands.some((command) => !command.hidden && command.id.startsWith(`${topic.name}:`)),
    )
    expect(topics.map((topic) => topic.name)).toEqual(
      expect.arrayContaining([
        'links',
        'profiles',
        'sandbox',
        'sandbox:clock',
        'sandbox:faults',
        'sandbox:snapshot',
      ]),
    )
    const summaries = new Set(config.commands.flatMap((command) => [command.summary, command.description]))
    for (const topic of topics) {
      expect(topic.description, topic.name).toBeTruthy()
      expect(summaries.has(topic.description), `${topic.name}: ${topic.description}`).toBe(false)
    }
    const sandbox = await run(['sandbox', '--help'])
    const listed = (section: string) =>
      (sandbox.stdout.split(`${section}\n`)[1] ?? '').split('\n\n')[0].replace(/\n {6,}/g, ' ')
    expect(listed('TOPICS')).toMatch(/^ {2}sandbox clock +.*\badvance\b.*\bset\b/m)
    expect(listed('TOPICS')).not.toMatch(/Remove the fault rules|Delete a snapshot/)
  })

  it('a command that is a topic too is listed once, as the topic: autocomplete at the root, sandbox clock in sandbox', async () => {
    const names = (text: string) => [...text.matchAll(/^ {2}(\S+(?: \S+)?) {2,}/gm)].map((match) => match[1])
    const root = (await run(['--help'])).stdout
    expect(names(root).filter((name) => name === 'autocomplete')).toEqual(['autocomplete'])
    expect(root).toContain('  autocomplete  Shell completion of commands, flags and ids: bash, zsh, fish\n')
    expect(root).not.toContain('Display autocomplete installation instructions')
    const sandbox = (await run(['sandbox', '--help'])).stdout
    expect(names(sandbox).filter((name) => name === 'sandbox clock')).toEqual(['sandbox clock'])
    for (const text of [root, sandbox]) expect(new Set(names(text)).size).toBe(names(text).length)
    // Its own help still shows it, and its subcommands.
    expect((await run(['autocomplete', '--help'])).stdout).toContain(
      '  autocomplete fish  Print the completion script for fish\n',
    )
  })

  it('a mistyped command: pay’s words on the IO’s stderr, exit 2 (JSON with --json)', async () => {
    expect(await run(['links', 'craete'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'Error: "links craete" is not a pay command. Did you mean "links create"?\nSee `pay links --help` for the commands there are.\n',
    })
    const json = await run(['lnks', 'list', '--json'])
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stderr).error.message).toBe(
      '"lnks list" is not a pay command. Did you mean "links list"?',
    )
  })

  it('a command runs in the environment given: a usage error of its own, exit 2', async () => {
    const io = new TestIO()
    const ended = await main(['links', 'get', 'x', '--timeout', '0'], {
      env: {},
      io,
      config,
      load: commandClass,
    })
    expect(ended.code).toBe(2)
    expect(io.stderr.text).toMatch(
      /^Error: --timeout: Expected a number of seconds greater than 0 but received: 0\n/,
    )
    const fromEnv = new TestIO()
    const bad = await main(['links', 'get', 'x'], {
      env: { PAY_TIMEOUT: 'soon' },
      io: fromEnv,
      config,
      load: commandClass,
    })
    expect(bad.code).toBe(2)
    expect(fromEnv.stderr.text).toMatch(
      /^Error: --timeout: Expected a number of seconds greater than 0 but received: soon\n/,
    )
  })
})
