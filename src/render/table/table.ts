import { cutToWidth, displayWidth, padToWidth, type WrapOptions, wrapToWidth } from './width.js'

/**
 * Borderless tables that fit the terminal without cutting what people copy. Ids, amounts,
 * statuses, URLs and dates are never cut ("whole" columns); free text (titles, e-mails,
 * references) gives way first, down to a readable minimum; then, on a narrow terminal, the
 * columns a view marks as droppable go, in its order. If even that does not fit, the row is
 * left wider than the terminal (which wraps it) rather than cut an id. Widths are display
 * columns (width.ts): a CJK character or an emoji counts two, an accent none.
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
/**
 * …and never below this many (or its header, if longer) before a last-resort column (a title,
 * an e-mail) is dropped: at 80 columns, beside an id, `Active, unpaid` and a wide amount
 * (`9999999999999.99 EUR`), e-mail and title still show, cut, as the docs promise.
 */
const TEXT_MIN = 7

/** Columns a cell's text takes on the terminal (colour codes count as nothing). */
export const visibleLength = displayWidth

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
  'unpaid_charges',
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

/**
 * `text` broken into lines of at most `width` terminal columns, at spaces and between CJK
 * characters where it can, inside a long word where it must (never inside a character). Lines
 * after the first keep a paragraph's leading spaces, or take `options.indent`. Used for a
 * record's free text and for confirmation plans.
 */
export function wrapText(text: string, width: number, options?: WrapOptions): string {
  return wrapToWidth(text, width, options)
}

/** The indent under a line's text after its first word (`  --email   The…`, `  ID  Title…`). */
const hangingIndent = (line: string) => /^ +\S+ {2,}/.exec(line)?.[0].replace(/\S/g, ' ')

/** Stands for a space that must not break a line while a message is wrapped. */
const HELD = '\ue000'

/** What a message says in quotes or backticks (a command, a flag's words) is kept on one line. */
const QUOTED = /`[^`\n]*`|"[^"\n]*"/g

/**
 * Words for a terminal's stderr: each line wrapped at spaces to `width` (a terminal would fold it
 * mid-word), a line led by a label (a flag's, an id) continued under the text after it, so that
 * it cannot be read as a line of its own; a word wider than the line (a path, a URL) kept whole,
 * and so are a quoted command and what `together` matches (a record's `[Active, unpaid]`), when
 * they take at most half the line.
 */
export function wrapMessage(text: string, width: number, together: RegExp[] = []): string {
  const hold = (span: string) => (displayWidth(span) <= width / 2 ? span.replace(/ /g, HELD) : span)
  const held = [QUOTED, ...together].reduce((all, pattern) => all.replace(pattern, hold), text)
  return held
    .split('\n')
    .map((line) => wrapToWidth(line, width, { indent: hangingIndent(line), unbroken: true }))
    .join('\n')
    .replaceAll(HELD, ' ')
}

/**
 * Draws the cells (already laid out: only the shown columns) as a borderless table: each column
 * `widths` columns wide and two spaces apart; a line of a cell wider than its column is cut
 * (with …, by whole characters); a cell of several lines (a wrapped value) takes as many rows.
 */
export function drawTable(rows: string[][], widths: number[], header?: string[]): string {
  const lines: string[] = []
  for (const row of header ? [header, ...rows] : rows) {
    const cells = widths.map((width, i) =>
      (row[i] ?? '').split('\n').map((line) => cutToWidth(line.replace(/\t/g, ' '), width)),
    )
    const height = Math.max(1, ...cells.map((cell) => cell.length))
    for (let k = 0; k < height; k += 1) {
      const parts = cells.map((cell, i) => padToWidth(cell[k] ?? '', widths[i]))
      lines.push(parts.join(' '.repeat(PADDING)).trimEnd())
    }
  }
  return lines.join('\n')
}
