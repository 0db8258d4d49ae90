import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { fromSpreadsheet, toSpreadsheet } from '../../../src/bulk/csv.js'
import { metaFile } from '../../../src/bulk/meta.js'
import { lastRows, Report, readReport, reportTime } from '../../../src/bulk/report.js'
import { PayError } from '../../../src/errors.js'
import { ROOT, tempDir } from '../../helpers/cli.js'

const TARGET = { profile: 'live', baseUrl: 'https://pay.example' }
const INPUT = { source: '--from-file ids.txt', count: 3, sha256: 'abc' }
const RUN = { target: TARGET, input: INPUT }
const SPEC = { command: 'pay subs cancel', columns: ['id', 'ok', 'status', 'error'], key: 'id' as const }
const FIXTURES = path.join(ROOT, 'test/fixtures')

function refusal(run: () => unknown): PayError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(PayError)
    return error as PayError
  }
  throw new Error('expected a refusal')
}

const read = (file: string) => fs.readFileSync(file, 'utf8')
const meta = (file: string) => JSON.parse(read(metaFile(file)))
const mode = (file: string) => fs.statSync(file).mode & 0o777

describe('Report', () => {
  it('row 1 is the header; a row per result as it comes; one row per id, in input order, once finished', () => {
    const file = path.join(tempDir(), 'report.csv')
    const report = Report.open({ file, mode: 'new' }, SPEC, RUN)
    report.write({ id: 'b', ok: 'false', status: 'failed', error: 'Server Error, "busy"' })
    report.write({ id: 'a', ok: 'true', status: 'cancelled' })
    // While the run works, every result is in the file already (a kill -9 keeps them).
    expect(read(file)).toBe(
      'id,ok,status,error\nb,false,failed,"Server Error, ""busy"""\na,true,cancelled,\n',
    )
    expect(meta(file)).toEqual({
      format: 'pay-report/2',
      command: 'pay subs cancel',
      profile: 'live',
      base_url: 'https://pay.example',
      input: INPUT,
      started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    })
    report.write({ id: 'b', ok: 'true', status: 'cancelled' })
    report.finish(['a', 'b', 'c'], 'done')
    expect(read(file)).toBe('id,ok,status,error\na,true,cancelled,\nb,true,cancelled,\n')
    expect(meta(file)).toMatchObject({
      finished_at: expect.stringMatching(/Z$/),
      outcome: 'done',
      counts: { cancelled: 2 },
    })
    expect([mode(file), mode(metaFile(file))]).toEqual([0o600, 0o600])
  })

  it('a write that fails never stops the run: the report is written whole at its end', () => {
    const file = path.join(tempDir(), 'report.csv')
    const report = Report.open({ file, mode: 'new' }, SPEC, RUN)
    report.write({ id: 'a', ok: 'true', status: 'cancelled' })
    // The file's descriptor gone bad mid-run, as a full disk or a removed mount would make it.
    fs.closeSync((report as unknown as { fd: number }).fd)
    expect(() => report.write({ id: 'b', ok: 'true', status: 'cancelled' })).not.toThrow()
    expect(report.finish(['a', 'b'], 'done')).toBeUndefined()
    expect(read(file)).toBe('id,ok,status,error\na,true,cancelled,\nb,true,cancelled,\n')
  })

  it('a report that cannot be written at the end: a warning to show, the results still shown', () => {
    const dir = tempDir()
    const file = path.join(dir, 'sub', 'report.csv')
    fs.mkdirSync(path.dirname(file))
    const report = Report.open({ file, mode: 'new' }, SPEC, RUN)
    report.write({ id: 'a', ok: 'true', status: 'cancelled' })
    // Its folder gone mid-run, a file in its place: no one, root included, can write there now.
    fs.renameSync(path.join(dir, 'sub'), path.join(dir, 'moved'))
    fs.writeFileSync(path.join(dir, 'sub'), '')
    expect(report.finish(['a'], 'done')).toBe(
      `Could not write the report ${file} (ENOTDIR): it holds at most the rows written before, and no closing mark. ` +
        'The results above are complete.',
    )
  })

  it('writes `at` as a date and time spreadsheets read (UTC)', () => {
    expect(reportTime(new Date('2026-11-24T09:00:00.123Z'))).toBe('2026-11-24 09:00:00')
  })

  it('prefixes every cell a spreadsheet would run with a quote, and reading back removes it', () => {
    const file = path.join(tempDir(), 'report.csv')
    const hostile = [
      '=HYPERLINK("http://evil")',
      '+1',
      '-2',
      '@SUM(A1)',
      '\tx',
      '\rx',
      "'=x",
      "'plain",
      '2026-1',
    ]
    const report = Report.open({ file, mode: 'new' }, SPEC, RUN)
    hostile.forEach((value, i) => {
      report.write({ id: `i${i}`, ok: 'true', status: 'cancelled', error: value })
    })
    report.finish([], 'done')
    const cells = read(file).split('\n').slice(1, -1)
    expect(cells).toEqual([
      `i0,true,cancelled,"'=HYPERLINK(""http://evil"")"`,
      "i1,true,cancelled,'+1",
      "i2,true,cancelled,'-2",
      "i3,true,cancelled,'@SUM(A1)",
      "i4,true,cancelled,'\tx",
      `i5,true,cancelled,"'\rx"`,
      "i6,true,cancelled,''=x",
      "i7,true,cancelled,'plain",
      'i8,true,cancelled,2026-1',
    ])
    expect(readReport(file, '--resume').rows.map((row) => row.values.error)).toEqual(hostile)
    for (const value of [...hostile, '', "''", "'"]) expect(fromSpreadsheet(toSpreadsheet(value))).toBe(value)
  })

  it('never overwrites a file silently: refused, unless --append adds to it or --force replaces it', () => {
    const file = path.join(tempDir(), 'report.csv')
    const first = Report.open({ file, mode: 'new' }, SPEC, RUN)
    first.write({ id: 'a', ok: 'false', status: 'failed', error: 'x' })
    first.write({ id: 'b', ok: 'true', status: 'cancelled' })
    first.finish(['a', 'b'], 'partial')
    const before = read(file)
    const error = refusal(() => Report.open({ file, mode: 'new' }, SPEC, RUN))
    expect([error.message, error.hint, error.exitCode]).toEqual([
      `--report: ${file} exists already.`,
      'Pass --append to add this run to it, or --force to replace it (or resume it with --resume).',
      2,
    ])
    expect(refusal(() => Report.check({ file, mode: 'new' })).exitCode).toBe(2)
    expect(read(file)).toBe(before)

    // --append: the earlier rows kept, a later result for the same id replacing its row.
    const appended = Report.open({ file, mode: 'append' }, SPEC, RUN)
    appended.write({ id: 'a', ok: 'true', status: 'cancelled' })
    appended.write({ id: 'c', ok: 'true', status: 'cancelled' })
    appended.finish(['a', 'c'], 'done')
    expect(read(file)).toBe('id,ok,status,error\na,true,cancelled,\nc,true,cancelled,\nb,true,cancelled,\n')

    Report.open({ file, mode: 'replace' }, SPEC, RUN).finish([], 'done')
    expect(read(file)).toBe('id,ok,status,error\n')
  })

  it('refuses to add to a report of another command', () => {
    const file = path.join(tempDir(), 'report.csv')
    fs.writeFileSync(file, 'line,ok,status,_id\n2,true,created,x\n')
    expect(refusal(() => Report.open({ file, mode: 'append' }, SPEC, RUN)).message).toBe(
      `--report: ${file} is not a report of this command (its columns differ).`,
    )
    const other = path.join(tempDir(), 'report.csv')
    Report.open({ file: other, mode: 'new' }, { ...SPEC, command: 'pay subs delete' }, RUN).finish([], 'done')
    expect(refusal(() => Report.open({ file: other, mode: 'append' }, SPEC, RUN)).exitCode).toBe(2)
  })

  it('refuses a symbolic link at the report or its meta file, in every mode, writing nothing', () => {
    const dir = tempDir()
    const victim = path.join(dir, 'victim')
    fs.writeFileSync(victim, 'precious\n')
    const file = path.join(dir, 'report.csv')
    fs.symlinkSync(victim, file)
    for (const mode of ['new', 'append', 'replace'] as const) {
      const error = refusal(() => Report.open({ file, mode }, SPEC, RUN))
      expect([error.message, error.exitCode]).toEqual([
        `--report: ${file} is a symbolic link (pay does not follow one).`,
        2,
      ])
      expect(refusal(() => Report.check({ file, mode })).exitCode).toBe(2)
    }
    expect(refusal(() => readReport(file, '--resume')).message).toBe(
      `--resume: ${file} is a symbolic link (pay does not follow one).`,
    )
    const real = path.join(dir, 'real.csv')
    fs.symlinkSync(victim, metaFile(real))
    expect(refusal(() => Report.open({ file: real, mode: 'new' }, SPEC, RUN)).message).toBe(
      `--report: ${metaFile(real)} is a symbolic link (pay does not follow one).`,
    )
    expect(fs.existsSync(real)).toBe(false)
    expect(read(victim)).toBe('precious\n')
    // Nor a FIFO, whose open would wait for a reader forever.
    const fifo = path.join(dir, 'fifo.csv')
    if (process.platform !== 'win32') {
      execFileSync('mkfifo', [fifo])
      expect(refusal(() => Report.open({ file: fifo, mode: 'replace' }, SPEC, RUN)).message).toBe(
        `--report: ${fifo} is not a regular file.`,
      )
    }
  })
  it('--force and --append never write through a hard link planted at the report: it keeps its bytes', () => {
    const dir = tempDir()
    const file = path.join(dir, 'report.csv')
    const planted = path.join(dir, 'planted.csv')
    for (const mode of ['replace', 'append'] as const) {
      const first = Report.open({ file, mode: 'new' }, SPEC, RUN)
      first.write({ id: 'a', ok: 'true', status: 'cancelled' })
      first.finish(['a'], 'done')
      fs.linkSync(file, planted)
      const before = read(planted)
      const report = Report.open({ file, mode }, SPEC, RUN)
      report.write({ id: 'b', ok: 'true', status: 'cancelled' })
      expect(report.finish(['b'], 'done')).toBeUndefined()
      expect(read(planted)).toBe(before)
      expect(fs.statSync(file).nlink).toBe(1)
      expect(read(file)).toBe(
        mode === 'replace'
          ? 'id,ok,status,error\nb,true,cancelled,\n'
          : 'id,ok,status,error\nb,true,cancelled,\na,true,cancelled,\n',
      )
      fs.rmSync(file)
      fs.rmSync(planted)
      fs.rmSync(metaFile(file))
    }
  })
})

describe('readReport', () => {
  it('reads a report back with its meta; the last row of an id is its state', () => {
    const file = path.join(tempDir(), 'report.csv')
    const report = Report.open({ file, mode: 'new' }, SPEC, RUN)
    report.write({ id: 'a', ok: 'false', status: 'failed', error: 'x, y' })
    report.write({ id: 'a', ok: 'true', status: 'cancelled' })
    const back = readReport(file, '--resume')
    expect(back.meta).toMatchObject({ command: 'pay subs cancel', input: INPUT })
    expect(back.meta?.finished_at).toBeUndefined()
    expect(back.rows).toEqual([
      { line: 2, values: { id: 'a', ok: 'false', status: 'failed', error: 'x, y' } },
      { line: 3, values: { id: 'a', ok: 'true', status: 'cancelled', error: '' } },
    ])
    expect([...lastRows(back, 'id').values()]).toEqual([
      { id: 'a', ok: 'true', status: 'cancelled', error: '' },
    ])
  })

  it('reads the format of an earlier pay: `#` lines naming the run, ISO times, no quote prefix', () => {
    const file = path.join(FIXTURES, 'report-0.1-cancel.csv')
    const back = readReport(file, '--resume')
    expect(back.meta).toBeUndefined()
    expect(back.heading).toEqual({
      command: 'pay subs cancel',
      profile: 'sandbox',
      baseUrl: 'http://127.0.0.1:4023',
    })
    expect(back.columns).toEqual(['id', 'ok', 'status', 'error', 'at', 'email', 'package'])
    const rows = [...lastRows(back, 'id').values()]
    expect(rows.map((row) => [row.id, row.status, row.at, row.email])).toEqual([
      ['6b0592fedcb6df10059bb424', 'cancelled', '2026-11-24 13:37:03', '=HYPERLINK("http://x")@example.com'],
      ['ffffffffffffffffffffff01', 'not_found', '2026-11-24 13:37:03', ''],
      ['6b0592fedcb6df10059bb425', 'cancelled', '2026-11-24 13:37:03', '=HYPERLINK("http://x")@example.com'],
    ])
    const create = readReport(path.join(FIXTURES, 'report-0.1-create.csv'), '--resume')
    expect(create.heading?.command).toBe('pay links create --from-csv')
    expect([...lastRows(create, 'line').values()].map((row) => [row.line, row.status, row.title])).toEqual([
      ['2', 'created', 'Tea'],
      ['3', 'created', '-Coffee'],
      ['4', 'sending', 'Cake'],
    ])
  })

  it('refuses a file that is no report pay wrote, and one that is not there', () => {
    const file = path.join(tempDir(), 'ids.txt')
    fs.writeFileSync(file, 'abc\ndef\n')
    expect(refusal(() => readReport(file, '--resume')).message).toBe(
      `--resume: ${file} is not a report pay wrote (no id,ok,status header).`,
    )
    expect(refusal(() => readReport(`${file}.gone`, '--resume')).message).toBe(
      `--resume: cannot read ${file}.gone: no such file.`,
    )
  })
})
