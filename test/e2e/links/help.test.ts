import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT, runCli } from '../../helpers/cli.js'

/** Help text: `--help` of the links commands, and every command's description and examples. */

interface ManifestCommand {
  id: string
  summary?: string
  description?: string
  examples?: (string | { command: string; description?: string })[]
  flags: Record<string, { name: string; type: string; allowNo?: boolean }>
}

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>
}
const commands = Object.values(manifest.commands)

/** Command ids from the source tree: `src/commands/links/create.ts` -> `links:create`. */
function sourceCommandIds(dir = path.join(ROOT, 'src/commands'), prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return sourceCommandIds(path.join(dir, entry.name), `${prefix}${entry.name}:`)
    return entry.name.endsWith('.ts') ? [`${prefix}${entry.name.replace(/\.ts$/, '')}`] : []
  })
}

describe.concurrent('pay links create --help', () => {
  test('exit 0, every flag of spec 4.2 and an example', async () => {
    const result = await runCli(['links', 'create', '--help'], { env: { COLUMNS: '200' } })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const help = result.stdout
    expect(help.startsWith('Create a payment link\n')).toBe(true)
    for (const flag of [
      '--email=<value>',
      '--currency=<value>',
      '--amount=<value>',
      '--title=<value>',
      '--phone=<value>',
      '--description=<value>',
      '--redirect-url=<value>',
      '--reference=<value>',
      '--reference-2=<value>',
      '--[no-]send-email',
      '--json',
      '--columns=<value>',
      '-q, --quiet',
      '-p, --profile=<value>',
    ]) {
      expect(help).toContain(flag)
    }
    expect(help).toMatch(
      /\nEXAMPLES\n {2}\$ pay links create --email \S+ --currency \S+ --amount \S+ --title /,
    )
  })

  test.for(['get', 'list', 'update', 'delete'])('pay links %s --help: exit 0 with examples', async (verb) => {
    const result = await runCli(['links', verb, '--help'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(new RegExp(`\\nEXAMPLES\\n {2}\\$ pay links ${verb}\\b`))
  })

  test('pay token create --help lists its flags', async () => {
    const result = await runCli(['token', 'create', '--help'])
    expect(result.code).toBe(0)
    for (const flag of ['--email', '--title', '--description', '--phone', '--redirect-url'])
      expect(result.stdout).toContain(`${flag}=<value>`)
  })
})

describe('every command in oclif.manifest.json', () => {
  test('the manifest lists exactly the commands in src/commands (it is not stale)', () => {
    expect(commands.map((command) => command.id).sort()).toEqual(sourceCommandIds().sort())
  })

  test.for(commands.map((command) => [command.id, command] as const))(
    '%s has a description and at least one example',
    ([, command]) => {
      expect((command.summary ?? command.description ?? '').trim()).not.toBe('')
      expect(command.examples?.length ?? 0).toBeGreaterThan(0)
      for (const example of command.examples ?? []) {
        const text = typeof example === 'string' ? example : example.command
        // The command itself, possibly at the end of a pipeline or after an environment variable.
        expect(text).toMatch(
          new RegExp(
            `(^|\\| )([A-Z_]+=\\S+ )?<%= config.bin %> (-p \\S+ )?${command.id.replace(/:/g, ' ')}\\b`,
          ),
        )
      }
    },
  )

  test('the links create and update flags in the manifest are every field of spec 4.2', () => {
    const linkFlags = [
      'email',
      'currency',
      'amount',
      'title',
      'phone',
      'description',
      'redirect-url',
      'reference',
      'reference-2',
      'send-email',
    ]
    for (const id of ['links:create', 'links:update']) {
      const flags = manifest.commands[id].flags
      for (const flag of linkFlags) expect(Object.keys(flags)).toContain(flag)
      expect(flags['send-email']).toMatchObject({ type: 'boolean', allowNo: true })
      expect(flags.amount.type).toBe('option')
    }
  })
})

describe.concurrent('the --help of every bulk command explains its report', () => {
  const bulk = [
    {
      id: 'subs:cancel',
      columns: ['id', 'ok', 'status', 'error', 'at', 'email', 'package', 'amount', 'currency'],
    },
    {
      id: 'subs:delete',
      columns: ['id', 'ok', 'status', 'error', 'at', 'email', 'package', 'amount', 'currency'],
    },
    {
      id: 'links:delete',
      columns: ['id', 'ok', 'status', 'error', 'at', 'email', 'title', 'amount', 'currency'],
    },
    {
      id: 'links:create',
      columns: ['line', 'ok', 'status', 'error', '_id', 'payment_url', 'at', 'idempotency_key', 'row_hash'],
    },
  ]
  for (const { id, columns } of bulk) {
    test(`pay ${id.replace(':', ' ')}: the columns, the time zone of at, the formula prefix, the meta file, the resume rules`, () => {
      const description = (manifest.commands[id].description ?? '').replace(/\s+/g, ' ')
      expect(description).toContain(
        'REPORT: --report FILE writes a CSV (mode 0600) whose row 1 is the header',
      )
      const explained = description.slice(description.indexOf('REPORT:'))
      for (const column of columns) expect(explained).toMatch(new RegExp(`(^|[^\\w])${column}([^\\w]|$)`))
      expect(description).toContain('in UTC, as YYYY-MM-DD HH:MM:SS')
      expect(description).toContain("is written with a leading '")
      expect(description).toContain('FILE.meta.json beside the report records the run')
      expect(description).toContain(
        'A run that was killed (no closing mark) is resumed only with its input given again',
      )
    })
  }
})
