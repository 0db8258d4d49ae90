/**
 * The calendar of subscription charges, in SQL: the schema (schema.ts, version 3) schedules every
 * subscription with it and billing (handlers/billing/billing.ts) bills with it, set-based, in the
 * database; the clock's statements are here too (clock.ts reads sandbox time with them).
 *
 * A subscription's charge dates are its package's `date_charge_start` (the anchor), then every
 * period of its `frequency`: `daily` and `weekly` add days; `monthly`, `quarterly` and `yearly` add
 * calendar months and keep the anchor's day where the month has it (Jan 31 -> Feb 28/29 -> Mar 31;
 * a Feb 29 anchor, yearly -> Feb 28, and Feb 29 again in leap years). Charge n (from 0) is computed
 * from the anchor, never from the charge before, so a short month does not pull the later ones in.
 * The first charge is the first date after the day the subscription was created (so a new
 * subscription has none). Any other frequency bills nothing: no schedule.
 */

/** The columns of a schedule row (or of a plan being made), for the expressions below. */
interface Columns {
  months: string
  days: string
  anchor: string
  anchorMonth: string
  anchorDay: string
}

const columnsOf = (prefix: string): Columns => ({
  months: `${prefix}months`,
  days: `${prefix}days`,
  anchor: `${prefix}anchor`,
  anchorMonth: `${prefix}anchor_month`,
  anchorDay: `${prefix}anchor_day`,
})

/** `YYYY-MM-01` of the month with index `month` (year * 12 + month - 1). */
const firstOfMonth = (month: string) => `printf('%04d-%02d-01', (${month}) / 12, (${month}) % 12 + 1)`

/** The last day (28-31) of the month with index `month`. */
const lastDayOf = (month: string) =>
  `CAST(strftime('%d', ${firstOfMonth(month)}, '+1 month', '-1 day') AS INTEGER)`

/** The date (`YYYY-MM-DD`) of charge number `n` of a schedule. */
export function chargeDate(n: string, c: Columns): string {
  const month = `(${c.anchorMonth} + (${n}) * ${c.months})`
  return `(CASE WHEN ${c.days} > 0 THEN date(${c.anchor}, '+' || ((${n}) * ${c.days}) || ' days')
    ELSE printf('%04d-%02d-%02d', ${month} / 12, ${month} % 12 + 1, min(${c.anchorDay}, ${lastDayOf(month)})) END)`
}

/** The number of the first charge whose date is after `day` (`YYYY-MM-DD`). */
function firstChargeAfter(day: string, c: Columns): string {
  const dayMonth = `(CAST(substr(${day}, 1, 4) AS INTEGER) * 12 + CAST(substr(${day}, 6, 2) AS INTEGER) - 1)`
  const dayOfMonth = `CAST(substr(${day}, 9, 2) AS INTEGER)`
  const behind = `(${dayMonth} - ${c.anchorMonth})`
  // The first period that reaches the day's month…
  const reaching = `((${behind} + ${c.months} - 1) / ${c.months})`
  // …is in a later month (after the day), or in its month: after the day only past its day.
  const reachingMonth = `(${c.anchorMonth} + ${reaching} * ${c.months})`
  const months = `(CASE WHEN ${behind} < 0 THEN 0
    WHEN ${reachingMonth} > ${dayMonth} THEN ${reaching}
    WHEN min(${c.anchorDay}, ${lastDayOf(reachingMonth)}) > ${dayOfMonth} THEN ${reaching}
    ELSE ${reaching} + 1 END)`
  const elapsed = `CAST(julianday(${day}) - julianday(${c.anchor}) AS INTEGER)`
  const days = `(CASE WHEN ${elapsed} < 0 THEN 0 ELSE ${elapsed} / ${c.days} + 1 END)`
  return `(CASE WHEN ${c.days} > 0 THEN ${days} ELSE ${months} END)`
}

/**
 * The schedules of the subscriptions `source` yields (a FROM item with columns seq, business, id,
 * record): one row each for those not cancelled, with a known frequency and a real anchor date.
 */
export function scheduleRows(source: string): string {
  const plan = columnsOf('')
  const first = firstChargeAfter('created', plan)
  return `
    SELECT subscription, business, id, months, days, anchor, anchor_month, anchor_day,
      ${first} AS n, ${chargeDate(first, plan)} AS due
    FROM (
      SELECT subscription, business, id, months, days, anchor, created,
        CAST(substr(anchor, 1, 4) AS INTEGER) * 12 + CAST(substr(anchor, 6, 2) AS INTEGER) - 1 AS anchor_month,
        CAST(substr(anchor, 9, 2) AS INTEGER) AS anchor_day
      FROM (
        SELECT seq AS subscription, business, id,
          CASE lower(record ->> '$.package.frequency') WHEN 'monthly' THEN 1 WHEN 'quarterly' THEN 3
            WHEN 'yearly' THEN 12 ELSE 0 END AS months,
          CASE lower(record ->> '$.package.frequency') WHEN 'daily' THEN 1 WHEN 'weekly' THEN 7 ELSE 0 END AS days,
          record ->> '$.package.date_charge_start' AS anchor,
          substr(record ->> '$.created_at', 1, 10) AS created,
          record ->> '$.status' AS status
        FROM ${source}
      )
      WHERE months + days > 0 AND status IS NOT 'cancel'
        AND date(anchor) IS anchor AND date(created) IS created
    )`
}

/** A schedule's columns, named by table in the statements below, where no other table has them. */
// Stryker disable next-line StringLiteral: unnamed, they are the same columns
const SCHEDULE = columnsOf('s.')
// Stryker disable next-line StringLiteral: unnamed, they are the same columns
const SCHEDULES = columnsOf('schedules.')

/**
 * Billing, in one transaction (handlers/billing/billing.ts): the statements, run in this order
 * with `:today` the sandbox's date and `:before` the last charge's seq before they ran. Frozen, not
 * `as const`: StrykerJS mutates nothing under a type assertion, and `npm run test:mutation` mutates
 * this SQL.
 */
export const BILLING = Object.freeze({
  /** Whether anything is due: one look in the index on `due`. */
  due: 'SELECT 1 AS due FROM schedules WHERE due <= ? LIMIT 1',
  lastCharge: 'SELECT coalesce(max(seq), 0) AS seq FROM charges',
  /**
   * Every charge due: from each due schedule's next charge to the last one on or before today,
   * at most `:limit` of them (-1: no limit; the walk itself stops there, so a limit bounds the
   * work). (subscription, date) is UNIQUE: a charge made already is never made again.
   */
  charges: `
    INSERT INTO charges (business, subscription, due, n, period_end, package, link)
    WITH RECURSIVE walk (schedule, n, due, next) AS (
      SELECT s.subscription, s.n, s.due, ${chargeDate('s.n + 1', SCHEDULE)}
      FROM schedules s WHERE s.due <= :today
      UNION ALL
      SELECT w.schedule, w.n + 1, w.next, ${chargeDate('w.n + 2', SCHEDULE)}
      FROM walk w JOIN schedules s ON s.subscription = w.schedule
      WHERE w.next <= :today
      LIMIT :limit
    )
    SELECT s.business, s.id, w.due, w.n, date(w.next, '-1 day'), sub.record ->> '$.package.name',
      lower(hex(randomblob(12)))
    FROM walk w JOIN schedules s ON s.subscription = w.schedule JOIN subscriptions sub ON sub.seq = w.schedule
    WHERE true ORDER BY w.due, w.schedule
    ON CONFLICT (business, subscription, due) DO NOTHING`,
  /**
   * A payment link for each charge just made: the package's amount and currency, the
   * subscription's email and phone_no, a title naming the package and the period, the
   * subscription's _id as reference, dated at the charge's date; Active and unpaid; its page kept
   * as a path (domain/page-address.ts). The fields in the order the API gives a link's
   * (domain/build.ts, buildLink).
   */
  links: `
    INSERT INTO payment_links (business, id, record)
    SELECT c.business, c.link, json_remove(json_object(
        '_id', c.link,
        'email', sub.record ->> '$.email',
        'phone_no', sub.record ->> '$.phone_no',
        'currency', sub.record ->> '$.package.currency',
        'amount', json(sub.record -> '$.package.amount'),
        'title', printf('%s: %s to %s', coalesce(c.package, 'Subscription'), c.due, c.period_end),
        'reference', c.subscription,
        'status', 'Active',
        'payment_url', '/checkout/pay?id=' || c.link,
        'business_id', b.business_id,
        'paid', json('false'),
        'created_at', c.due || 'T00:00:00.000Z',
        'updated_at', c.due || 'T00:00:00.000Z'
      ), CASE WHEN sub.record ->> '$.phone_no' IS NULL THEN '$.phone_no' ELSE '$.__kept__' END)
    FROM charges c
      JOIN subscriptions sub ON sub.business = c.business AND sub.id = c.subscription
      JOIN businesses b ON b.id = c.business
    WHERE c.seq > :before ORDER BY c.seq`,
  /** Each schedule billed moves on to its first charge after today. */
  advance: `
    WITH x AS MATERIALIZED (
      SELECT s.subscription AS schedule,
        -- the latest charge (by date, the index's order: n grows with the date), and the one after it
        coalesce((SELECT c.n FROM charges c WHERE c.business = s.business AND c.subscription = s.id
          ORDER BY c.due DESC LIMIT 1), s.n - 1) + 1 AS next
      FROM schedules s WHERE s.due <= :today
    )
    UPDATE schedules SET n = x.next, due = ${chargeDate('x.next', SCHEDULES)}
    FROM x WHERE schedules.subscription = x.schedule`,
  /** The current link of each charge of some subscriptions of a business, oldest first. */
  chargeLinks: `
    SELECT c.subscription, l.record FROM charges c
      JOIN payment_links l ON l.business = c.business AND l.id = c.link
    WHERE c.business = (SELECT id FROM businesses WHERE key_hash = ?)
      AND c.subscription IN (SELECT value FROM json_each(?))
    ORDER BY c.subscription, c.due`,
  /** The charge a payment link is for, if it is one (the payment page). */
  chargeOfLink: 'SELECT subscription, due, period_end, package FROM charges WHERE link = ? LIMIT 1',
  clock: 'SELECT offset_ms FROM clock WHERE id = 1',
  /** The clock's offset and the first date anything is due (null: nothing scheduled), in one read. */
  state:
    'SELECT (SELECT offset_ms FROM clock WHERE id = 1) AS offset_ms, (SELECT min(due) FROM schedules) AS next_due',
  setClock: 'UPDATE clock SET offset_ms = ? WHERE id = 1',
})
