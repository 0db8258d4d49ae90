/**
 * The one currency-decimals rule, for the CLI's tables (render/format.ts) and the sandbox's
 * payment pages (sandbox/pages/html.ts) alike: an amount is padded to its currency's decimals
 * (25.5 EUR -> "25.50", 10 JPY -> "10", 1.234 KWD -> "1.234"), never rounded (0.001 EUR stays
 * 0.001), never in exponent form; a code that is no ISO currency (BTC) keeps the amount's own
 * digits (1.5 BTC -> "1.5"). Ground the sandbox shares with its client (src/shared/,
 * .dependency-cruiser.cjs): it imports nothing.
 */

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

/** An amount as pay shows it beside its currency (the rule above). */
export function amountText(amount: number, currency: string): string {
  const digits = currency === '' ? undefined : currencyDigits(currency)
  const fixed = digits === undefined ? undefined : amount.toFixed(digits)
  // toFixed writes an exponent from 1e21 on (1e21.toFixed(2) is "1e+21"): decimalText takes those.
  return fixed !== undefined && !fixed.includes('e') && Number(fixed) === amount ? fixed : decimalText(amount)
}

/**
 * A number in plain decimal notation, never exponent form: 1e-7 -> "0.0000001", 1e21 ->
 * "1000000000000000000000". The digits are those of the shortest text that reads back as the
 * same number (what String gives), only the decimal point is moved.
 */
export function decimalText(value: number): string {
  const text = String(value)
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text)
  if (!match) return text
  const [, sign, whole, fraction = '', exponentText] = match
  const digits = whole + fraction
  const point = whole.length + Number(exponentText)
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
}

/**
 * Plain decimal text (`51.64473684210527`, `-0.125`) rounded half up (away from zero) to `digits`
 * decimals, on its digits: `51.64`, `-0.13`. Text with no more decimals than that is returned as
 * it is.
 */
export function roundedDecimal(text: string, digits: number): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text)
  if (!match || (match[3] ?? '').length <= digits) return text
  const [, sign, whole, fraction = ''] = match
  const scaled = BigInt(whole + fraction.slice(0, digits)) + (Number(fraction[digits]) >= 5 ? 1n : 0n)
  const padded = scaled.toString().padStart(digits + 1, '0')
  const point = padded.length - digits
  const rounded = digits === 0 ? padded : `${padded.slice(0, point)}.${padded.slice(point)}`
  return scaled === 0n ? rounded : `${sign}${rounded}`
}

/**
 * What is wrong with an amount written as text, when it is a near miss of a decimal the way people
 * and programs write numbers (`-1`, `1e3`, ` 5`, `5.`, `.5`, `0x10`, `1,000.50`): the end of a
 * sentence that starts with its field's name, said alike by pay before sending and by the sandbox
 * (`The amount must be greater than 0.`). Undefined for a plain decimal (`25.50`) and for text that
 * is no number at all, which each side words its own way.
 */
export function amountNearMiss(text: string): string | undefined {
  if (/^[0-9]+(\.[0-9]+)?$/.test(text)) return undefined
  if (text !== text.trim() && text.trim() !== '') return 'must not begin or end with a space.'
  if (/^-[0-9.]/.test(text)) return 'must be greater than 0.'
  if (/^\+[0-9.]/.test(text)) return 'must be written without a sign.'
  if (/^0[xob][0-9a-f]/i.test(text))
    return 'must be written in decimal digits, without a 0x, 0o or 0b prefix.'
  if (/^[0-9.]+e[+-]?[0-9]+$/i.test(text))
    return 'must be written out in digits, not with an exponent like 1e3.'
  if (/^[0-9]*[.,][0-9]*([.,][0-9]*)*$/.test(text) && /[0-9]/.test(text)) {
    if (text.includes(','))
      return 'must use a point for its decimals and no thousands separator, like 1000.50.'
    if (text.indexOf('.') !== text.lastIndexOf('.')) return 'must have one decimal point at most.'
    if (text.endsWith('.')) return 'must have digits after its decimal point, like 5.00.'
    return 'must have a digit before its decimal point, like 0.50.'
  }
  return undefined
}

/** One currency's total (totalsByCurrency): the amount as decimal text, `"1250.50"`. */
export interface CurrencyTotal {
  currency: string
  amount: string
}

/**
 * Amounts added up by currency, exactly (in decimal digits, never as a float's sum: 0.1 + 0.2 is
 * 0.30), in the order their currencies first appear; each total written as amountText would (to
 * its currency's decimals, never rounded). An amount that is no decimal number (missing, text) or
 * has no currency is left out, and counted in `unknown`.
 */
export function totalsByCurrency(items: { amount: unknown; currency: unknown }[]): {
  totals: CurrencyTotal[]
  unknown: number
} {
  const sums = new Map<string, { units: bigint; scale: number }>()
  let unknown = 0
  for (const { amount, currency } of items) {
    const text = typeof amount === 'number' && Number.isFinite(amount) ? decimalText(amount) : amount
    const match = typeof text === 'string' ? /^(-?)(\d+)(?:\.(\d+))?$/.exec(text) : null
    if (!match || typeof currency !== 'string' || currency === '') {
      unknown += 1
      continue
    }
    const [, sign, whole, fraction = ''] = match
    const units = BigInt(`${sign}${whole}${fraction}`)
    const sum = sums.get(currency) ?? { units: 0n, scale: 0 }
    const scale = Math.max(sum.scale, fraction.length)
    sums.set(currency, {
      units: sum.units * 10n ** BigInt(scale - sum.scale) + units * 10n ** BigInt(scale - fraction.length),
      scale,
    })
  }
  const totals = [...sums].map(([currency, { units, scale }]) => ({
    currency,
    amount: unitsText(units, scale, currencyDigits(currency) ?? 0),
  }))
  return { totals, unknown }
}

/** `units` over 10^scale as decimal text, trailing zeros dropped down to `digits` decimals. */
function unitsText(units: bigint, scale: number, digits: number): string {
  const negative = units < 0n
  const text = (negative ? -units : units).toString().padStart(scale + 1, '0')
  let whole = text.slice(0, text.length - scale)
  let fraction = text.slice(text.length - scale)
  fraction = fraction.replace(/0+$/, '')
  if (fraction.length < digits) fraction = fraction.padEnd(digits, '0')
  whole = whole === '' ? '0' : whole
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`
}
