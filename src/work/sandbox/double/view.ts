/**
 * What the sandbox's test-double commands show: fault rules (`pay sandbox faults`), the requests a
 * business sent (`pay sandbox requests`), the customer's outcomes (`sandbox pay --outcome`).
 */
import { paint, sanitizeCell } from '../../../render/format.js'
import { toJsonLine } from '../../../render/json.js'
import type { View } from '../../../render/views.js'
import { plain, type Rec, sanitizeText } from '../../../values.js'
import type { FaultRules } from './faults.js'
import type { LinkSettled } from './pay.js'

/** A fault rule as `GET /_sandbox/faults` answers it, with what it did so far. */
export const FAULT_VIEW: View = {
  noun: 'fault rule',
  plural: 'fault rules',
  listColumns: ['rule', 'matched', 'faulted', 'remaining'],
  recordFields: ['rule', 'method', 'path', 'effect', 'when', 'after', 'matched', 'faulted', 'remaining'],
  idField: 'rule',
}

/** A request the sandbox received (`GET /_sandbox/requests`). */
export const REQUEST_VIEW: View = {
  noun: 'request',
  plural: 'requests',
  listColumns: ['seq', 'time', 'method', 'path', 'status', 'ms', 'idempotency_key', 'fault', 'body'],
  recordFields: ['seq', 'time', 'method', 'path', 'status', 'ms', 'idempotency_key', 'fault', 'body'],
  idField: 'seq',
}

/** `faults set`: `2 fault rules set in the sandbox at URL (seed 7).` */
export const faultsSetText = ({ rules, seed, place }: FaultRules) =>
  `${rules.length} fault rule${rules.length === 1 ? '' : 's'} set in ${place} (seed ${seed}).`

/** `faults list`, under its rules: the seed of their P% draws. */
export const faultsSeedText = ({ seed, place }: FaultRules) => `Seed ${seed} (${place}).`

/** `faults clear`. */
export const faultsClearedText = ({ place }: { place: string }) => `No fault rules in ${place} now.`

/**
 * A request on a terminal: `09:21:03 POST /payment-links 200 2.1 ms`, its fault after it, then
 * its Idempotency-Key and its body on lines of their own, indented. Local time, as the request log.
 */
export function requestText(entry: Rec, colour: boolean): string {
  const time = new Date(String(entry.time))
  const clock = Number.isNaN(time.getTime()) ? String(entry.time) : time.toTimeString().slice(0, 8)
  const status = typeof entry.status === 'number' ? String(entry.status) : '-'
  const tone =
    typeof entry.status !== 'number' || entry.status >= 500 ? 'bad' : entry.status >= 400 ? 'warn' : 'good'
  const parts = [
    clock,
    sanitizeText(`${plain(entry.method)} ${plain(entry.path)}`),
    colour ? paint(status, tone) : status,
    `${plain(entry.ms)} ms`,
  ]
  if (typeof entry.fault === 'string') {
    const fault = sanitizeText(`fault: ${entry.fault}`)
    parts.push(colour ? paint(fault, 'bad') : fault)
  }
  // The key and the body below, indented: the first line stays short enough for 80 columns.
  const more: string[] = []
  if (typeof entry.idempotency_key === 'string')
    more.push(sanitizeText(`Idempotency-Key: ${entry.idempotency_key}`))
  if (entry.body !== null && entry.body !== undefined) more.push(sanitizeText(toJsonLine(entry.body)))
  return [parts.join(' '), ...more.map((line) => `  ${line}`)].join('\n')
}

/** How a request is shown as it comes (Output.entries): on a terminal, and piped. */
export const requestShow = (colour: boolean) => ({
  text: (entry: Rec) => requestText(entry, colour),
  tsv: requestTsv,
})

/** `requests`, with none to show. */
export const noRequestsText = ({ place }: { place: string }) => `No requests yet in ${place}.`

/** A request as one TSV line: the columns of REQUEST_VIEW, the body as compact JSON (empty for none). */
export function requestTsv(entry: Rec): string {
  return REQUEST_VIEW.listColumns
    .map((column) => {
      const value = entry[column]
      if (value === null || value === undefined) return ''
      const text = column === 'body' ? toJsonLine(value) : plain(value)
      return sanitizeCell(text)
    })
    .join('\t')
}

/**
 * What `sandbox pay` says on stderr of what it did; `named`: with the link's id, as `pay mcp`'s
 * sandbox_pay says it.
 */
export function paidText(paid: LinkSettled, named = false): string {
  if (paid.asked !== 'paid') return outcomeText(paid.settled, paid.asked, paid.place)
  if (paid.paidBefore) return `Payment link ${paid.id} was already paid: nothing changed.`
  return named
    ? `Paid ${paid.place}: payment link ${String(paid.settled.link._id)} is paid.`
    : `Paid ${paid.place}.`
}

/** What each unpaid outcome says it did. */
const DONE: Record<string, string> = { pending: 'Left pending', cancelled: 'Cancelled', failed: 'Failed' }

/**
 * What `sandbox pay --outcome pending|cancelled|failed` says on stderr: what was done where, and
 * where the customer would be sent. A link paid before is answered as paid, whatever the customer
 * does.
 */
function outcomeText(
  settled: { outcome: string; link: Rec; redirect_to: string | null },
  asked: string,
  place: string,
): string {
  const id = plain(settled.link._id)
  const done =
    settled.outcome !== asked
      ? `Payment link ${id} was already paid: nothing changed, and the customer is answered as paid.`
      : `${DONE[asked] ?? asked} ${place}: payment link ${id} stays unpaid${asked === 'pending' ? ', and payable' : ''}.`
  const where =
    settled.redirect_to === null
      ? `It has no redirect_url: the customer would see the sandbox's page saying so.`
      : `The customer would be sent to ${settled.redirect_to}`
  return `${done}\n${where}`
}
