import { expect } from 'vitest'
import type { TestSandbox } from './sandbox.js'

/**
 * Subscriptions straight through the sandbox's HTTP API (not through pay), to set up state
 * and to read back what the server holds after a pay command ran.
 */

/** Runs `task` over `items` with at most `limit` at once, results in input order. */
export async function mapConcurrent<T, R>(
  items: T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
) {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next
      next += 1
      results[index] = await task(items[index], index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/** Creates `count` subscriptions (email `${prefix}${i}@example.com`); their ids in order. */
export async function seedSubscriptions(
  sandbox: TestSandbox,
  count: number,
  options: { prefix?: string; packageId?: string } = {},
): Promise<string[]> {
  const packageId = options.packageId ?? sandbox.packageIds[0]
  return mapConcurrent(
    Array.from({ length: count }, (_, i) => i),
    32,
    async (i) => {
      const answer = await sandbox.request('POST', '/subscriptions', {
        package_id: packageId,
        email: `${options.prefix ?? 'customer'}${i}@example.com`,
      })
      expect(answer.status).toBe(200)
      return answer.body.data._id as string
    },
  )
}

/**
 * A subscription made directly on the server: the sandbox's first package (Starter) for
 * ada@example.com unless `fields` say otherwise; its full record.
 */
export async function createSubscription(sandbox: TestSandbox, fields: Record<string, string> = {}) {
  const answer = await sandbox.request('POST', '/subscriptions', {
    package_id: sandbox.packageIds[0],
    email: 'ada@example.com',
    ...fields,
  })
  expect(answer.status).toBe(200)
  return answer.body.data
}

/** The package lines of a Starter subscription's TSV (recordTsv). */
const STARTER_PACKAGE_TSV: readonly string[] = Object.freeze([
  'package.name\tStarter',
  'package.amount\t120',
  'package.currency\tUSD',
  'package.frequency\tyearly',
  'package.date_charge_start\t2025-01-01',
])

/** The TSV of one subscription as pay prints it off a terminal. */
export const recordTsv = (sub: Record<string, string>, packageLines = STARTER_PACKAGE_TSV) =>
  [
    `_id\t${sub._id}`,
    `status\t${sub.status}`,
    `email\t${sub.email}`,
    ...(sub.phone_no === undefined ? [] : [`phone_no\t${sub.phone_no}`]),
    `package_id\t${sub.package_id}`,
    ...packageLines,
    `created_at\t${sub.created_at}`,
    `updated_at\t${sub.updated_at}`,
    '',
  ].join('\n')

/** Sets each subscription's status to cancel directly on the server. */
export async function cancelDirectly(sandbox: TestSandbox, ids: string[]): Promise<void> {
  await mapConcurrent(ids, 32, async (id) => {
    const answer = await sandbox.request('PUT', `/subscriptions/${id}`, { status: 'cancel' })
    expect(answer.status).toBe(200)
  })
}

/** Every subscription the server holds for the key: id -> status. */
export async function serverStatuses(sandbox: TestSandbox): Promise<Map<string, string>> {
  const statuses = new Map<string, string>()
  for (let page = 1; ; page += 1) {
    const answer = await sandbox.request('GET', `/subscriptions?per_page=500&page=${page}`)
    expect(answer.status).toBe(200)
    for (const sub of answer.body.data.data) statuses.set(sub._id, sub.status)
    if (answer.body.data.next_page_url === null) return statuses
  }
}

/** A well-formed id the server never issued (24 hex digits, like the sandbox's). */
export const unknownId = (n: number) => `ffff${String(n).padStart(20, '0')}`

export interface BulkJson {
  id: string
  ok: boolean
  status: string
  error: string | null
}

/**
 * The --report CSV parsed: one object per data row (quoted fields with "" and commas handled;
 * the `# …` lines naming each run left out).
 */
export function parseCsv(text: string): { header: string[]; rows: Record<string, string>[] } {
  const records: string[][] = []
  let field = ''
  let record: string[] = []
  let quoted = false
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]
    if (!quoted && field === '' && record.length === 0 && char === '#') {
      while (i < text.length && text[i] !== '\n') i += 1
      continue
    }
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"'
        i += 1
      } else if (char === '"') quoted = false
      else field += char
    } else if (char === '"') quoted = true
    else if (char === ',') {
      record.push(field)
      field = ''
    } else if (char === '\n') {
      record.push(field)
      records.push(record)
      record = []
      field = ''
    } else field += char
  }
  expect(field === '' && record.length === 0, 'the CSV ends with a complete line').toBe(true)
  const [header, ...rows] = records
  for (const row of rows) expect(row).toHaveLength(header.length)
  return { header, rows: rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]]))) }
}
