import fs from 'node:fs'
import path from 'node:path'
import { ROOT } from './cli.js'

/**
 * oclif.manifest.json (written by `npm run build` from src/commands): every command of pay, the
 * one list of commands tests take them from. No test keeps a list of its own, so that a command
 * added later is tested (test/commands/every-command.test.ts), scanned for leaks and checked in
 * help without anyone remembering to add it.
 */

/** A command of pay as oclif.manifest.json lists it. */
export interface ManifestCommand {
  id: string
  summary?: string
  aliases: string[]
  hidden?: boolean
  args: Record<string, { name: string }>
  /** The endpoints it sends, by name (src/shared/endpoints.ts): its `static calls`. */
  calls?: string[]
  strict?: boolean
  flags: Record<string, { name: string; char?: string; type: string; allowNo?: boolean; hidden?: boolean }>
}

export const MANIFEST = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>
}

/** Every command id of pay (`links:create`, `login`, `sandbox:clock:advance`), sorted. */
export const COMMAND_IDS: string[] = Object.keys(MANIFEST.commands).sort()

/** A command id as typed: `links:create` -> `links create`. */
export const typed = (id: string) => id.replace(/:/g, ' ')

/** The source file of a command: `links:create` -> src/commands/links/create.ts. */
export const commandSource = (id: string) => path.join(ROOT, 'src/commands', `${id.split(':').join('/')}.ts`)

/** Where a command's tests live: `links:create` -> test/commands/links/create.test.ts. */
export const commandTestFile = (id: string) =>
  path.join(ROOT, 'test/commands', `${id.split(':').join('/')}.test.ts`)

/**
 * The command a command line runs: the longest run of leading words that is a command id
 * (`sandbox clock advance 1h` -> `sandbox:clock:advance`); undefined when none is.
 */
export function commandOf(args: string[]): string | undefined {
  const words: string[] = []
  for (const arg of args) {
    if (!/^[a-z][a-z-]*$/.test(arg)) break
    words.push(arg)
  }
  for (let n = words.length; n > 0; n -= 1) {
    const id = words.slice(0, n).join(':')
    if (MANIFEST.commands[id]) return id
  }
  return undefined
}
