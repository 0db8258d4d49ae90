import { PayError } from '../errors.js'
import { plain } from '../values.js'

/**
 * `pay mcp --max-items N --max-amount A`: what an assistant may do in one call. A delete or a
 * cancel of more than N ids is refused; so is a payment link whose amount is above A, and a plan
 * whose records add up to more than A in any one currency. Amounts are compared as decimal text,
 * never as floats.
 */
export interface Caps {
  maxItems?: number
  maxAmount?: string
}

const DECIMAL = /^\d+(\.\d+)?$/

/** Decimal text (or a number the service sent) as digits and a scale, or undefined when it is not one. */
function scaled(value: unknown): { digits: bigint; scale: number } | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : plain(value).trim()
  if (!DECIMAL.test(text)) return undefined
  const [whole, fraction = ''] = text.split('.')
  return { digits: BigInt(whole + fraction), scale: fraction.length }
}

const atScale = (value: { digits: bigint; scale: number }, scale: number) =>
  value.digits * 10n ** BigInt(scale - value.scale)

/** Whether decimal `a` is greater than decimal `b`. */
export function decimalAbove(a: unknown, b: unknown): boolean {
  const x = scaled(a)
  const y = scaled(b)
  if (!x || !y) return false
  const scale = Math.max(x.scale, y.scale)
  return atScale(x, scale) > atScale(y, scale)
}

/** The sum of decimal amounts, as decimal text. */
export function decimalSum(values: unknown[]): string {
  const parsed = values.map(scaled).filter((value) => value !== undefined)
  const scale = Math.max(0, ...parsed.map((value) => value.scale))
  const total = parsed.reduce((sum, value) => sum + atScale(value, scale), 0n)
  const text = total.toString().padStart(scale + 1, '0')
  return scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`
}

/** Whether text is a decimal amount (`--max-amount`'s check). */
export const isDecimal = (text: string) => DECIMAL.test(text)

const capped = (message: string, flag: string) =>
  new PayError(message, {
    kind: 'usage',
    hint: `pay mcp was started with ${flag}: ask the person running it, or do less in one call.`,
  })

/** Refuses acting on more ids than --max-items allows (`what`: `delete 3 payment links`). */
export function checkItems(caps: Caps, count: number, what: string): void {
  if (caps.maxItems === undefined || count <= caps.maxItems) return
  throw capped(
    `Refusing to ${what}: this server allows at most ${caps.maxItems} in one call (--max-items).`,
    `--max-items ${caps.maxItems}`,
  )
}

/** Refuses amounts above --max-amount: each currency's total of `amounts` (`what`: `a payment link`, `to delete 2 payment links`). */
export function checkAmounts(
  caps: Caps,
  amounts: { amount: unknown; currency: unknown }[],
  what: string,
): void {
  const cap = caps.maxAmount
  if (cap === undefined) return
  const totals = new Map<string, unknown[]>()
  for (const { amount, currency } of amounts) {
    if (amount === undefined || amount === null) continue
    const code = plain(currency).toUpperCase()
    totals.set(code, [...(totals.get(code) ?? []), amount])
  }
  for (const [currency, values] of totals) {
    const total = decimalSum(values)
    if (decimalAbove(total, cap)) {
      const said = `${total}${currency ? ` ${currency}` : ''}${values.length > 1 ? ' in all' : ''}`
      throw capped(
        `Refusing ${what}: ${said} is more than this server allows (--max-amount ${cap}).`,
        `--max-amount ${cap}`,
      )
    }
  }
}
