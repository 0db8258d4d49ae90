import fs from 'node:fs'
import type { IO } from '../cli/io.js'
import { PayError } from '../errors.js'

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
