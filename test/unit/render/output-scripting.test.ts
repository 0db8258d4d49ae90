import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { RawResponse } from '../../../src/api/transport.js'
import { PayError } from '../../../src/errors.js'
import { JqProgram } from '../../../src/render/jq.js'
import { Output } from '../../../src/render/output.js'
import { LINK_VIEW } from '../../../src/work/links/view.js'
import { TestIO, testOutput } from '../../helpers/io.js'

const LINKS = [
  { _id: 'a1', title: 'Invoice 1', amount: 25.5, currency: 'EUR', paid: false, status: 'Active' },
  { _id: 'b2', title: 'C1 \u0085 and tab\t', amount: 10, currency: 'USD', paid: true, status: 'Active' },
]

/** Batches as a list command's walk yields them, noting when each one is asked for. */
function batchesOf(batches: Record<string, unknown>[][], asked: string[], out: { stdout: { text: string } }) {
  return (async function* () {
    for (const [index, batch] of batches.entries()) {
      asked.push(`batch ${index + 1} asked, ${out.stdout.text.split('\n').length - 1} lines out`)
      yield batch
    }
  })()
}

describe('--jq', () => {
  it('runs over exactly what --json prints: one record, a list, bulk results', async () => {
    const jq = await JqProgram.compile(
      'if type == "array" then map(._id // .id) | join(",") else .title end',
      process.env,
    )
    const { io, out } = testOutput({ jq })
    out.record(LINKS[0], LINK_VIEW)
    out.list(LINKS, LINK_VIEW)
    out.bulk([{ id: 'x9', ok: true, status: 'deleted', error: null }])
    out.nothingToDo('Nothing to cancel.')
    expect(io.stdout.text).toBe('Invoice 1\na1,b2\nx9\n\n')
    expect(io.stderr.text).toBe('Nothing to cancel.\n')
  })

  it('implies --json, for errors too: a script reading JSON gets its error as JSON on stderr', async () => {
    const jq = await JqProgram.compile('.', process.env)
    const alone = testOutput({ jq })
    expect(alone.out.json).toBe(true)
    alone.out.note('not shown under --jq')
    alone.out.error(new PayError('Not found.', { kind: 'not_found', status: 404 }))
    expect(alone.io.stderr.text).toBe(
      '{"error":{"status":404,"kind":"not_found","exit_code":5,"message":"Not found."}}\n',
    )
    const json = testOutput({ jq, json: true })
    json.out.error(new PayError('Not found.', { kind: 'not_found', status: 404 }))
    expect(json.io.stderr.text).toBe(alone.io.stderr.text)
    // --jsonl alone prints data as JSON lines; its errors stay plain.
    const lines = testOutput({ jsonl: true })
    lines.out.error(new PayError('Not found.', { kind: 'not_found', status: 404 }))
    expect(lines.io.stderr.text).toBe('Error: Not found.\n')
  })

  it('a runtime error: what jq printed first is written, then the usage error is thrown', async () => {
    const jq = await JqProgram.compile('.[] | .amount / (.amount - 10)', process.env)
    const { io, out } = testOutput({ jq })
    expect(() => out.list(LINKS, LINK_VIEW)).toThrow(
      "--jq '.[] | .amount / (.amount - 10)': number (10) and number (0) cannot be divided because the divisor is zero",
    )
    expect(io.stdout.text).toBe('1.6451612903225807\n')
  })
})

describe('--jsonl', () => {
  it('prints one record per line, compact, C1 controls escaped', () => {
    const { io, out } = testOutput({ jsonl: true })
    out.list(LINKS, LINK_VIEW)
    expect(io.stdout.text).toBe(
      '{"_id":"a1","title":"Invoice 1","amount":25.5,"currency":"EUR","paid":false,"status":"Active"}\n' +
        '{"_id":"b2","title":"C1 \\u0085 and tab\\t","amount":10,"currency":"USD","paid":true,"status":"Active"}\n',
    )
  })

  it('prints each batch before the next one is asked for; with --jq the expression runs on each record', async () => {
    const jq = await JqProgram.compile('select(.paid | not) | ._id', process.env)
    for (const [options, expected] of [
      [{ jsonl: true }, 4],
      [{ jsonl: true, jq }, 2],
    ] as const) {
      const { io, out } = testOutput(options)
      const asked: string[] = []
      await out.listFrom(batchesOf([LINKS, LINKS], asked, io), LINK_VIEW)
      expect(asked).toEqual(['batch 1 asked, 0 lines out', `batch 2 asked, ${expected / 2} lines out`])
      expect(io.stdout.text.split('\n')).toHaveLength(expected + 1)
    }
  })

  it('waits for a slow reader to drain before asking for the next batch', async () => {
    let pending = 0
    const written: string[] = []
    // A pipe that takes a write only after a while, and refuses more once 10 bytes wait.
    const slow = new Writable({
      highWaterMark: 10,
      write(chunk, _, done) {
        pending += 1
        setTimeout(() => {
          written.push(String(chunk))
          pending -= 1
          done()
        }, 5)
      },
    })
    const io = Object.assign(new TestIO(), { stdout: slow })
    const out = new Output(io, { jsonl: true })
    const asked: number[] = []
    await out.listFrom(
      (async function* () {
        for (let i = 0; i < 3; i += 1) {
          asked.push(pending)
          yield LINKS
        }
      })(),
      LINK_VIEW,
    )
    // Every batch after the first was asked for with nothing left waiting to be written.
    expect(asked).toEqual([0, 0, 0])
    await new Promise((resolve) => slow.end(resolve))
    expect(written.join('').split('\n')).toHaveLength(7)
  })

  it('without --jsonl the batches make one list, printed whole', async () => {
    const { io, out } = testOutput({ json: true })
    await out.listFrom(batchesOf([[LINKS[0]], [LINKS[1]]], [], io), LINK_VIEW)
    expect(JSON.parse(io.stdout.text)).toEqual(LINKS)
  })
})

describe('pay api output', () => {
  const body = { data: { _id: 'a1', title: 'ESC \u001b and C1 \u0085' } }

  it('a document is pretty on a terminal and compact when piped; --jq over it', async () => {
    const piped = testOutput()
    piped.out.document(body)
    expect(piped.io.stdout.text).toBe('{"data":{"_id":"a1","title":"ESC \\u001b and C1 \\u0085"}}\n')
    const terminal = testOutput({ terminal: true })
    terminal.out.document(body)
    expect(terminal.io.stdout.text).toBe(
      '{\n  "data": {\n    "_id": "a1",\n    "title": "ESC \\u001b and C1 \\u0085"\n  }\n}\n',
    )
    const jq = testOutput({ jq: await JqProgram.compile('.data.title', process.env) })
    jq.out.document(body)
    expect(jq.io.stdout.text).toBe('ESC ^[ and C1 M-^E\n')
  })

  it('-i: the status line and headers on stderr, sanitised', () => {
    const { io, out } = testOutput()
    const response: RawResponse = {
      status: 404,
      statusMessage: 'Not Found',
      httpVersion: '1.1',
      headers: [
        ['Content-Type', 'application/json'],
        ['X-Odd', 'bell \u0007'],
      ],
      text: '{}',
    }
    out.responseHead(response)
    expect(io.stdout.text).toBe('')
    expect(io.stderr.text).toBe('HTTP/1.1 404 Not Found\nContent-Type: application/json\nX-Odd: bell ^G\n\n')
  })
})
