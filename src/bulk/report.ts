import fs from 'node:fs'
import { PayError, usageError } from '../errors.js'
import { csvLine, parseCsv } from './csv.js'

/** How --report treats a file that exists: refuse it, add to it (--append), replace it (--force). */
export type ReportMode = 'new' | 'append' | 'replace'

/** What a report's first comment line says about its run. */
export interface RunHeading {
  command: string
  profile: string
  baseUrl: string
}

/**
 * A --report CSV: a comment line naming the run (command, profile, base URL, start time), a
 * header, then one line per result written (unbuffered) the moment it is known, so a run that
 * is killed still leaves a line for everything it finished. An existing file is never
 * overwritten silently: it is refused unless the run appends to it or replaces it on purpose.
 */
export class CsvReport {
  private readonly fd: number

  private constructor(
    readonly file: string,
    private readonly columns: string[],
    fd: number,
  ) {
    this.fd = fd
  }

  /** Refuses, before anything is planned or sent, a --report file that exists (without --append/--force). */
  static checkFree(target: { file: string; mode: ReportMode } | undefined): void {
    if (target?.mode === 'new' && fs.existsSync(target.file)) throw reportExists(target.file)
  }

  static open(file: string, columns: string[], mode: ReportMode, run: RunHeading): CsvReport {
    let existing: string | undefined
    if (mode === 'append') existing = readIfThere(file)
    let fd: number
    try {
      fd = fs.openSync(file, mode === 'new' ? 'wx' : mode === 'append' ? 'a' : 'w', 0o644)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw reportExists(file)
      throw new PayError(`--report: cannot write ${file}: ${(error as Error).message}`, { kind: 'usage' })
    }
    const report = new CsvReport(file, columns, fd)
    if (existing !== undefined && existing.trim() !== '') {
      const header = parseCsv(existing)[0]?.cells ?? []
      if (header.join(',') !== columns.join(',')) {
        fs.closeSync(fd)
        throw usageError(`--report: ${file} is not a report of this command (its columns differ).`)
      }
      report.raw(`# ${describeRun(run)}\n`)
    } else {
      report.raw(`# ${describeRun(run)}\n`)
      report.raw(csvLine(columns))
    }
    return report
  }

  /** One result: the values of the columns, by name (missing ones empty). */
  write(values: Record<string, string | undefined>): void {
    this.raw(csvLine(this.columns.map((column) => values[column] ?? '')))
  }

  close(): void {
    fs.closeSync(this.fd)
  }

  private raw(text: string): void {
    fs.writeSync(this.fd, text)
  }
}

const reportExists = (file: string) =>
  usageError(
    `--report: ${file} exists already.`,
    'Pass --append to add this run to it, or --force to replace it (or resume it with --resume).',
  )

const describeRun = (run: RunHeading) =>
  `${run.command} · profile ${run.profile} · base URL ${run.baseUrl} · started ${new Date().toISOString()}`

function readIfThere(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new PayError(`--report: cannot read ${file}: ${(error as Error).message}`, { kind: 'usage' })
  }
}

/** --report (with --append or --force) and --resume, as the bulk workflows take them. */
export function reportOptions(flags: {
  report?: string
  append?: boolean
  force?: boolean
  resume?: string
}) {
  const mode: ReportMode = flags.append ? 'append' : flags.force ? 'replace' : 'new'
  return {
    report: flags.report === undefined ? undefined : { file: flags.report, mode },
    resume:
      flags.resume === undefined
        ? undefined
        : { file: flags.resume, report: readReport(flags.resume, '--resume') },
  }
}

/** A report pay wrote, read back: its rows as column -> value, in file order. */
export interface ReadReport {
  columns: string[]
  rows: { line: number; values: Record<string, string> }[]
}

/** The header row of a report pay writes: it always starts with these columns. */
export function looksLikeReport(text: string): boolean {
  const first = parseCsvSafely(text)[0]?.cells ?? []
  return first[0] === 'id' || first[0] === 'line' ? first.includes('status') && first.includes('ok') : false
}

/** Reads a report for --resume or --from-file; `flag` names where it came from in errors. */
export function readReport(file: string, flag: string): ReadReport {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw usageError(
      `${flag}: cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}.`,
    )
  }
  return reportFrom(text, file, flag)
}

export function reportFrom(text: string, file: string, flag: string): ReadReport {
  if (!looksLikeReport(text)) {
    throw usageError(`${flag}: ${file} is not a report pay wrote (no id,ok,status header).`)
  }
  const [header, ...rows] = parseCsvSafely(text)
  return {
    columns: header.cells,
    rows: rows.map((row) => ({
      line: row.line,
      values: Object.fromEntries(header.cells.map((column, i) => [column, row.cells[i] ?? ''])),
    })),
  }
}

function parseCsvSafely(text: string) {
  try {
    return parseCsv(text)
  } catch (error) {
    throw usageError(`Not a readable CSV file: ${(error as Error).message}.`)
  }
}
