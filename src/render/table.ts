import { createRequire } from 'node:module'

/**
 * Borderless tables that fit the terminal without cutting what people copy. Ids, amounts,
 * statuses, URLs and dates are never cut ("whole" columns); free text (titles, e-mails,
 * references) gives way first, down to a readable minimum; then, on a narrow terminal, the
 * columns a view marks as droppable go, in its order. If even that does not fit, the row is
 * left wider than the terminal (which wraps it) rather than cut an id.
 */

export interface TableColumn {
  /** `text` may be shortened (lists, with …) or wrapped (a record's value); `whole` never. */
  kind: 'whole' | 'text'
  /**
   * Dropped on a narrow terminal, lowest first; undefined: never dropped. From LAST_RESORT on,
   * only once free text is as short as it gets.
   */
  dropRank?: number
}

export const LAST_RESORT = 100

const PADDING = 2
/** Free text is shortened to this many characters before any column is dropped… */
const TEXT_COMFORTABLE = 20
/** …and never below this many (or its header, if longer). */
const TEXT_MIN = 10

// biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes to measure text
const ANSI = /\u001b\[[0-9;]*m/g

export const visibleLength = (text: string) => [...text.replace(ANSI, '')].length

const WHOLE_LEAVES = new Set([
  'token',
  'amount',
  'currency',
  'status',
  'paid',
  'current',
  'built_in',
  'api_key',
  'key_storage',
  'method',
  'resource',
  'outcome',
])

/** Whether a field is cut-proof (ids, amounts, statuses, URLs, dates, flags) or free text. */
export function fieldKind(field: string): TableColumn['kind'] {
  const leaf = field.split('.').pop() ?? field
  if (WHOLE_LEAVES.has(leaf) || /(^|_)id$/.test(leaf) || /_url$/.test(leaf) || /(^|_)at$/.test(leaf))
    return 'whole'
  return 'text'
}

export interface Layout {
  /** Indexes of the columns shown, in order. */
  shown: number[]
  /** Their widths, without padding. */
  widths: number[]
}

/**
 * Which columns to show and how wide, for `rows` (the header row included) in `width`: the
 * fewest columns of little value dropped with which free text keeps a comfortable width;
 * failing that, all of those and then the last-resort ones until text keeps a readable width;
 * failing that, every droppable column dropped.
 */
export function layOut(columns: TableColumn[], rows: string[][], width: number, header?: string[]): Layout {
  const natural = columns.map((_, i) => Math.max(1, ...rows.map((row) => visibleLength(row[i] ?? ''))))
  const floor = (least: number) =>
    columns.map((column, i) =>
      column.kind === 'whole'
        ? natural[i]
        : Math.min(natural[i], Math.max(least, visibleLength(header?.[i] ?? ''))),
    )
  const droppable = columns
    .map((column, i) => ({ i, rank: column.dropRank }))
    .filter((entry): entry is { i: number; rank: number } => entry.rank !== undefined)
    .sort((a, b) => a.rank - b.rank)
    .map((entry) => entry.i)
  const need = (indexes: number[], sizes: number[]) =>
    indexes.reduce((sum, i) => sum + sizes[i] + PADDING, 0) - PADDING
  const all = columns.map((_, i) => i)
  const keeping = (dropped: number) => all.filter((i) => !droppable.slice(0, dropped).includes(i))
  let shown = keeping(droppable.length)
  let minimum = floor(TEXT_MIN)
  const lowValue = droppable.filter((i) => (columns[i].dropRank ?? 0) < LAST_RESORT).length
  search: for (const least of [TEXT_COMFORTABLE, TEXT_MIN]) {
    // Text goes below a comfortable width only once every column of little value is gone.
    const [fewest, most] = least === TEXT_MIN ? [lowValue, droppable.length] : [0, lowValue]
    for (let dropped = fewest; dropped <= most; dropped += 1) {
      if (need(keeping(dropped), floor(least)) <= width) {
        shown = keeping(dropped)
        minimum = floor(least)
        break search
      }
    }
  }
  // Free text gets the room that is left, widest column shortened first.
  const widths = shown.map((i) => natural[i])
  let excess = need(shown, natural) - width
  while (excess > 0) {
    let widest = -1
    for (const [k, i] of shown.entries()) {
      if (widths[k] > minimum[i] && (widest === -1 || widths[k] > widths[widest])) widest = k
    }
    if (widest === -1) break
    widths[widest] -= 1
    excess -= 1
  }
  return { shown, widths }
}

/** `text` broken into lines of at most `width` characters, at spaces where it can. */
export function wrapText(text: string, width: number): string {
  if (width < 1) return text
  const lines: string[] = []
  for (const paragraph of text.split('\n')) {
    let rest = paragraph
    while ([...rest].length > width) {
      const chars = [...rest]
      const head = chars.slice(0, width + 1).join('')
      const space = head.lastIndexOf(' ')
      const cut = space > 0 ? space : width
      lines.push(chars.slice(0, cut).join('').trimEnd())
      rest = chars.slice(cut).join('').replace(/^ /, '')
    }
    lines.push(rest)
  }
  return lines.join('\n')
}

const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '',
}

type TableConstructor = new (
  options: Record<string, unknown>,
) => { push(...rows: unknown[]): void; toString(): string }

let tableModule: TableConstructor | undefined

/** cli-table3 is loaded only when a table is drawn: scripts and --json never pay for it. */
function loadTable(): TableConstructor {
  tableModule ??= createRequire(import.meta.url)('cli-table3') as TableConstructor
  return tableModule
}

/** Draws the cells (already laid out: only the shown columns, text cut or wrapped to `widths`). */
export function drawTable(rows: string[][], widths: number[], header?: string[]): string {
  const Table = loadTable()
  const table = new Table({
    head: header ?? [],
    colWidths: widths.map((w) => w + PADDING),
    wordWrap: false,
    truncate: '…',
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': PADDING },
  })
  table.push(...rows)
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
}
