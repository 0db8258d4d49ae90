import { PayError } from '../errors.js'
import { plain } from '../values.js'
import { decimalIn, quoted } from './untrusted.js'

/**
 * `pay mcp --max-items N --max-amount A`: what an assistant may do, in one call and in the whole
 * session (one `pay mcp` process). A delete or a cancel of more than N ids is refused, and so is
 * one that would take the ids acted on in this session past N; a payment link whose amount is
 * above A is refused, and so is a delete or cancel whose records add up to more than A in any one
 * currency, alone or with those acted on before in this session. Amounts are compared as decimal
 * text, never as floats, and written as everywhere else: in their currency's decimals, with it.
 */
export interface Caps {
  maxItems?: number
  maxAmount?: string
}

/** An amount and its currency, as a record holds them. */
export interface Amount {
  amount: unknown
  currency: unknown
}

const DECIMAL = /^\d+(\.\d+)?$/

/** Decimal text (or a number the service sent) as digits and a scale, or undefined when it is not one. */
function scaled(value: unknown): { digits: bigint; scale: number } | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) ? plain(value) : plain(value).trim()
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

/** Decimal text with its currency, as pay writes amounts: `1250.50 EUR`, `100 JPY`. */
export const withCurrency = (decimal: string, currency: string) =>
  currency === '' ? decimal : `${decimalIn(decimal, currency)} ${currency}`

/** Each currency's total of `amounts` (its code in capitals; '' for none), and how many were added. */
export function totalsByCurrency(amounts: Amount[]): Map<string, { total: string; count: number }> {
  const values = new Map<string, unknown[]>()
  for (const { amount, currency } of amounts) {
    if (amount === undefined || amount === null) continue
    const code = plain(currency).toUpperCase()
    values.set(code, [...(values.get(code) ?? []), amount])
  }
  return new Map([...values].map(([code, list]) => [code, { total: decimalSum(list), count: list.length }]))
}

const capped = (message: string, flag: string, session: boolean) =>
  new PayError(message, {
    kind: 'usage',
    hint: session
      ? `pay mcp was started with ${flag}, which counts every delete and cancel of this session: ask the person running it.`
      : `pay mcp was started with ${flag}: ask the person running it, or do less in one call.`,
  })

const plural = (count: number, one: string, many: string) => (count === 1 ? one : many)

/**
 * What the deletes and cancels of one `pay mcp` process acted on: how many ids, and each
 * currency's total. The caps count it, so that a job split across calls is capped as a whole.
 */
export class Session {
  private items = 0
  private readonly spent = new Map<string, string>()

  /**
   * Refuses acting on `count` ids of these `amounts` when one call, or this session with it,
   * would pass a cap (`what`: `delete 3 payment links`); counts nothing.
   */
  check(caps: Caps, count: number, amounts: Amount[], what: string): void {
    checkItems(caps, count, what, this.items)
    checkAmounts(caps, amounts, `to ${what}`, this.spent)
  }

  /** The same check, then the ids and amounts counted, at once: what a confirmed call acts on. */
  take(caps: Caps, count: number, amounts: Amount[], what: string): void {
    this.check(caps, count, amounts, what)
    this.items += count
    for (const [code, { total }] of totalsByCurrency(amounts))
      this.spent.set(code, decimalSum([this.spent.get(code) ?? '0', total]))
  }
}

/** Refuses acting on more ids than --max-items allows, in one call or with the `before` of this session. */
export function checkItems(caps: Caps, count: number, what: string, before = 0): void {
  const max = caps.maxItems
  if (max === undefined) return
  const flag = `--max-items ${max}`
  if (count > max)
    throw capped(`Refusing to ${what}: this server allows at most ${max} in one call (${flag}).`, flag, false)
  if (before + count > max)
    throw capped(
      `Refusing to ${what}: ${before} ${plural(before, 'was', 'were')} deleted or cancelled before in this ` +
        `session, and this server allows at most ${max} in all (${flag}).`,
      flag,
      true,
    )
}

/**
 * Refuses amounts above --max-amount: each currency's total of `amounts`, alone or with what
 * this session `spent` in it (`what`: `a payment link`, `to delete 2 payment links`). An amount
 * that cannot be read as a decimal cannot be checked, and is refused while a cap is set.
 */
export function checkAmounts(
  caps: Caps,
  amounts: Amount[],
  what: string,
  spent: ReadonlyMap<string, string> = new Map(),
): void {
  const cap = caps.maxAmount
  if (cap === undefined) return
  const unreadable = amounts.find(
    ({ amount }) => amount !== undefined && amount !== null && scaled(amount) === undefined,
  )
  if (unreadable)
    throw capped(
      `Refusing ${what}: the amount ${quoted(unreadable.amount)} is not a decimal, so --max-amount cannot be checked.`,
      `--max-amount ${cap}`,
      false,
    )
  for (const [code, { total, count }] of totalsByCurrency(amounts)) {
    const flag = `--max-amount ${withCurrency(cap, code)}`
    if (decimalAbove(total, cap)) {
      const said = `${withCurrency(total, code)}${count > 1 ? ' in all' : ''}`
      throw capped(`Refusing ${what}: ${said} is more than this server allows (${flag}).`, flag, false)
    }
    const before = spent.get(code)
    const sum = decimalSum([before ?? '0', total])
    if (before !== undefined && decimalAbove(sum, cap))
      throw capped(
        `Refusing ${what}: with the ${withCurrency(before, code)} deleted or cancelled before in this ` +
          `session, ${withCurrency(sum, code)} in all is more than this server allows (${flag}).`,
        flag,
        true,
      )
  }
}
