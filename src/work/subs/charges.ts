import type { ListPage } from '../../api/types.js'
import type { View } from '../../render/views.js'
import { type Duration, shift } from '../../shared/duration.js'
import { totalsByCurrency } from '../../shared/money.js'
import { isRecord, plain, type Rec } from '../../values.js'

/**
 * A subscription's charges: the entries of its `payment_links` (docs/spec/payment-service-api.md 2.4
 * shows no more than "an array"; the sandbox puts a payment link record per charge there). Read
 * tolerantly: `paid` and `created_at` are used when an entry has them, and an entry without them
 * is said to be unknown, never taken as paid or unpaid.
 */

/** One charge per row: `subs get` shows them under the subscription. */
export const CHARGE_VIEW: View = {
  noun: 'charge',
  plural: 'charges',
  listColumns: ['date', 'amount', 'paid', 'link_id'],
  recordFields: ['date', 'amount', 'currency', 'paid', 'link_id'],
}

/** The charges of a subscription, oldest first as the service lists them: date, amount, paid, link id. */
export function chargesOf(subscription: Rec): Rec[] {
  const entries = Array.isArray(subscription.payment_links) ? subscription.payment_links : []
  return entries.map((entry) => {
    if (!isRecord(entry)) return { link_id: plain(entry) }
    const created = typeof entry.created_at === 'string' ? entry.created_at.slice(0, 10) : undefined
    return {
      date: created,
      amount: entry.amount,
      currency: entry.currency,
      paid: entry.paid,
      link_id: entry._id,
    }
  })
}

/** `Charges (12, 3 unpaid)`: the title of the table under a subscription. */
export function chargesTitle(charges: Rec[]): string {
  const unpaid = charges.filter((charge) => charge.paid === false).length
  const unknown = charges.filter((charge) => typeof charge.paid !== 'boolean').length
  const parts = [String(charges.length), `${unpaid} unpaid`, ...(unknown ? [`${unknown} unknown`] : [])]
  return `Charges (${parts.join(', ')})`
}

/**
 * What a subscription owes, as `subs list --unpaid` (and `--overdue`) adds it to each record:
 * `unpaid_charges`, the count of its entries with `paid` false, and `amount_owed`, their amounts
 * summed exactly (as a plan's totals are, decimal by decimal, never in floating point) with
 * their currency: `{amount: 45, currency: "USD"}`. `amount_owed` is null when an unpaid entry
 * has no amount or currency, or when they are in more than one currency: pay does not guess.
 */
export function owedBy(subscription: Rec): Rec {
  const entries = Array.isArray(subscription.payment_links) ? subscription.payment_links : []
  const unpaid = entries.filter((entry): entry is Rec => isRecord(entry) && entry.paid === false)
  const { totals, unknown } = totalsByCurrency(
    unpaid.map((entry) => ({ amount: entry.amount, currency: entry.currency })),
  )
  const single = unknown === 0 && totals.length === 1 ? totals[0] : undefined
  return {
    ...subscription,
    unpaid_charges: unpaid.length,
    amount_owed: single ? { amount: Number(single.amount), currency: single.currency } : null,
  }
}

/** `YYYY-MM-DD HH:MM:SS UTC` (the envelope's meta.timestamp), or ISO 8601; NaN when it is neither. */
function serviceTime(timestamp: string): number {
  const envelope = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC$/.exec(timestamp)
  return Date.parse(envelope ? `${envelope[1]}T${envelope[2]}Z` : timestamp)
}

/**
 * The --unpaid/--overdue filter of a list walk. The pages go through `watch`, which keeps each
 * page's time (its envelope's meta.timestamp) for the records of that page; `warnings` says
 * what could not be judged.
 */
export class ChargeFilter {
  /** Subscriptions whose entries lack `paid` (or, for --overdue, the `created_at` of an unpaid one). */
  readonly unjudged: string[] = []
  /** Subscriptions listed whose amount owed could not be summed (`amount_owed` null). */
  readonly unsummed: string[] = []
  private now = Date.now()
  private clockless = false

  constructor(private readonly overdue: Duration | undefined) {}

  /** The pages, each subscription with what it owes (owedBy), and each page's time kept. */
  async *watch(pages: AsyncIterable<ListPage>): AsyncGenerator<ListPage> {
    for await (const page of pages) {
      const time = page.timestamp === undefined ? Number.NaN : serviceTime(page.timestamp)
      if (Number.isNaN(time)) {
        this.clockless = true
        this.now = Date.now()
      } else {
        this.now = time
      }
      yield { ...page, items: page.items.map(owedBy) }
    }
  }

  /** Whether a subscription has an unpaid charge (older than --overdue); false when it cannot say. */
  readonly match = (subscription: Rec): boolean => {
    const owes = this.judge(subscription)
    if (owes && subscription.amount_owed === null) this.unsummed.push(plain(subscription._id))
    return owes
  }

  private judge(subscription: Rec): boolean {
    const entries = subscription.payment_links
    if (!Array.isArray(entries)) {
      this.unjudged.push(plain(subscription._id))
      return false
    }
    const before = this.overdue === undefined ? undefined : shift(this.now, this.overdue, -1)
    let unknown = false
    for (const entry of entries) {
      if (!isRecord(entry) || typeof entry.paid !== 'boolean') {
        unknown = true
        continue
      }
      if (entry.paid) continue
      if (before === undefined) return true
      const created = typeof entry.created_at === 'string' ? Date.parse(entry.created_at) : Number.NaN
      if (Number.isNaN(created)) unknown = true
      else if (created < before) return true
    }
    if (unknown) this.unjudged.push(plain(subscription._id))
    return false
  }

  /** What could not be judged, and a service that gave no time: warnings once the walk is done. */
  warnings(): string[] {
    const notes: string[] = []
    if (this.clockless && this.overdue !== undefined) {
      notes.push(
        "The service's answers carried no meta.timestamp: ages were measured by this machine's clock.",
      )
    }
    const count = this.unjudged.length
    if (count > 0) {
      const fields = this.overdue === undefined ? 'paid' : 'paid or created_at'
      notes.push(
        `${count} subscription${count === 1 ? '' : 's'} could not be judged (charges without ${fields}), ` +
          `so ${count === 1 ? 'it is' : 'they are'} not listed: ${named(this.unjudged)}.`,
      )
    }
    const unsummed = this.unsummed.length
    if (unsummed > 0) {
      notes.push(
        `The amount owed by ${unsummed} subscription${unsummed === 1 ? '' : 's'} could not be summed ` +
          '(an unpaid charge without amount or currency, or charges in more than one currency), so ' +
          `amount_owed is null (an empty cell): ${named(this.unsummed)}.`,
      )
    }
    return notes
  }
}

/** The first 10 ids, and how many more. */
function named(ids: string[]): string {
  const more = ids.length > 10 ? `, and ${ids.length - 10} more` : ''
  return `${ids.slice(0, 10).join(', ')}${more}`
}

/** The filter --unpaid/--overdue describe; undefined when neither was given. */
export function chargeFilter(flags: { unpaid?: boolean; overdue?: Duration }): ChargeFilter | undefined {
  if (!flags.unpaid && flags.overdue === undefined) return undefined
  return new ChargeFilter(flags.overdue)
}
