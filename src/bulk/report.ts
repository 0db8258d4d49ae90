import fs from 'node:fs'
import { PayError, usageError } from '../errors.js'
import type { Target } from '../runtime/context.js'
import { checkPrivatePath, openPrivate, UnsafeFileError, writePrivateAtomic } from '../shared/private-file.js'
import { BOM, csvLine, csvTime, fromSpreadsheet, parseCsv, toSpreadsheet } from './csv.js'
import { metaFile, type RunInput, type RunMeta, readMeta, writeMeta } from './meta.js'

/** How --report treats a file that exists: refuse it, add to it (--append), replace it (--force). */
export type ReportMode = 'new' | 'append' | 'replace'

export interface ReportTarget {
  file: string
  mode: ReportMode
  /** --bom: the file starts with a UTF-8 byte-order mark (one added to keeps its own). */
  bom?: boolean
}

/** What one kind of report holds: its command, its columns, and the column naming each row. */
export interface ReportSpec {
  command: string
  columns: string[]
  key: 'id' | 'line'
}

/** A report pay wrote, read back: its rows as column -> value, in file order. */
export interface ReadReport {
  file: string
  columns: string[]
  /** Every row; a run killed mid-way may leave an earlier row for the same key above a later one. */
  rows: { line: number; values: Record<string, string> }[]
  /** The run it belongs to (`REPORT.meta.json`); none for a report of an earlier pay. */
  meta?: RunMeta
  /** A report of an earlier pay: what its last `# …` line said of its run. */
  heading?: { command: string; profile: string; baseUrl: string }
  /** It starts with a byte-order mark (--bom). */
  bom?: boolean
}

/** When a row was written: UTC, in the form spreadsheets read as a date and time (every CSV pay writes it so). */
export const reportTime = (date = new Date()) => csvTime(date)

/**
 * A --report CSV: row 1 the header, then one row per id (or CSV line) in its final state. While
 * the run works, each result is appended the moment it is known (unbuffered), so even a kill -9
 * leaves a row for everything finished; when the run ends, the file is rewritten in one step
 * (a new file renamed over it) to one row per id, in input order, and its .meta.json gets the
 * closing mark. Created 0600; never written through a symbolic link; an existing report is
 * never overwritten silently (refused unless --append or --force, or resumed).
 */
export class Report {
  private readonly rows = new Map<string, Record<string, string>>()
  private finished = false

  private constructor(
    readonly file: string,
    private readonly spec: ReportSpec,
    private fd: number,
    private readonly meta: RunMeta,
    private readonly bom: string,
  ) {}

  /**
   * Refuses, before anything is planned or sent, a report that cannot be written: a symbolic
   * link or other non-file at its name or its .meta.json's, or (without --append/--force) a
   * file that exists.
   */
  static check(target: ReportTarget | undefined, flag = '--report'): void {
    if (!target) return
    for (const file of [target.file, metaFile(target.file)]) {
      try {
        checkPrivatePath(file)
      } catch (error) {
        throw unsafe(flag, error)
      }
    }
    if (target.mode === 'new' && fs.existsSync(target.file)) throw reportExists(target.file)
  }

  /**
   * Opens the report for a run that is about to send: `previous` rows (a resumed or appended
   * report) are kept, the file rewritten with them in this format, the meta written (no closing
   * mark yet).
   */
  static open(target: ReportTarget, spec: ReportSpec, run: { target: Target; input: RunInput }): Report {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: check() refuses an existing file in mode new only, and the open below refuses one there all the same (EEXIST)
    Report.check(target.mode === 'new' ? target : { ...target, mode: 'replace' })
    const previous = target.mode === 'append' ? existingReport(target.file, spec) : undefined
    // A report resumed or added to keeps the mark it has; --bom gives one to a report without.
    const bom = target.bom || previous?.bom ? BOM : ''
    const meta: RunMeta = {
      format: 'pay-report/2',
      command: spec.command,
      profile: run.target.profile,
      base_url: run.target.baseUrl,
      input: run.input,
      started_at: new Date().toISOString(),
    }
    let fd: number
    try {
      if (target.mode === 'new') {
        fd = openPrivate(target.file, 'create')
        fs.writeSync(fd, bom + csvLine(spec.columns))
      } else {
        // A file replaced (--force) or rewritten (--append) is a new file renamed over the old
        // one: whatever else links to the old one (a hard link someone planted) gets nothing.
        const rows = previous ? [...lastRows(previous, spec.key).values()] : []
        writePrivateAtomic(target.file, bom + reportText(spec, rows))
        fd = openPrivate(target.file, 'append')
      }
      writeMeta(target.file, meta)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw reportExists(target.file)
      if (error instanceof UnsafeFileError) throw unsafe('--report', error)
      throw new PayError(`--report: cannot write ${target.file}: ${(error as Error).message}`, {
        kind: 'general',
      })
    }
    const report = new Report(target.file, spec, fd, meta, bom)
    if (previous) for (const [key, values] of lastRows(previous, spec.key)) report.rows.set(key, values)
    return report
  }

  /**
   * One result, by column name (missing ones empty): kept, and appended to the file at once. A
   * write that fails (a full disk) never stops the run: finish() says what became of the report.
   */
  write(values: Record<string, string | undefined>): void {
    const row = Object.fromEntries(this.spec.columns.map((column) => [column, values[column] ?? '']))
    this.rows.delete(row[this.spec.key])
    this.rows.set(row[this.spec.key], row)
    try {
      fs.writeSync(this.fd, rowLine(this.spec, row))
    } catch {}
  }

  /**
   * The run ended: the file rewritten to one row per key (those of `order` first, in its order),
   * and the closing mark written beside it. Returns what went wrong, if anything, for a warning:
   * the results are shown all the same.
   */
  finish(order: string[], outcome: string): string | undefined {
    if (this.finished) return undefined
    this.finished = true
    const ordered = new Map<string, Record<string, string>>()
    for (const key of order) {
      const row = this.rows.get(key)
      if (row) ordered.set(key, row)
    }
    // Stryker disable next-line ConditionalExpression: setting a key again to the same row keeps its place
    for (const [key, row] of this.rows) if (!ordered.has(key)) ordered.set(key, row)
    const counts: Record<string, number> = {}
    for (const row of ordered.values()) counts[row.status] = (counts[row.status] ?? 0) + 1
    try {
      fs.closeSync(this.fd)
    } catch {}
    try {
      writePrivateAtomic(this.file, this.bom + reportText(this.spec, [...ordered.values()]))
      writeMeta(this.file, { ...this.meta, finished_at: new Date().toISOString(), outcome, counts })
      return undefined
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
      return (
        `Could not write the report ${this.file} (${reason}): it holds at most the rows written before, and no closing mark. ` +
        'The results above are complete.'
      )
    }
  }
}

const rowLine = (spec: ReportSpec, row: Record<string, string>) =>
  csvLine(spec.columns.map((column) => toSpreadsheet(row[column] ?? '')))

const reportText = (spec: ReportSpec, rows: Record<string, string>[]) =>
  csvLine(spec.columns) + rows.map((row) => rowLine(spec, row)).join('')

const reportExists = (file: string) =>
  usageError(
    `--report: ${file} exists already.`,
    'Pass --append to add this run to it, or --force to replace it (or resume it with --resume).',
  )

function unsafe(flag: string, error: unknown): PayError {
  // Stryker disable next-line ConditionalExpression: every caller passes an UnsafeFileError (checkPrivatePath throws no other)
  if (!(error instanceof UnsafeFileError)) throw error
  return usageError(
    `${flag}: ${error.message}.`,
    error.reason === 'symlink'
      ? 'Nothing was written. Give the path of the file itself.'
      : error.reason === 'hard-link' || error.reason === 'not-yours'
        ? 'Nothing was written to it. Give the path of a file of your own that nothing else links to, or a new one.'
        : undefined,
  )
}

/** The report at `file` to add to (--append), when there is one: it must be of the same kind. */
function existingReport(file: string, spec: ReportSpec): ReadReport | undefined {
  if (!fs.existsSync(file)) return undefined
  const report = readReport(file, '--report')
  const command = report.meta?.command ?? report.heading?.command
  if (!report.columns.includes(spec.key) || (command !== undefined && command !== spec.command)) {
    throw usageError(`--report: ${file} is not a report of this command (its columns differ).`)
  }
  return report
}

/**
 * The last row of each key, in the order keys first appear, brought to this format: `at` as
 * `YYYY-MM-DD HH:MM:SS` (reports of an earlier pay wrote ISO 8601).
 */
export function lastRows(report: ReadReport, key: string): Map<string, Record<string, string>> {
  const rows = new Map<string, Record<string, string>>()
  for (const row of report.rows) {
    const name = row.values[key]
    if (!name) continue
    const at = row.values.at
    // Stryker disable next-line StringLiteral: no text in place of a missing `at` is an ISO time
    const values = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(at ?? '')
      ? { ...row.values, at: reportTime(new Date(at)) }
      : row.values
    rows.set(name, values)
  }
  return rows
}

/** --report (with --append or --force) and --resume, as the bulk workflows take them. */
export function reportOptions(flags: {
  report?: string
  append?: boolean
  force?: boolean
  resume?: string
  bom?: boolean
}) {
  if (flags.force && flags.report === undefined && flags.resume === undefined) {
    throw usageError('--force goes with --report (replace it) or --resume (resume it elsewhere).')
  }
  const mode: ReportMode = flags.append ? 'append' : flags.force ? 'replace' : 'new'
  return {
    report: flags.report === undefined ? undefined : { file: flags.report, mode, bom: flags.bom },
    resume:
      flags.resume === undefined
        ? undefined
        : {
            file: flags.resume,
            report: readReport(flags.resume, '--resume'),
            force: Boolean(flags.force),
            bom: flags.bom,
          },
  }
}

/** The header row of a report pay writes: `id` or `line` first, with `ok` and `status`. */
export function looksLikeReport(text: string): boolean {
  // Stryker disable next-line ArrayDeclaration: any first cell of no row is neither id nor line
  const first = parseCsvSafely(text)[0]?.cells ?? []
  return first[0] === 'id' || first[0] === 'line' ? first.includes('status') && first.includes('ok') : false
}

/** Reads a report for --resume or --report --append; `flag` names where it came from in errors. */
export function readReport(file: string, flag: string): ReadReport {
  let text: string
  try {
    // Stryker disable next-line StringLiteral: check() treats every mode but new alike
    Report.check({ file, mode: 'append' }, flag)
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    if (error instanceof PayError) throw error
    const code = (error as NodeJS.ErrnoException).code
    throw usageError(
      `${flag}: cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}.`,
    )
  }
  return { ...reportFrom(text, file, flag), meta: readMeta(file, flag) }
}

/**
 * A report's text read back. Reports of this pay start with their header and prefix formula-like
 * cells with `'` (removed here); those of an earlier pay start with `# …` lines naming each run
 * (the last one is kept as the heading) and were written as is.
 */
export function reportFrom(text: string, file: string, flag: string): ReadReport {
  if (!looksLikeReport(text)) {
    throw usageError(`${flag}: ${file} is not a report pay wrote (no id,ok,status header).`)
  }
  // Stryker disable next-line Regex: removing a mark elsewhere does not change how the text starts
  const legacy = text.replace(/^\uFEFF/, '').startsWith('#')
  const [header, ...rows] = parseCsvSafely(text)
  const cell = legacy ? (value: string) => value : fromSpreadsheet
  return {
    file,
    columns: header.cells,
    rows: rows.map((row) => ({
      line: row.line,
      values: Object.fromEntries(header.cells.map((column, i) => [column, cell(row.cells[i] ?? '')])),
    })),
    heading: legacy ? lastHeading(text) : undefined,
    bom: text.startsWith(BOM),
  }
}

/** `# pay subs cancel · profile live · base URL https://… · started …`, as an earlier pay wrote it. */
function lastHeading(text: string): ReadReport['heading'] {
  let heading: ReadReport['heading']
  for (const line of text.split('\n')) {
    const match = /^# (.+?) · profile (.+?) · base URL (.+?) · started \S+\r?$/.exec(line)
    if (match) heading = { command: match[1].replace(/ --resume$/, ''), profile: match[2], baseUrl: match[3] }
  }
  return heading
}

function parseCsvSafely(text: string) {
  try {
    return parseCsv(text)
  } catch (error) {
    throw usageError(`Not a readable CSV file: ${(error as Error).message}.`)
  }
}
