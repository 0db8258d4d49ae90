import { amountText } from '../shared/money.js'
import { isRecord, plain, type Rec, sanitizeText } from '../values.js'

/** The value at a dotted path, and the object holding it (for the currency next to an amount). */
export function lookup(record: Rec, path: string): { value: unknown; parent: Rec | undefined } {
  let parent: Rec | undefined
  let value: unknown = record
  for (const part of path.split('.')) {
    if (!isRecord(value)) return { value: undefined, parent: undefined }
    parent = value
    // Own fields only: `--columns constructor` must not find Object's constructor.
    value = Object.hasOwn(value, part) ? value[part] : undefined
  }
  return { value, parent }
}

/**
 * "25.50 EUR", "1000 JPY"; an amount the service sent as text is shown as it came, and so is the
 * amount of a code that is no ISO currency ("25.5 BTC": pay cannot know its decimals).
 */
export function formatAmount(amount: unknown, currency: unknown): string {
  const code = typeof currency === 'string' ? currency : ''
  let text: string
  if (typeof amount === 'number' && Number.isFinite(amount)) {
    // The one currency-decimals rule, the payment page's too (src/shared/money.ts).
    text = amountText(amount, code)
  } else {
    text = plain(amount)
  }
  return code === '' ? text : `${text} ${code}`
}

const STATUS_COLOURS: Record<string, number> = {
  active: 32,
  created: 36,
  paid: 32,
  cancel: 31,
  cancelled: 31,
  canceled: 31,
  inactive: 33,
  expired: 33,
}

interface CellStyle {
  colour: boolean
}

/** A field's display text: amounts with currency, status and paid coloured on a terminal. */
export function cellText(record: Rec, path: string, style: CellStyle): string {
  const { value, parent } = lookup(record, path)
  const leaf = path.split('.').pop()
  let text =
    leaf === 'amount'
      ? formatAmount(value, parent?.currency)
      : isWordList(value)
        ? value.join(', ')
        : plain(value)
  text = sanitizeText(text)
  if (!style.colour || value === undefined || value === null) return text
  if (leaf === 'status' && typeof value === 'string') {
    const status = value.toLowerCase()
    const colour = Object.hasOwn(STATUS_COLOURS, status) ? STATUS_COLOURS[status] : undefined
    return colour ? `\u001b[${colour}m${text}\u001b[39m` : text
  }
  if (leaf === 'paid' && typeof value === 'boolean') return paint(text, value ? 'good' : 'faint')
  return text
}

/** A list of words (a webhook endpoint's events) reads as words on a terminal, not as JSON. */
const isWordList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')

/** Text in a colour; the words say it all, the colour only helps (accessibility). */
export function paint(text: string, tone: 'good' | 'bad' | 'warn' | 'faint'): string {
  if (tone === 'faint') return `\u001b[2m${text}\u001b[22m`
  return `\u001b[${tone === 'good' ? 32 : tone === 'bad' ? 31 : 33}m${text}\u001b[39m`
}

/**
 * A field as one TSV cell: no colour, no truncation, tabs and newlines escaped. An amount is the
 * plain number (its currency has a column of its own), so that scripts can add them up.
 */
export function tsvCell(record: Rec, path: string): string {
  return sanitizeCell(plain(lookup(record, path).value))
}

/** One TSV cell: sanitised, and tab/newline written as \t and \n so rows and columns stay intact. */
export function sanitizeCell(text: string): string {
  return sanitizeText(text).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n')
}
