/**
 * CSV as spreadsheets write it (RFC 4180), read: fields separated by commas, quoted when they hold
 * a comma, a quote or a line break, quotes doubled inside; CRLF or LF line ends; a byte-order mark
 * at the start is ignored. Lines starting with `#` outside quotes are comments (pay's reports
 * name their run in one).
 */

export interface CsvRow {
  /** Line number of the row's first line in the file, 1-based. */
  line: number
  cells: string[]
}

/** The rows of `text`, comments and blank lines left out. Throws on a quote left open. */
export function parseCsv(text: string): CsvRow[] {
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
    else if (char === ',') {
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
export { csvField, csvLine, fromSpreadsheet, toSpreadsheet } from '../render/csv.js'
