import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fromSpreadsheet, toSpreadsheet } from '../../../src/bulk/csv.js'
import { metaFile } from '../../../src/bulk/meta.js'
import {
  lastRows,
  Report,
  readReport,
  reportFrom,
  reportOptions,
  reportTime,
} from '../../../src/bulk/report.js'
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

afterEach(() => {
  vi.restoreAllMocks()
})

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

  it('finishes once: a second finish (Ctrl-C while the run ends) changes nothing, and the file is closed', () => {
    const file = path.join(tempDir(), 'report.csv')
    const report = Report.open({ file, mode: 'new' }, SPEC, RUN)
    report.write({ id: 'b', ok: 'true', status: 'cancelled' })
    report.write({ id: 'a', ok: 'false', status: 'failed' })
    expect(report.finish(['a', 'b'], 'partial')).toBeUndefined()
    const [text, closing] = [read(file), meta(file)]
    expect(report.finish(['b', 'a'], 'interrupted')).toBeUndefined()
    expect([read(file), meta(file)]).toEqual([text, closing])
    expect(closing).toMatchObject({ outcome: 'partial', counts: { cancelled: 1, failed: 1 } })
    expect(() => fs.fstatSync((report as unknown as { fd: number }).fd)).toThrow(/EBADF/)
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
      '\nx',
      '\r\n=1+1',
      '\uFF1D1+1',
      '\uFF0B1',
      '\uFF0D2',
      '\uFF20SUM(A1)',
      "'\uFF1Dx",
    ]
    const report = Report.open({ file, mode: 'new' }, SPEC, RUN)
    hostile.forEach((value, i) => {
      report.write({ id: `i${i}`, ok: 'true', status: 'cancelled', error: value })
    })
    report.finish([], 'done')
    const text = read(file)
    expect(text.slice(text.indexOf('\n') + 1).split(/\n(?=i\d+,)/)).toEqual([
      `i0,true,cancelled,"'=HYPERLINK(""http://evil"")"`,
      "i1,true,cancelled,'+1",
      "i2,true,cancelled,'-2",
      "i3,true,cancelled,'@SUM(A1)",
      "i4,true,cancelled,'\tx",
      `i5,true,cancelled,"'\rx"`,
      "i6,true,cancelled,''=x",
      "i7,true,cancelled,'plain",
      'i8,true,cancelled,2026-1',
      `i9,true,cancelled,"'\nx"`,
      `i10,true,cancelled,"'\r\n=1+1"`,
      "i11,true,cancelled,'\uFF1D1+1",
      "i12,true,cancelled,'\uFF0B1",
      "i13,true,cancelled,'\uFF0D2",
      "i14,true,cancelled,'\uFF20SUM(A1)",
      "i15,true,cancelled,''\uFF1Dx\n",
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

  it('--append: the earlier rows are in the file from the moment it opens, so a run killed before its end loses none', () => {
    const file = path.join(tempDir(), 'report.csv')
    const first = Report.open({ file, mode: 'new' }, SPEC, RUN)
    first.write({ id: 'a', ok: 'false', status: 'failed', error: 'x' })
    first.write({ id: 'b', ok: 'true', status: 'cancelled' })
    first.finish(['a', 'b'], 'done')

    const appended = Report.open({ file, mode: 'append' }, SPEC, RUN)
    expect(read(file)).toBe('id,ok,status,error\na,false,failed,x\nb,true,cancelled,\n')
    appended.write({ id: 'c', ok: 'true', status: 'cancelled' })
    appended.write({ id: 'a', ok: 'true', status: 'cancelled' })
    // Abandoned here, as kill -9 would leave it: no finish(), no closing mark.
    expect(read(file)).toBe(
      'id,ok,status,error\na,false,failed,x\nb,true,cancelled,\nc,true,cancelled,\na,true,cancelled,\n',
    )
    expect(meta(file).finished_at).toBeUndefined()
    expect([...lastRows(readReport(file, '--resume'), 'id').values()]).toEqual([
      { id: 'a', ok: 'true', status: 'cancelled', error: '' },
      { id: 'b', ok: 'true', status: 'cancelled', error: '' },
      { id: 'c', ok: 'true', status: 'cancelled', error: '' },
    ])
    expect(mode(file)).toBe(0o600)
  })

  it('--append to a report of an earlier pay: rewritten at open in this format, its rows kept', () => {
    const file = path.join(tempDir(), 'report.csv')
    fs.copyFileSync(path.join(FIXTURES, 'report-0.1-cancel.csv'), file)
    const spec = { ...SPEC, columns: ['id', 'ok', 'status', 'error', 'at', 'email', 'package'] }
    Report.open({ file, mode: 'append' }, spec, RUN)
    const text = read(file)
    expect(text.split('\n')[0]).toBe('id,ok,status,error,at,email,package')
    expect(text).not.toContain('#')
    expect(readReport(file, '--resume').rows.map((row) => [row.values.id, row.values.at])).toEqual([
      ['6b0592fedcb6df10059bb424', '2026-11-24 13:37:03'],
      ['ffffffffffffffffffffff01', '2026-11-24 13:37:03'],
      ['6b0592fedcb6df10059bb425', '2026-11-24 13:37:03'],
    ])
  })

  it('--append to a file that is not there yet starts it', () => {
    const file = path.join(tempDir(), 'report.csv')
    Report.open({ file, mode: 'append' }, SPEC, RUN).write({ id: 'a', ok: 'true', status: 'cancelled' })
    expect(read(file)).toBe('id,ok,status,error\na,true,cancelled,\n')
  })

  it('--append to a bare report (no meta, no heading): kept, a column it lacks left empty', () => {
    const file = path.join(tempDir(), 'report.csv')
    fs.writeFileSync(file, 'id,ok,status\na,true,cancelled\n')
    Report.open({ file, mode: 'append' }, SPEC, RUN)
    expect(read(file)).toBe('id,ok,status,error\na,true,cancelled,\n')
  })

  it('--append to a file that is no report: refused under --report', () => {
    const file = path.join(tempDir(), 'ids.txt')
    fs.writeFileSync(file, 'abc\ndef\n')
    expect(refusal(() => Report.open({ file, mode: 'append' }, SPEC, RUN)).message).toBe(
      `--report: ${file} is not a report pay wrote (no id,ok,status header).`,
    )
    expect(read(file)).toBe('abc\ndef\n')
  })

  it('a report made by another process between the check and the open is refused, not overwritten', () => {
    const file = path.join(tempDir(), 'report.csv')
    fs.writeFileSync(file, 'theirs\n')
    // The check saw nothing there: the open itself (O_EXCL) must refuse what appeared since.
    vi.spyOn(fs, 'existsSync').mockReturnValue(false)
    const error = refusal(() => Report.open({ file, mode: 'new' }, SPEC, RUN))
    expect([error.message, error.exitCode]).toEqual([`--report: ${file} exists already.`, 2])
    expect(read(file)).toBe('theirs\n')
  })

  it('--force: a link planted after the checks is replaced by the new report, never written through', () => {
    const dir = tempDir()
    const victim = path.join(dir, 'victim')
    fs.writeFileSync(victim, 'precious\n')
    const file = path.join(dir, 'report.csv')
    fs.symlinkSync(victim, file)
    const lstat = fs.lstatSync
    // The checks saw nothing there: the rename over the name must replace the link itself.
    vi.spyOn(fs, 'lstatSync').mockImplementation(((name: fs.PathLike, options?: fs.StatSyncOptions) => {
      if (name === file) throw Object.assign(new Error(`ENOENT: ${name}`), { code: 'ENOENT' })
      return lstat(name, options)
    }) as typeof fs.lstatSync)
    const report = Report.open({ file, mode: 'replace' }, SPEC, RUN)
    vi.restoreAllMocks()
    report.write({ id: 'a', ok: 'true', status: 'cancelled' })
    expect(report.finish(['a'], 'done')).toBeUndefined()
    expect(read(victim)).toBe('precious\n')
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(false)
    expect(read(file)).toBe('id,ok,status,error\na,true,cancelled,\n')
  })

  it('a report that cannot be made: a general error naming the file and why', () => {
    const file = path.join(tempDir(), 'no-such-folder', 'report.csv')
    const error = refusal(() => Report.open({ file, mode: 'new' }, SPEC, RUN))
    expect([error.kind, error.exitCode]).toEqual(['general', 1])
    expect(error.message).toMatch(
      new RegExp(`^--report: cannot write ${file}: ENOENT: no such file or directory, open '${file}'$`),
    )
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
    for (const mode of ['new', 'append', 'replace'] as const) {
      const error = refusal(() => Report.open({ file: real, mode }, SPEC, RUN))
      expect([error.message, error.hint]).toEqual([
        `--report: ${metaFile(real)} is a symbolic link (pay does not follow one).`,
        'Nothing was written. Give the path of the file itself.',
      ])
      expect(fs.existsSync(real), mode).toBe(false)
    }
    expect(read(victim)).toBe('precious\n')
    // Nor a FIFO, whose open would wait for a reader forever.
    const fifo = path.join(dir, 'fifo.csv')
    if (process.platform !== 'win32') {
      execFileSync('mkfifo', [fifo])
      const error = refusal(() => Report.open({ file: fifo, mode: 'replace' }, SPEC, RUN))
      expect([error.message, error.hint]).toEqual([`--report: ${fifo} is not a regular file.`, undefined])
    }
  })
  it('a hard link, or another owner, appearing between the rewrite and the open: refused with the way out', () => {
    const file = path.join(tempDir(), 'report.csv')
    const fstat = fs.fstatSync
    for (const [change, message] of [
      [{ nlink: 2 }, 'has another name linked to it (a hard link): what pay adds would be read there too'],
      [{ uid: (process.getuid?.() ?? 0) + 1 }, 'belongs to another user'],
    ] as const) {
      vi.spyOn(fs, 'fstatSync').mockImplementation(((fd: number) =>
        Object.assign(fstat(fd), change)) as typeof fs.fstatSync)
      const error = refusal(() => Report.open({ file, mode: 'replace' }, SPEC, RUN))
      vi.restoreAllMocks()
      expect([error.message, error.hint, error.exitCode]).toEqual([
        `--report: ${file} ${message}.`,
        'Nothing was written to it. Give the path of a file of your own that nothing else links to, or a new one.',
        2,
      ])
      expect(fs.existsSync(metaFile(file))).toBe(false)
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

describe('--bom: a UTF-8 byte-order mark first, for Excel', () => {
  const BOM = '\uFEFF'
  it('a new report starts with the mark from its first row to its end, and reads back the same', () => {
    const file = path.join(tempDir(), 'report.csv')
    const report = Report.open({ file, mode: 'new', bom: true }, SPEC, RUN)
    expect(read(file)).toBe(`${BOM}id,ok,status,error\n`)
    report.write({ id: 'b', ok: 'true', status: 'cancelled', error: 'Café' })
    expect(read(file)).toBe(`${BOM}id,ok,status,error\nb,true,cancelled,Café\n`)
    report.finish(['a', 'b'], 'done')
    expect(fs.readFileSync(file).subarray(0, 4)).toEqual(Buffer.from([0xef, 0xbb, 0xbf, 0x69]))
    expect(read(file)).toBe(`${BOM}id,ok,status,error\nb,true,cancelled,Café\n`)
    const back = readReport(file, '--resume')
    expect([back.bom, back.columns, back.rows]).toEqual([
      true,
      SPEC.columns,
      [{ line: 2, values: { id: 'b', ok: 'true', status: 'cancelled', error: 'Café' } }],
    ])
    expect(readReport(file, '--resume').meta?.finished_at).toBeDefined()
  })

  it('without --bom, none; a report resumed or added to keeps the mark it has; --bom or --force gives one', () => {
    const plain = path.join(tempDir(), 'plain.csv')
    Report.open({ file: plain, mode: 'new' }, SPEC, RUN).finish([], 'done')
    expect(read(plain)).toBe('id,ok,status,error\n')
    expect(readReport(plain, '--resume').bom).toBe(false)

    const marked = path.join(tempDir(), 'marked.csv')
    Report.open({ file: marked, mode: 'new', bom: true }, SPEC, RUN).finish([], 'done')
    // A --resume (or --append) without --bom: the mark stays, at open (a kill -9 after it) and at the end.
    const resumed = Report.open({ file: marked, mode: 'append' }, SPEC, RUN)
    expect(read(marked)).toBe(`${BOM}id,ok,status,error\n`)
    resumed.write({ id: 'a', ok: 'true', status: 'cancelled' })
    resumed.finish(['a'], 'done')
    expect(read(marked)).toBe(`${BOM}id,ok,status,error\na,true,cancelled,\n`)

    const added = Report.open({ file: plain, mode: 'append', bom: true }, SPEC, RUN)
    added.finish([], 'done')
    expect(read(plain)).toBe(`${BOM}id,ok,status,error\n`)
    const replaced = path.join(tempDir(), 'replaced.csv')
    fs.writeFileSync(replaced, 'old', { mode: 0o600 })
    Report.open({ file: replaced, mode: 'replace', bom: true }, SPEC, RUN).finish([], 'done')
    expect(read(replaced)).toBe(`${BOM}id,ok,status,error\n`)
    // --force without --bom: a new file, without one.
    Report.open({ file: marked, mode: 'replace' }, SPEC, RUN).finish([], 'done')
    expect(read(marked)).toBe('id,ok,status,error\n')
  })

  it('reportOptions hands --bom to the report it writes and to the one it resumes', () => {
    expect(reportOptions({ report: 'r.csv', bom: true }).report).toEqual({
      file: 'r.csv',
      mode: 'new',
      bom: true,
    })
    const file = path.join(tempDir(), 'report.csv')
    Report.open({ file, mode: 'new' }, SPEC, RUN).finish([], 'done')
    expect(reportOptions({ resume: file, bom: true }).resume).toMatchObject({ file, bom: true })
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

  it('refuses a file whose header is not that of a report, an empty one, and a quote left open', () => {
    const dir = tempDir()
    const cases: [string, string][] = [
      ['', 'is not a report pay wrote (no id,ok,status header)'],
      ['name,ok,status\nx,true,cancelled\n', 'is not a report pay wrote (no id,ok,status header)'],
      ['id,status\nx,cancelled\n', 'is not a report pay wrote (no id,ok,status header)'],
      ['line,ok\n2,true\n', 'is not a report pay wrote (no id,ok,status header)'],
    ]
    cases.forEach(([text, message], i) => {
      const file = path.join(dir, `${i}.csv`)
      fs.writeFileSync(file, text)
      expect(refusal(() => readReport(file, '--resume')).message, JSON.stringify(text)).toBe(
        `--resume: ${file} ${message}.`,
      )
    })
    const open = path.join(dir, 'open.csv')
    fs.writeFileSync(open, 'id,ok,status\n"a,true,cancelled\n')
    expect(refusal(() => readReport(open, '--resume')).message).toBe(
      'Not a readable CSV file: a quoted field opened on line 2 is never closed.',
    )
  })

  it('a file that cannot be read: the reason the system gave', () => {
    const file = path.join(tempDir(), 'report.csv')
    fs.writeFileSync(file, 'id,ok,status\n')
    vi.spyOn(fs, 'readFileSync').mockImplementation(() => {
      throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' })
    })
    expect(refusal(() => readReport(file, '--resume')).message).toBe(
      `--resume: cannot read ${file}: EIO: i/o error, read.`,
    )
  })

  it('a row shorter than the header has its last cells empty; a row without a key is no row of an id', () => {
    const back = reportFrom('id,ok,status,error\na,true\n,false,failed,x\n', 'r.csv', '--resume')
    expect(back.rows.map((row) => row.values)).toEqual([
      { id: 'a', ok: 'true', status: '', error: '' },
      { id: '', ok: 'false', status: 'failed', error: 'x' },
    ])
    expect([...lastRows(back, 'id').keys()]).toEqual(['a'])
  })

  it('brings an ISO `at` to this format, and leaves any other text as it is', () => {
    const back = reportFrom(
      'id,ok,status,at\na,true,x,2026-11-24T13:37:03.070Z\nb,true,x,since 2026-11-24T13:37:03Z\nc,true,x,\n',
      'r.csv',
      '--resume',
    )
    expect([...lastRows(back, 'id').values()].map((row) => row.at)).toEqual([
      '2026-11-24 13:37:03',
      'since 2026-11-24T13:37:03Z',
      '',
    ])
  })

  it('reads a report of an earlier pay behind a byte-order mark, and its last run resumed', () => {
    const text = fs.readFileSync(path.join(FIXTURES, 'report-0.1-cancel.csv'), 'utf8')
    const resumed = `${text}# pay subs cancel --resume · profile live · base URL https://pay.example · started 2026-11-25T08:00:00.000Z\n`
    const back = reportFrom(`\uFEFF${resumed}`, 'r.csv', '--resume')
    expect(back.heading).toEqual({
      command: 'pay subs cancel',
      profile: 'live',
      baseUrl: 'https://pay.example',
    })
    // Written as is by that pay: no quote prefix to remove.
    expect(back.rows[0].values.email).toBe('=HYPERLINK("http://x")@example.com')
  })
})

describe('reportOptions', () => {
  it('--report alone is a new report, with --append one to add to, with --force one to replace', () => {
    expect(reportOptions({})).toEqual({ report: undefined, resume: undefined })
    expect(reportOptions({ report: 'r.csv' }).report).toEqual({ file: 'r.csv', mode: 'new' })
    expect(reportOptions({ report: 'r.csv', append: true }).report).toEqual({ file: 'r.csv', mode: 'append' })
    expect(reportOptions({ report: 'r.csv', force: true }).report).toEqual({ file: 'r.csv', mode: 'replace' })
  })

  it('--resume reads its report at once; --force goes with it or with --report, not alone', () => {
    const file = path.join(tempDir(), 'report.csv')
    Report.open({ file, mode: 'new' }, SPEC, RUN).finish([], 'done')
    const options = reportOptions({ resume: file, force: true })
    expect(options.report).toBeUndefined()
    expect(options.resume).toMatchObject({ file, force: true, report: { file, columns: SPEC.columns } })
    expect(reportOptions({ resume: file }).resume?.force).toBe(false)
    expect(refusal(() => reportOptions({ resume: `${file}.gone` })).message).toBe(
      `--resume: cannot read ${file}.gone: no such file.`,
    )
    const alone = refusal(() => reportOptions({ force: true }))
    expect([alone.message, alone.exitCode]).toEqual([
      '--force goes with --report (replace it) or --resume (resume it elsewhere).',
      2,
    ])
  })
})
