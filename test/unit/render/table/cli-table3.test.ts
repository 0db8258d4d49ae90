import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { drawTable, layOut, type TableColumn } from '../../../../src/render/table/table.js'
import { cutToWidth, displayWidth } from '../../../../src/render/table/width.js'
import { WIDTH_DISPUTES } from '../../../helpers/width-disputes.js'

/**
 * Why pay draws its tables itself rather than with cli-table3, which the design names
 * (docs/design.md, Dependencies). cli-table3 0.6.5 pads and cuts each cell by string-width 4's
 * count of its columns. Even with pay's width module cutting every cell to its column first (so
 * that cli-table3 has nothing to cut), it goes wrong wherever string-width 4 and the terminal
 * disagree (test/helpers/width-disputes.ts, measured in tmux by
 * test/e2e/cli/width-terminal.test.ts): a column after the text starts too early or too late,
 * and text that fits is cut, inside a character. Each case asserts what cli-table3 draws today;
 * a version that draws it right fails this test, and cli-table3 may then replace table.ts.
 */

const require = createRequire(import.meta.url)
const Table = require('cli-table3') as new (
  options: object,
) => { push(...rows: string[][]): void; toString(): string }
/** The string-width cli-table3 itself loads. */
const stringWidth = createRequire(require.resolve('cli-table3'))('string-width') as (text: string) => number

const NO_BORDER = Object.fromEntries(
  [
    'top',
    'top-mid',
    'top-left',
    'top-right',
    'bottom',
    'bottom-mid',
    'bottom-left',
    'bottom-right',
    'left',
    'left-mid',
    'mid',
    'mid-mid',
    'right',
    'right-mid',
    'middle',
  ].map((part) => [part, '']),
)

/** drawTable's job done by cli-table3: the same widths, two spaces apart, each cell cut by pay. */
function drawWithCliTable3(rows: string[][], widths: number[], header: string[]): string {
  const cut = (row: string[]) => widths.map((width, i) => cutToWidth(row[i] ?? '', width))
  const table = new Table({
    head: cut(header),
    colWidths: widths.map((width) => width + 2),
    wordWrap: false,
    truncate: '…',
    chars: NO_BORDER,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
  })
  table.push(...rows.map(cut))
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
}

const HEADER = ['ID', 'TITLE', 'STATUS']
const COLUMNS: TableColumn[] = [{ kind: 'whole' }, { kind: 'text' }, { kind: 'whole' }]

/** A links table of two rows, `title`'s and a plain one, laid out by pay for 80 columns. */
function twoRows(title: string) {
  const rows = [
    ['lnk_1', title, 'Active'],
    ['lnk_2', 'Invoice 1042', 'Active'],
  ]
  const { widths } = layOut(COLUMNS, [HEADER, ...rows], 80, HEADER)
  return { rows, widths }
}

/** The terminal column where STATUS starts on each line (the header's, then each row's). */
const statusColumns = (table: string) =>
  table.split('\n').map((line) => displayWidth(line.slice(0, line.search(/STATUS|Active/))))

describe('string-width 4, which cli-table3 measures with', () => {
  it.each(WIDTH_DISPUTES)('counts $name otherwise than the terminal', ({ text, terminal, stringWidth4 }) => {
    expect([displayWidth(text), stringWidth(text)]).toEqual([terminal, stringWidth4])
  })
})

describe('cli-table3 with pay cutting each cell first', () => {
  it('draws what pay draws where string-width 4 counts as the terminal does: a fair try', () => {
    const rows = [
      ['lnk_1', '請求書1043 十一月のコンサルティング', '\u001b[32mActive\u001b[39m'],
      ['lnk_2', '🎉 Party 👨\u200d👩\u200d👧 day', 'Active'],
      ['lnk_3', 'Café crème', 'Active'],
    ]
    const { widths } = layOut(COLUMNS, [HEADER, ...rows], 40, HEADER)
    expect(widths).toEqual([5, 25, 6])
    expect(drawWithCliTable3(rows, widths, HEADER)).toBe(drawTable(rows, widths, HEADER))
  })

  const [thai, hebrew, arabic, emoji, zeroWidthSpace] = WIDTH_DISPUTES
  /**
   * What cli-table3 draws for each text, and where STATUS starts on each line (header, the
   * text's row, the plain row): the same column on every line is right.
   */
  const drawn = [
    // Counted 4 columns wider than it is: padded 4 columns short.
    [thai, [`lnk_1  ${thai.text}   Active`], [21, 17, 21]],
    // Counted 16 columns where it takes 10, in a column of 12: cut though it fits, and inside a
    // character (the last letter, לֵ, keeps its letter and loses its vowel point).
    [hebrew, ['lnk_1  \u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd \u05e2\u05b2\u05dc…  Active'], [21, 17, 21]],
    [arabic, [`lnk_1  ${arabic.text}      Active`], [21, 17, 21]],
    // Counted 1 column narrower: padded 1 too many, STATUS a column late.
    [emoji, [`lnk_1  ${emoji.text}   Active`], [24, 25, 24]],
    [zeroWidthSpace, [`lnk_1  ${zeroWidthSpace.text}  Active`], [21, 20, 21]],
  ] as const

  it.each(drawn)('$name: a column out of line', (dispute, row, columns) => {
    const { rows, widths } = twoRows(dispute.text)
    const table = drawWithCliTable3(rows, widths, HEADER)
    expect(table.split('\n')[1]).toBe(row[0])
    expect(statusColumns(table)).toEqual(columns)
    // pay's own drawing of the same cells: STATUS in one column, the text whole.
    const own = drawTable(rows, widths, HEADER)
    expect(statusColumns(own)).toEqual([columns[0], columns[0], columns[0]])
    expect(own.split('\n')[1]).toContain(dispute.text)
  })
})
