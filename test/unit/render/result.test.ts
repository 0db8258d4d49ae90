import { describe, expect, it } from 'vitest'
import { PayError } from '../../../src/errors.js'
import { JqProgram } from '../../../src/render/jq.js'
import { print, printsOnStdout, type Result, shown } from '../../../src/render/result.js'
import type { View } from '../../../src/render/views.js'
import { testOutput } from '../../helpers/io.js'

/**
 * The one output path (src/render/result.ts): what a command's run() returns, printed by the base
 * command in the mode asked. Each kind, in each mode that changes it, exactly.
 */

const VIEW: View = {
  noun: 'thing',
  plural: 'things',
  listColumns: ['_id', 'name'],
  recordFields: ['_id', 'name'],
}
const A = { _id: 'a1', name: 'Ann' }
const B = { _id: 'b2', name: 'Bob' }

async function printed(result: Result, options: Parameters<typeof testOutput>[0] = {}) {
  const { io, out } = testOutput(options)
  const error = await print(out, result).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  return { stdout: io.stdout.text, stderr: io.stderr.text, error }
}

describe('print: what run() returned, in the mode asked', () => {
  it('a record: key<TAB>value piped, JSON with --json, its id with -q', async () => {
    expect((await printed(shown.record(A, VIEW))).stdout).toBe('_id\ta1\nname\tAnn\n')
    expect((await printed(shown.record(A, VIEW), { json: true })).stdout).toBe(
      '{\n  "_id": "a1",\n  "name": "Ann"\n}\n',
    )
    expect((await printed(shown.record(A, VIEW, { more: 1 }), { json: true })).stdout).toBe(
      '{\n  "more": 1\n}\n',
    )
    expect((await printed(shown.record(A, VIEW), { quiet: true })).stdout).toBe('a1\n')
  })

  it('a list, whole or in batches: TSV rows, one JSON array, one line each with --jsonl', async () => {
    async function* batches() {
      yield [A]
      yield [B]
    }
    expect((await printed(shown.list([A, B], VIEW))).stdout).toBe('a1\tAnn\nb2\tBob\n')
    expect((await printed(shown.list(batches(), VIEW), { jsonl: true })).stdout).toBe(
      '{"_id":"a1","name":"Ann"}\n{"_id":"b2","name":"Bob"}\n',
    )
    const limited = shown.list([A], VIEW, () => ({
      shown: 1,
      more: 'limit',
      pages: 1,
      scanned: 2,
      filtered: false,
    }))
    expect(await printed(limited)).toEqual({
      stdout: 'a1\tAnn\n',
      stderr: 'Showing the first thing: add --limit N for more.\n',
      error: undefined,
    })
  })

  it('a message: words on stderr, or its JSON on stdout with --json', async () => {
    const message = shown.message('Current profile: live', { current: 'live' })
    expect(await printed(message)).toEqual({
      stdout: '',
      stderr: 'Current profile: live\n',
      error: undefined,
    })
    expect(await printed(message, { json: true })).toEqual({
      stdout: '{\n  "current": "live"\n}\n',
      stderr: '',
      error: undefined,
    })
  })

  it('text for stdout as it is, or its JSON; either by the mode', async () => {
    expect((await printed(shown.text('https://pay.example/x', { url: 1 }))).stdout).toBe(
      'https://pay.example/x\n',
    )
    expect((await printed(shown.text('ignored', { url: 1 }), { json: true })).stdout).toBe(
      '{\n  "url": 1\n}\n',
    )
    const either: Result = { kind: 'either', json: shown.data(['j']), text: shown.note('t') }
    expect(await printed(either)).toEqual({ stdout: '', stderr: 't\n', error: undefined })
    expect((await printed(either, { json: true })).stdout).toBe('[\n  "j"\n]\n')
  })

  it('in order, nested; later runs once all before it is out; a failure is thrown last', async () => {
    const order: string[] = []
    const failure = new PayError('2 of 3 things not done.', { kind: 'partial' })
    const { stdout, stderr, error } = await printed([
      shown.list([A], VIEW),
      [shown.note('first'), undefined, shown.warn('careful')],
      shown.later(() => {
        order.push('later')
        return shown.log('last word')
      }),
      shown.fail(failure),
      shown.note('never'),
    ])
    expect(stdout).toBe('a1\tAnn\n')
    expect(stderr).toBe('first\nWarning: careful\nlast word\n')
    expect(order).toEqual(['later'])
    expect(error).toBe(failure)
  })

  it('nothing to do: [] under --json, the word on stderr in every mode', async () => {
    expect(await printed({ kind: 'nothing', message: 'Nothing to cancel.' }, { json: true })).toEqual({
      stdout: '[]\n',
      stderr: 'Nothing to cancel.\n',
      error: undefined,
    })
  })

  it('notes are silent under --json and -q; notices and warnings are not', async () => {
    const words = [shown.note('note'), shown.notice('notice'), shown.warn('warn')]
    expect((await printed(words, { quiet: true })).stderr).toBe('notice\nWarning: warn\n')
    expect((await printed(words, { json: true })).stderr).toBe('notice\nWarning: warn\n')
  })
})

describe('printsOnStdout: what print() tells of each part agrees with what reached stdout', () => {
  const MARK = '/checkout/'
  const PAGE = { _id: 'p1', name: 'Pam', url: 'http://127.0.0.1:4010/checkout/pay?id=p1' }
  const PAGES: View = { ...VIEW, recordFields: ['_id', 'name', 'url'] }
  const batches = async function* () {
    yield [A]
    yield [PAGE, B]
  }
  /** Each a function: a list in batches can be printed once. */
  const results: [string, () => Result][] = [
    ['a record', () => shown.record(PAGE, PAGES)],
    ['a record without the address', () => shown.record(A, PAGES)],
    ['a list', () => shown.list([A, PAGE], PAGES)],
    ['a list in batches', () => shown.list(batches(), PAGES)],
    [
      'records of a record',
      () => [shown.record(A, VIEW), shown.related('Pages', [PAGE], { ...VIEW, listColumns: ['url'] })],
    ],
    ['a URL as text', () => shown.text(PAGE.url, { payment_url: PAGE.url })],
    ['a message', () => shown.message(`Wrote ${PAGE.url}.`, { ok: true })],
    ['a document', () => ({ kind: 'document', value: { data: PAGE } })],
    ['one of two by mode', () => ({ kind: 'either', json: shown.data(PAGE), text: shown.note(PAGE.url) })],
    ['later', () => shown.later(() => shown.record(PAGE, PAGES))],
  ]
  const modes: [string, () => Promise<Parameters<typeof testOutput>[0]>][] = [
    ['piped', async () => ({})],
    ['on a terminal', async () => ({ terminal: true, width: 200 })],
    ['--json', async () => ({ json: true })],
    ['--jsonl', async () => ({ jsonl: true })],
    ['-q', async () => ({ quiet: true })],
    ['--columns _id,name', async () => ({ columns: ['_id', 'name'] })],
    ['--columns url', async () => ({ columns: ['url'] })],
    ['--jq .url', async () => ({ jq: await JqProgram.compile('.. | .url? // empty', process.env) })],
    ['--jq ._id', async () => ({ jq: await JqProgram.compile('.. | ._id? // empty', process.env) })],
  ]

  it.each(modes)('%s', async (_, mode) => {
    const options = await mode()
    const seen: string[] = []
    for (const [name, result] of results) {
      const { io, out } = testOutput(options)
      let told = false
      // A column a record lacks is refused as it is printed: then nothing was told, nor printed.
      await print(out, result(), (item, records) => {
        told ||= printsOnStdout(out, item, MARK, records)
      }).catch(() => undefined)
      seen.push(
        `${name}: ${told === io.stdout.text.includes(MARK) ? 'agrees' : `told ${told}, printed ${io.stdout.text}`}`,
      )
    }
    expect(seen).toEqual(results.map(([name]) => `${name}: agrees`))
  })

  it('is told once a list in batches is printed whole, and each batch as it comes with --jsonl', async () => {
    const told: number[] = []
    for (const options of [{}, { jsonl: true }]) {
      const { out } = testOutput(options)
      await print(out, shown.list(batches(), PAGES), (_, records) => told.push(records?.length ?? -1))
    }
    expect(told).toEqual([3, 1, 2])
  })
})

describe('a bulk run stopped half-way', () => {
  const ROW_VIEW: View = {
    noun: 'row',
    plural: 'rows',
    listColumns: ['line', 'status', 'error'],
    recordFields: [],
  }
  const row = (line: number, status: string) => ({
    line,
    ok: status === 'created',
    status,
    error: status === 'not_done' ? 'Not attempted: the run stopped before it.' : null,
  })
  const rows = [row(2, 'created'), ...[3, 4, 5, 6, 7, 8].map((line) => row(line, 'not_done'))]

  it('a table on a terminal folds the rows never attempted into one; TSV and --json keep each', async () => {
    const outcome = { rows, rowsView: ROW_VIEW }
    const screen = await printed(shown.bulk(outcome), { terminal: true, colour: false, width: 120 })
    expect(screen.stdout).toBe(
      'LINE      STATUS    ERROR\n' +
        '2         created\n' +
        '(6 rows)  not_done  Not attempted: the run stopped before them (--json and the report list each).\n',
    )
    expect((await printed(shown.bulk(outcome))).stdout.split('\n')).toHaveLength(8)
    expect(JSON.parse((await printed(shown.bulk(outcome), { json: true })).stdout)).toEqual(rows)
  })

  it('up to five never attempted are shown each, by id', async () => {
    const results = [4, 5, 6, 7, 8].map((n) => ({
      id: `id${n}`,
      ok: false,
      status: 'not_done',
      error: 'Not attempted.',
    }))
    const screen = await printed(shown.bulk({ rows: results }), { terminal: true, colour: false, width: 80 })
    expect(screen.stdout.trimEnd().split('\n')).toEqual([
      'ID   RESULT    ERROR',
      ...results.map((r) => `${r.id}  not_done  Not attempted.`),
    ])
  })
})
