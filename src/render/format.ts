import { decimalText, isRecord, plain, type Rec, sanitizeText } from '../values.js'

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
 * ISO 4217 currencies whose minor unit is not 2. A table, not Intl.NumberFormat: the first
 * Intl call costs ~10 ms of start-up, and every listing would pay it.
 */
const MINOR_UNITS = new Map<string, number>([
  // The most used, so that most listings never ask Intl.
  ...'EUR USD GBP CHF CAD AUD NZD SEK NOK DKK PLN CZK HUF INR CNY HKD SGD MXN BRL ZAR'
    .split(' ')
    .map((c) => [c, 2] as const),
  ...'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'
    .split(' ')
    .map((c) => [c, 0] as const),
  ...'BHD IQD JOD KWD LYD OMR TND'.split(' ').map((c) => [c, 3] as const),
  ...'CLF UYW'.split(' ').map((c) => [c, 4] as const),
])

let isoCodes: Set<string> | undefined

/**
 * Decimals of an ISO 4217 currency (JPY 0, EUR 2, BHD 3); undefined for a code that is no ISO
 * currency (BTC), whose amounts may have any decimals. Asks Intl only for codes outside the
 * table, so that most checks cost nothing.
 */
export function currencyDigits(code: string): number | undefined {
  const upper = code.toUpperCase()
  if (!/^[A-Z]{3}$/.test(upper)) return undefined
  const known = MINOR_UNITS.get(upper)
  if (known !== undefined) return known
  isoCodes ??= new Set(Intl.supportedValuesOf('currency'))
  return isoCodes.has(upper) ? 2 : undefined
}

/**
 * "25.50 EUR", "1000 JPY"; an amount the service sent as text is shown as it came, and so is the
 * amount of a code that is no ISO currency ("25.5 BTC": pay cannot know its decimals).
 */
export function formatAmount(amount: unknown, currency: unknown): string {
  const code = typeof currency === 'string' ? currency : ''
  let text: string
  if (typeof amount === 'number' && Number.isFinite(amount)) {
    const digits = code === '' ? undefined : currencyDigits(code)
    // Padded to the currency's digits (25.5 -> "25.50"), never rounded: 0.001 EUR stays 0.001.
    const fixed = digits !== undefined ? amount.toFixed(digits) : undefined
    // toFixed writes an exponent from 1e21 on (1e21.toFixed(2) is "1e+21"): decimalText takes those.
    text =
      fixed !== undefined && !fixed.includes('e') && Number(fixed) === amount ? fixed : decimalText(amount)
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
  let text = leaf === 'amount' ? formatAmount(value, parent?.currency) : plain(value)
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
