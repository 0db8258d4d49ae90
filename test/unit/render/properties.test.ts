import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { BulkResult } from '../../../src/bulk/runner.js'
import { PayError } from '../../../src/errors.js'
import { sanitizeCell } from '../../../src/render/format.js'
import type { Output } from '../../../src/render/output.js'
import type { View } from '../../../src/render/views.js'
import { sanitizeText } from '../../../src/values.js'
import { LINK_VIEW } from '../../../src/work/links/view.js'
import { PROFILE_VIEW } from '../../../src/work/profiles/profiles.js'
import { SUBSCRIPTION_VIEW } from '../../../src/work/subs/view.js'
import { TOKEN_VIEW } from '../../../src/work/token/create.js'
import { testOutput } from '../../helpers/io.js'
import { rawControlBytes } from '../../helpers/links.js'
import {
  HOSTILE_KEY,
  KEY,
  onlyPayErrors,
  RECORD_TEXT,
  SERVER_RECORD,
  SERVER_TEXT,
} from '../../helpers/server-json.js'

/**
 * Property-based tests of rendering: any JSON a server may send, in every output mode, gives
 * output or a PayError and nothing else; the sanitiser leaves no control character. Runs per
 * property are in RUNS.
 */

const RUNS = { renderers: 400, sanitiser: 1000 }

const VIEWS: View[] = [LINK_VIEW, TOKEN_VIEW, SUBSCRIPTION_VIEW, PROFILE_VIEW]

const MODE = fc.record({
  json: fc.boolean(),
  quiet: fc.boolean(),
  columns: fc.option(
    fc.array(
      fc.oneof(
        KEY,
        HOSTILE_KEY,
        fc.constantFrom('id', '_id', 'package.name', 'package.amount', 'amount', 'status'),
      ),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    { nil: undefined },
  ),
  terminal: fc.boolean(),
  colour: fc.boolean(),
  width: fc.integer({ min: 0, max: 160 }),
})

type Mode = typeof MODE extends fc.Arbitrary<infer T> ? T : never

function outputFor(mode: Mode) {
  const { io, out } = testOutput({
    json: mode.json,
    quiet: mode.quiet,
    columns: mode.columns,
    terminal: mode.terminal,
    colour: mode.colour,
    width: mode.width,
  })
  return { out, stdout: io.stdout, stderr: io.stderr }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the SGR sequences pay itself writes
const PAY_SGR = /\u001b\[(?:1|22|2|31|32|33|36|39)m/g

/** Table or TSV bytes hold no control byte but tab and newline (and pay's own colours). */
function expectNoRawControls(bytes: Buffer, mode: Mode) {
  const text =
    mode.terminal && mode.colour ? bytes.toString('utf8').replace(PAY_SGR, '') : bytes.toString('utf8')
  expect(rawControlBytes(Buffer.from(text, 'utf8'), [0x09, 0x0a])).toEqual([])
}

const BULK: fc.Arbitrary<BulkResult[]> = fc.array(
  fc.record({
    id: SERVER_TEXT,
    ok: fc.boolean(),
    status: fc.oneof(
      fc.constantFrom('deleted', 'cancelled', 'already_cancelled', 'not_found', 'failed', 'not_done'),
      SERVER_TEXT,
    ),
    error: fc.option(SERVER_TEXT, { nil: null }),
  }),
  { maxLength: 5 },
)

describe('(b) renderers: any server JSON, every mode: output or a PayError, nothing else', () => {
  it('Output.record, Output.list and Output.bulk', () => {
    fc.assert(
      fc.property(
        MODE,
        fc.constantFrom(...VIEWS),
        SERVER_RECORD,
        fc.array(SERVER_RECORD, { maxLength: 5 }),
        BULK,
        (mode, view, record, list, bulk) => {
          for (const render of [
            (out: Output) => out.record(record, view),
            (out: Output) => out.list(list, view),
            (out: Output) => out.bulk(bulk),
          ]) {
            const { out, stdout } = outputFor(mode)
            const error = onlyPayErrors(() => render(out))
            if (error)
              expect(error.kind).toBe('usage') // an unknown --columns name
            else if (!mode.json && !mode.quiet) expectNoRawControls(stdout.bytes, mode)
          }
        },
      ),
      { numRuns: RUNS.renderers },
    )
  })

  it('Output.error, note and warn, with any message, field errors and hint', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        SERVER_TEXT,
        fc.option(fc.dictionary(KEY, fc.array(SERVER_TEXT, { maxLength: 3 })), { nil: undefined }),
        fc.option(SERVER_TEXT, { nil: undefined }),
        (json, message, errors, hint) => {
          const { io, out } = testOutput({ json })
          const stderr = io.stderr
          out.error(new PayError(message, { kind: 'validation', errors, hint }))
          out.note(message)
          out.warn(message)
          // Under --json the error is one line of JSON with every control escaped.
          if (json) {
            const [line] = stderr.bytes.toString('utf8').split('\n')
            expect(rawControlBytes(Buffer.from(line), [])).toEqual([])
            expect(JSON.parse(line).error.message).toBe(message)
          }
          expect(rawControlBytes(stderr.bytes)).toEqual([])
        },
      ),
      { numRuns: RUNS.renderers },
    )
  })
})

describe('(c) the sanitiser', () => {
  const TEXT = fc.oneof(fc.string({ unit: 'binary' }), SERVER_TEXT, fc.string({ unit: 'grapheme' }))

  it('sanitizeText keeps no control character but tab and newline, nor a bidi control, and keeps the rest', () => {
    const WITH_BIDI = fc.oneof(
      TEXT,
      fc.string({
        unit: fc.constantFrom('a', ' ', '\u202a', '\u202e', '\u2066', '\u2069', '\u200f', '\u061c'),
      }),
    )
    fc.assert(
      fc.property(WITH_BIDI, (text) => {
        const shown = sanitizeText(text)
        // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be left
        const left = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
        expect(shown).not.toMatch(left)
        expect(shown.split('\t').length).toBe(text.split('\t').length)
        expect(shown.split('\n').length).toBe(text.split('\n').length)
        // Text without them is left as it is.
        if (!left.test(text)) expect(shown).toBe(text)
      }),
      { numRuns: RUNS.sanitiser },
    )
  })

  it('sanitizeCell keeps no control character at all, and different cells stay different', () => {
    fc.assert(
      fc.property(TEXT, TEXT, (a, b) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be left
        expect(sanitizeCell(a)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
        if (sanitizeText(a) !== sanitizeText(b)) expect(sanitizeCell(a)).not.toBe(sanitizeCell(b))
      }),
      { numRuns: RUNS.sanitiser },
    )
  })

  it('TSV keeps one line per record and one cell per column, with no control byte inside a cell', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.constantFrom(...LINK_VIEW.listColumns), TEXT), { maxLength: 5 }),
        (records) => {
          const { out, stdout } = outputFor({
            json: false,
            quiet: false,
            columns: undefined,
            terminal: false,
            colour: false,
            width: 80,
          })
          out.list(records, LINK_VIEW)
          const lines = stdout.bytes.toString('utf8').split('\n')
          expect(lines.pop()).toBe('')
          expect(lines).toHaveLength(records.length)
          for (const line of lines) {
            const cells = line.split('\t')
            // Piped, the amount's currency has a column of its own.
            expect(cells).toHaveLength(LINK_VIEW.listColumns.length + 1)
            for (const cell of cells) expect(rawControlBytes(Buffer.from(cell), [])).toEqual([])
          }
        },
      ),
      { numRuns: RUNS.sanitiser / 2 },
    )
  })

  it('a table on a terminal, with or without colour, shows no control byte but tab and newline', () => {
    fc.assert(
      fc.property(
        fc.array(
          RECORD_TEXT.map((text) => JSON.parse(text)),
          { minLength: 1, maxLength: 4 },
        ),
        fc.boolean(),
        fc.integer({ min: 10, max: 160 }),
        (records, colour, width) => {
          const mode = { json: false, quiet: false, columns: undefined, terminal: true, colour, width }
          for (const render of [
            (out: Output) => out.list(records, LINK_VIEW),
            (out: Output) => out.record(records[0], SUBSCRIPTION_VIEW),
          ]) {
            const { out, stdout } = outputFor(mode)
            render(out)
            expectNoRawControls(stdout.bytes, mode)
            if (!colour) expect(stdout.bytes.includes(0x1b)).toBe(false)
          }
        },
      ),
      { numRuns: RUNS.renderers },
    )
  })
})
