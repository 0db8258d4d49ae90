import { Config } from '@oclif/core'
import { beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/main.js'
import { ROOT } from '../../helpers/cli.js'
import { COMMAND_IDS, commandClass, MANIFEST } from '../../helpers/in-process.js'
import { TestIO } from '../../helpers/io.js'

/**
 * The USAGE line of every command's help reads right: each flag in its own brackets, or in a
 * group of flags that exclude each other (`[--report <value> | --resume <value>]`); never an
 * empty group or a flag nested in another's brackets (`[--append [--report <value> ]]`, `[-y ]`),
 * which is how oclif draws a flag that needs another.
 */

let config: Config
beforeAll(async () => {
  config = await Config.load({ root: ROOT, userPlugins: false })
})

async function usageOf(id: string): Promise<string> {
  const io = new TestIO({ width: 1000 })
  await main([...id.split(':'), '--help'], { env: {}, io, config, load: commandClass })
  const text = io.stdout.text
  return text
    .slice(text.indexOf('USAGE\n') + 'USAGE\n'.length)
    .split('\n\n')[0]
    .replace(/\s+/g, ' ')
    .trim()
}

describe('USAGE', () => {
  it('of no command needs its module: every default is shown from the manifest (no function as defaultHelp)', () => {
    // oclif loads a command whose help is dynamic to show it: slower, and from dist/ only.
    const dynamic = Object.values(MANIFEST.commands).filter(
      (command) => 'hasDynamicHelp' in command && command.hasDynamicHelp,
    )
    expect(dynamic.map((command) => command.id)).toEqual([])
  })

  it('of every command: no empty group, no flag inside another’s brackets', async () => {
    for (const id of COMMAND_IDS) {
      const usage = await usageOf(id)
      expect(usage, id).toMatch(/^\$ pay /)
      expect(usage, id).not.toMatch(/ \]|\[\[|\[[^\]]*\[/)
    }
  })

  it('of links create and subs cancel, exactly', async () => {
    expect(await usageOf('links:create')).toBe(
      '$ pay links create [-p <value>] [--base-url <value>] [--json] [--debug] [--timeout <value>] ' +
        '[--email <value>] [--currency <value>] [--amount <value>] [--title <value>] [--phone <value>] ' +
        '[--description <value>] [--redirect-url <value>] [--reference <value>] [--reference-2 <value>] ' +
        '[--send-email] [--idempotency-key <value>] [--open | --from-csv <value>] [--skip-invalid] ' +
        '[--retry-unknown] [-y] [--dry-run] [--concurrency <value>] [--report <value> | --resume <value>] ' +
        '[--force | --append] [--bom] [--jq <value>] [--columns <value>] [-q]',
    )
    expect(await usageOf('subs:cancel')).toBe(
      '$ pay subs cancel [ID...] [-p <value>] [--base-url <value>] [--json] [--debug] [--timeout <value>] ' +
        '[-f <value>] [-y] [--dry-run] [--concurrency <value>] [--report <value> | --resume <value>] ' +
        '[--force | --append] [--bom] [--jq <value>] [--columns <value>] [-q]',
    )
  })
})
