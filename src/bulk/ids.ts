import fs from 'node:fs'
import type { IO } from '../cli/io.js'
import { PayError } from '../errors.js'
import type { Skipped } from './runner.js'

/**
 * Ids from a file or stdin: one per line; blank lines and `#` comments (whole-line or after
 * the id) ignored.
 */
export function parseIdList(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '')
}

/** Ids from arguments, `--from-file FILE` and `-` (stdin), in order, each once. */
export async function collectIds(
  args: string[],
  fromFile: string | undefined,
  io: Pick<IO, 'readStdin'>,
): Promise<string[]> {
  const ids: string[] = []
  const wantsStdin = args.includes('-') || fromFile === '-'
  for (const arg of args) if (arg !== '-') ids.push(arg)
  if (fromFile !== undefined && fromFile !== '-') {
    let text: string
    try {
      text = fs.readFileSync(fromFile, 'utf8')
    } catch (error) {
      const reason =
        (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message
      throw new PayError(`--from-file: cannot read ${fromFile}: ${reason}.`, { kind: 'usage' })
    }
    ids.push(...parseIdList(text))
  }
  if (wantsStdin) ids.push(...parseIdList(await io.readStdin()))
  return [...new Set(ids)]
}

/** Why an entry cannot be an id, or undefined when it can be one. */
function notAnId(entry: string): string | undefined {
  if (entry === '.' || entry === '..') return 'not an id'
  if (/\s/.test(entry)) return 'not an id: it contains a space'
  if (/["'`]/.test(entry)) return 'not an id: it contains a quote'
  if (entry.includes(',')) return 'not an id: it contains a comma (one id per line)'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(entry)) return 'not an id: it contains a control character'
  return undefined
}

/** The entries that can be ids, and those that cannot (reported as `invalid`, never sent). */
export function checkIds(entries: string[]): { valid: string[]; skipped: Skipped[] } {
  const valid: string[] = []
  const skipped: Skipped[] = []
  for (const entry of entries) {
    const problem = notAnId(entry)
    if (problem === undefined) valid.push(entry)
    else {
      const error = new PayError(`${JSON.stringify(entry)} is ${problem}.`, { kind: 'usage' })
      skipped.push({ result: { id: entry, ok: false, status: 'invalid', error: problem }, error })
    }
  }
  return { valid, skipped }
}
