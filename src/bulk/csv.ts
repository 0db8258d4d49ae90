/**
 * CSV as spreadsheets write it (RFC 4180), read: fields separated by commas (or by the separator
 * given: `;` or a tab, as spreadsheets in many locales export), quoted when they hold the
 * separator, a quote or a line break, quotes doubled inside; CRLF or LF line ends; a byte-order
 * mark at the start is ignored. Lines starting with `#` outside quotes are comments (pay's reports
 * name their run in one).
 */

export interface CsvRow {
  /** Line number of the row's first line in the file, 1-based. */
  line: number
  cells: string[]
}

/** The separators a spreadsheet's CSV is written with: a comma, a semicolon, a tab. */
export type CsvSeparator = ',' | ';' | '\t'

/**
 * The separator of a CSV file, told from its header row (its first line that is neither blank nor
 * a comment): the one of `,`, `;` and tab it holds most often outside quotes; a comma when it
 * holds none (a header of one column), or as many of another.
 */
export function headerSeparator(text: string): CsvSeparator {
  const header = text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .find((line) => line.trim() !== '' && !line.startsWith('#'))
  const counts = new Map<CsvSeparator, number>([
    [',', 0],
    [';', 0],
    ['\t', 0],
  ])
  let quoted = false
  for (const char of header ?? '') {
    if (char === '"') quoted = !quoted
    else if (!quoted && counts.has(char as CsvSeparator))
      counts.set(char as CsvSeparator, (counts.get(char as CsvSeparator) ?? 0) + 1)
  }
  let best: CsvSeparator = ','
  for (const [separator, count] of counts) if (count > (counts.get(best) ?? 0)) best = separator
  return best
}

/** The rows of `text`, comments and blank lines left out. Throws on a quote left open. */
export function parseCsv(text: string, separator: CsvSeparator = ','): CsvRow[] {
  const rows: CsvRow[] = []
  let cells: string[] = []
  let cell = ''
  let quoted = false
  let line = 1
  let rowLine = 1
  let atRowStart = true
  const source = text.replace(/^\uFEFF/, '')
  const endRow = () => {
    cells.push(cell)
    const blank = cells.length === 1 && cells[0] === ''
    if (!blank) rows.push({ line: rowLine, cells })
    cells = []
    cell = ''
    atRowStart = true
  }
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i]
    if (atRowStart) {
      rowLine = line
      atRowStart = false
      if (char === '#') {
        // A comment runs to the end of its line.
        while (i < source.length && source[i] !== '\n') i += 1
        line += 1
        atRowStart = true
        continue
      }
    }
    if (quoted) {
      if (char === '"' && source[i + 1] === '"') {
        cell += '"'
        i += 1
      } else if (char === '"') {
        quoted = false
      } else {
        if (char === '\n') line += 1
        cell += char
      }
      continue
    }
    if (char === '"' && cell === '') quoted = true
    else if (char === separator) {
      cells.push(cell)
      cell = ''
    } else if (char === '\r' && source[i + 1] === '\n') {
      // the \n ends the row
    } else if (char === '\n') {
      line += 1
      endRow()
    } else cell += char
  }
  if (quoted) throw new Error(`a quoted field opened on line ${rowLine} is never closed`)
  if (!atRowStart || cell !== '' || cells.length > 0) endRow()
  return rows
}

// Writing CSV is render's (src/render/csv.ts): reports and `--format csv` write cells alike.
export { BOM, csvField, csvLine, csvTime, fromSpreadsheet, toSpreadsheet } from '../render/csv.js'
