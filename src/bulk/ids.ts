import fs from 'node:fs'
import type { IO } from '../cli/io.js'
import { PayError, usageError } from '../errors.js'
import { looksLikeReport, reportFrom, reportOptions } from './report.js'
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

/** Ids from a list or from a report pay wrote (its id column). */
function idsIn(text: string, source: string): string[] {
  if (!looksLikeReport(text)) return parseIdList(text)
  return reportFrom(text, source, '--from-file').rows.map((row) => row.values.id ?? '')
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
    ids.push(...idsIn(text, fromFile))
  }
  if (wantsStdin) ids.push(...idsIn(await io.readStdin(), 'stdin'))
  return [...new Set(ids)]
}

/** The flags of the bulk commands by id that say where ids come from and where results go. */
export interface IdFlags {
  'from-file'?: string
  report?: string
  append?: boolean
  force?: boolean
  resume?: string
}

/**
 * What a bulk command by id works on: its ids (arguments, --from-file, stdin), the report it
 * resumes, and the report it writes. No source of ids at all is a usage error; an empty list
 * from a pipe or a file is not (there is just nothing to do).
 */
export async function idInput(args: string[], flags: IdFlags, io: Pick<IO, 'readStdin'>, plural: string) {
  const given = args.length > 0 || flags['from-file'] !== undefined || flags.resume !== undefined
  if (!given) {
    throw usageError(
      `No ${plural} ids given.`,
      'Pass ids as arguments, --from-file FILE, or - to read stdin.',
    )
  }
  const ids = await collectIds(args, flags['from-file'], io)
  return { ids, ...reportOptions(flags) }
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
