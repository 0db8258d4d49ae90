import fs from 'node:fs'
import { PayError, usageError } from '../errors.js'
import type { IO } from '../runtime/io.js'
import { headerSeparator, parseCsv } from './csv.js'
import { idProblem, isIdHeader, normalizeId } from './id-text.js'
import { idsInput, type RunInput } from './meta.js'
import { lastRows, looksLikeReport, reportFrom, reportOptions } from './report.js'
import type { Skipped } from './runner.js'

/**
 * Ids from a file or stdin: one per line; blank lines and `#` comments (whole-line or after
 * the id) ignored; a first line naming the column (`id`, `_id`, `subscription_id`) skipped.
 */
export function parseIdList(text: string): string[] {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '')
  return lines.length > 0 && isIdHeader(lines[0]) ? lines.slice(1) : lines
}

/** Which records a bulk command by id acts on, to tell a report of another kind. */
export type IdKind = 'subscription' | 'payment link'

/**
 * Ids from a list or from a report pay wrote (its id column). A report of rows by line (`links
 * create --from-csv`, `subs create --from-csv`) holds no ids to act on, except the records it
 * created: the links for `links delete`, the subscriptions for `subs cancel` and `subs delete`.
 */
function idsIn(text: string, source: string, kind: IdKind): string[] {
  if (!looksLikeReport(text)) return listIds(text, source, kind) ?? parseIdList(text)
  const report = reportFrom(text, source, '--from-file')
  if (report.columns.includes('id')) {
    const other = kind === 'subscription' ? 'title' : 'package'
    if (report.columns.includes(other)) {
      const theirs = kind === 'subscription' ? 'payment links' : 'subscriptions'
      throw usageError(
        `--from-file: ${source} is a report of ${theirs}; its ids are not ${kind} ids.`,
        `Give it to the ${kind === 'subscription' ? '`pay links`' : '`pay subs`'} command that acts on ${theirs}.`,
      )
    }
    return [...lastRows(report, 'id').keys()]
  }
  // A `--from-csv` report: the records it created, by _id; a subscriptions' one names each row's package.
  const made: IdKind = report.columns.includes('package_id') ? 'subscription' : 'payment link'
  if (kind === made && report.columns.includes('_id')) {
    return [...lastRows(report, 'line').values()].map((row) => row._id ?? '').filter((id) => id !== '')
  }
  const command = made === 'subscription' ? 'pay subs create --from-csv' : 'pay links create --from-csv'
  throw usageError(
    `--from-file: ${source} is a report of \`${command}\` (one row per CSV line); it holds no ${kind} ids.`,
  )
}

/** The columns by which a list's CSV shows what it lists: a subscription's package, a link's title. */
const LIST_MARKS: Record<IdKind, string[]> = {
  subscription: ['package.name', 'package_id', 'package.amount'],
  'payment link': ['title', 'payment_url', 'paid'],
}

/**
 * The `_id` column of a list as `--format csv` writes it (`pay subs list --unpaid --format csv
 * > owed.csv`, looked at in a spreadsheet, then given to `subs cancel --from-file`): a header row
 * of several columns, one of them `_id`; commas, or the semicolons or tabs a spreadsheet may have
 * saved it with. Undefined for text that is no such list; a list of the other kind is refused.
 */
function listIds(text: string, source: string, kind: IdKind): string[] | undefined {
  let rows: { cells: string[] }[]
  try {
    rows = parseCsv(text, headerSeparator(text))
  } catch {
    return undefined
  }
  const header = rows[0]?.cells.map((cell) => cell.trim()) ?? []
  const column = header.indexOf('_id')
  if (header.length < 2 || column === -1) return undefined
  const other: IdKind = kind === 'subscription' ? 'payment link' : 'subscription'
  if (LIST_MARKS[other].some((mark) => header.includes(mark))) {
    const theirs = other === 'subscription' ? 'subscriptions' : 'payment links'
    throw usageError(
      `--from-file: ${source} is a list of ${theirs}; its ids are not ${kind} ids.`,
      `Give it to the ${other === 'subscription' ? '`pay subs`' : '`pay links`'} command that acts on ${theirs}.`,
    )
  }
  return rows.slice(1).map((row) => row.cells[column] ?? '')
}

/** Ids from arguments, `--from-file FILE` and `-` (stdin), in order, each once, as normalizeId reads them. */
export async function collectIds(
  args: string[],
  fromFile: string | undefined,
  io: Pick<IO, 'readStdin'>,
  kind: IdKind = 'subscription',
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
    ids.push(...idsIn(text, fromFile, kind))
  }
  if (wantsStdin) ids.push(...idsIn(await io.readStdin(), 'stdin', kind))
  return [...new Set(ids.map(normalizeId))]
}

/** The flags of the bulk commands by id that say where ids come from and where results go. */
export interface IdFlags {
  'from-file'?: string
  report?: string
  append?: boolean
  force?: boolean
  resume?: string
  bom?: boolean
}

/**
 * What a bulk command by id works on: its ids (arguments, --from-file, stdin) and where they
 * came from, the report it resumes, and the report it writes. No source of ids at all is a
 * usage error; an empty list from a pipe or a file is not (there is just nothing to do).
 */
export async function idInput(args: string[], flags: IdFlags, io: Pick<IO, 'readStdin'>, kind: IdKind) {
  const fromFile = flags['from-file']
  const given = args.length > 0 || fromFile !== undefined
  if (!given && flags.resume === undefined) {
    throw usageError(`No ${kind} ids given.`, 'Pass ids as arguments, --from-file FILE, or - to read stdin.')
  }
  const reports = reportOptions(flags)
  const ids = await collectIds(args, fromFile, io, kind)
  const source = [
    args.some((arg) => arg !== '-') ? 'ID…' : '',
    fromFile !== undefined && fromFile !== '-' ? `--from-file ${shellWord(fromFile)}` : '',
    args.includes('-') || fromFile === '-' ? '-' : '',
  ]
    .filter(Boolean)
    .join(' ')
  const input: RunInput | undefined = given ? idsInput(source, ids) : undefined
  return { ids, input, ...reports }
}

/** A file name as it would be typed in a shell. */
export const shellWord = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`

/** The entries that can be ids, and those that cannot (reported as `invalid`, never sent). */
export function checkIds(entries: string[]): { valid: string[]; skipped: Skipped[] } {
  const valid: string[] = []
  const skipped: Skipped[] = []
  for (const entry of entries) {
    const why = idProblem(entry)
    const problem = why === undefined ? undefined : `not an id: ${why}`
    if (problem === undefined) valid.push(entry)
    else {
      const error = new PayError(`${JSON.stringify(entry)} is ${problem}.`, { kind: 'usage' })
      skipped.push({ result: { id: entry, ok: false, status: 'invalid', error: problem }, error })
    }
  }
  return { valid, skipped }
}
