import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CsvReport, readReport } from '../../../src/bulk/report.js'
import { PayError } from '../../../src/errors.js'
import { tempDir } from '../../helpers/cli.js'

const RUN = { command: 'pay subs cancel', profile: 'live', baseUrl: 'https://pay.example' }
const COLUMNS = ['id', 'ok', 'status', 'error']

function refusal(run: () => unknown): PayError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(PayError)
    return error as PayError
  }
  throw new Error('expected a refusal')
}

describe('CsvReport', () => {
  it('starts with a comment naming the run, then the header, then a line per result', () => {
    const file = path.join(tempDir(), 'report.csv')
    const report = CsvReport.open(file, COLUMNS, 'new', RUN)
    report.write({ id: 'a', ok: 'true', status: 'cancelled' })
    report.write({ id: 'b', ok: 'false', status: 'failed', error: 'Server Error, "busy"' })
    report.close()
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    expect(lines[0]).toMatch(
      /^# pay subs cancel · profile live · base URL https:\/\/pay\.example · started \d{4}-\d{2}-\d{2}T/,
    )
    expect(lines.slice(1)).toEqual([
      'id,ok,status,error',
      'a,true,cancelled,',
      'b,false,failed,"Server Error, ""busy"""',
      '',
    ])
  })

  it('never overwrites a file silently: refused, unless --append adds to it or --force replaces it', () => {
    const file = path.join(tempDir(), 'report.csv')
    CsvReport.open(file, COLUMNS, 'new', RUN).close()
    const before = fs.readFileSync(file, 'utf8')
    const error = refusal(() => CsvReport.open(file, COLUMNS, 'new', RUN))
    expect([error.message, error.hint, error.exitCode]).toEqual([
      `--report: ${file} exists already.`,
      'Pass --append to add this run to it, or --force to replace it (or resume it with --resume).',
      2,
    ])
    expect(refusal(() => CsvReport.checkFree({ file, mode: 'new' })).exitCode).toBe(2)
    expect(fs.readFileSync(file, 'utf8')).toBe(before)

    const appended = CsvReport.open(file, COLUMNS, 'append', RUN)
    appended.write({ id: 'c', ok: 'true', status: 'cancelled' })
    appended.close()
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n')
    expect(lines.filter((line) => line === 'id,ok,status,error')).toHaveLength(1)
    expect(lines.filter((line) => line.startsWith('# '))).toHaveLength(2)
    expect(lines.at(-1)).toBe('c,true,cancelled,')

    CsvReport.open(file, COLUMNS, 'replace', RUN).close()
    expect(fs.readFileSync(file, 'utf8').split('\n').slice(1)).toEqual(['id,ok,status,error', ''])
  })

  it('refuses to append to a report of another command (other columns)', () => {
    const file = path.join(tempDir(), 'report.csv')
    fs.writeFileSync(file, 'line,ok,status,_id\n2,true,created,x\n')
    expect(refusal(() => CsvReport.open(file, COLUMNS, 'append', RUN)).message).toBe(
      `--report: ${file} is not a report of this command (its columns differ).`,
    )
  })
})

describe('readReport', () => {
  it('reads a report back, column by column, comments left out', () => {
    const file = path.join(tempDir(), 'report.csv')
    fs.writeFileSync(file, '# run 1\nid,ok,status,error\na,true,cancelled,\n# run 2\nb,false,failed,"x, y"\n')
    expect(readReport(file, '--resume').rows).toEqual([
      { line: 3, values: { id: 'a', ok: 'true', status: 'cancelled', error: '' } },
      { line: 5, values: { id: 'b', ok: 'false', status: 'failed', error: 'x, y' } },
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
