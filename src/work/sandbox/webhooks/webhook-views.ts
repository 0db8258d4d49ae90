/**
 * What the sandbox's notification commands show: its webhook endpoints and signature key
 * (`pay sandbox webhooks add|list|remove`), the deliveries (`webhooks deliveries|resend`), what
 * `listen` received, and what each says once done.
 */
import { paint, sanitizeCell } from '../../../render/format.js'
import { toJson } from '../../../render/json.js'
import { displayWidth } from '../../../render/table/width.js'
import type { View } from '../../../render/views.js'
import { plain, type Rec, sanitizeText } from '../../../values.js'

export const ENDPOINT_VIEW: View = {
  noun: 'webhook endpoint',
  plural: 'webhook endpoints',
  listColumns: ['_id', 'url', 'events', 'enabled'],
  recordFields: ['_id', 'url', 'events', 'enabled'],
}

/** `webhooks list`: the business's signature key, its endpoints shown under it. */
export const SIGNATURE_VIEW: View = {
  noun: 'signature key',
  plural: 'signature keys',
  listColumns: ['signature_key'],
  recordFields: ['signature_key'],
  idField: 'signature_key',
}

export const DELIVERY_VIEW: View = {
  noun: 'delivery',
  plural: 'deliveries',
  listColumns: ['_id', 'event', 'payment_link_id', 'url', 'state', 'attempts', 'status', 'error'],
  recordFields: ['_id', 'event', 'payment_link_id', 'url', 'state', 'attempts'],
}

/** What `listen` received: one a line. */
export const RECEIVED_VIEW: View = {
  noun: 'notification',
  plural: 'notifications',
  listColumns: ['event', 'payment_link_id', 'url', 'status', 'ms'],
  recordFields: ['event', 'payment_link_id', 'url', 'status', 'ms'],
  idField: 'payment_link_id',
}

const attemptsOf = (delivery: Rec): Rec[] =>
  Array.isArray(delivery.attempts) ? (delivery.attempts as Rec[]).filter((a) => typeof a === 'object') : []

/** An attempt in a few characters: its status, or `error`. */
const attemptText = (attempt: Rec) => (typeof attempt.status === 'number' ? String(attempt.status) : 'error')

const clockOf = (time: unknown) => {
  const date = new Date(String(time))
  return Number.isNaN(date.getTime()) ? '--:--:--' : date.toTimeString().slice(0, 8)
}

const TONES: Record<string, 'good' | 'warn' | 'bad'> = { delivered: 'good', pending: 'warn', failed: 'bad' }

/**
 * A delivery on a terminal, short enough for 80 columns: `09:21:03 ID delivered 500, 200` (local
 * time of its last attempt, its state, each attempt's status), then what it tells and where it
 * goes (the URL on a line of its own when the two do not fit in `width` together: a URL is never
 * cut, nor folded mid-word beside other text), then the last attempt's error if it had one.
 */
export function deliveryText(delivery: Rec, colour: boolean, width = Number.POSITIVE_INFINITY): string {
  const attempts = attemptsOf(delivery)
  const last = attempts.at(-1)
  const state = plain(delivery.state)
  const statuses = attempts.length === 0 ? 'no attempt yet' : attempts.map(attemptText).join(', ')
  const shownState = sanitizeText(state)
  const first = [
    clockOf(last?.time),
    sanitizeText(plain(delivery._id)),
    colour ? paint(shownState, TONES[state] ?? 'warn') : shownState,
    sanitizeText(statuses),
  ]
  const tells = `  ${sanitizeText(`${plain(delivery.event)} link ${plain(delivery.payment_link_id)}`)}`
  const url = sanitizeText(plain(delivery.url))
  const together = `${tells} ${url}`
  const lines = [first.join(' '), ...(displayWidth(together) <= width ? [together] : [tells, `  ${url}`])]
  if (typeof last?.error === 'string') lines.push(`  ${sanitizeText(last.error)}`)
  return lines.join('\n')
}

/** How a delivery is shown as it comes (Output.entries): on a terminal (its colour and width), and piped. */
export const deliveryShow = (screen: { colour: boolean; width: number }) => ({
  text: (delivery: Rec) => deliveryText(delivery, screen.colour, screen.width),
  tsv: deliveryTsv,
})

/** A delivery as one TSV line: DELIVERY_VIEW's columns, `attempts` their count, `status` and `error` the last one's. */
export function deliveryTsv(delivery: Rec): string {
  const attempts = attemptsOf(delivery)
  const last = attempts.at(-1)
  const cells = [
    delivery._id,
    delivery.event,
    delivery.payment_link_id,
    delivery.url,
    delivery.state,
    attempts.length,
    last?.status,
    last?.error,
  ]
  return cells
    .map((cell) => (cell === null || cell === undefined ? '' : sanitizeCell(plain(cell))))
    .join('\t')
}

/** `webhooks add`: where payment attempts go now. */
export const addedText = ({ url, endpoint, place }: { url: string; endpoint: Rec; place: string }) =>
  `Payment attempts are notified to ${url} (endpoint ${endpoint._id}) by ${place}.`

/** `webhooks remove`. */
export const removedText = ({ id, endpoint, place }: { id: string; endpoint: Rec; place: string }) =>
  `Removed endpoint ${id} (${endpoint.url}) from ${place}.`

/** `webhooks resend` through a running sandbox (the local store says what came of its attempt instead). */
export const resendingText = ({ id, place }: { id: string; place: string }) =>
  `Sending delivery ${id} again through ${place}.`

/** `webhooks deliveries`, with none to show. */
/** The deliveries a filter keeps, in words: `deliveries`, `failed deliveries of link ID`. */
export function deliveriesWord({ link, state }: { link?: string; state?: string }): string {
  return sanitizeText(
    [state, 'deliveries', link === undefined ? '' : `of link ${link}`].filter(Boolean).join(' '),
  )
}

export const noDeliveriesText = ({
  place,
  filter = {},
}: {
  place: string
  filter?: { link?: string; state?: string }
}) => `No ${deliveriesWord(filter)} yet in ${place}.`

/**
 * A notification `listen` received, on a terminal, short enough for 80 columns (the URL it is
 * forwarded to is said once, as listen starts): `09:21:03 payment.created LINK paid → 200 12.3 ms`,
 * `outcome` what it tells (paid, failed); without a forward, the line and the notification
 * itself, indented.
 */
export function receivedText(received: Rec, colour: boolean, outcome: string): string {
  const head = sanitizeText(
    `${clockOf(new Date().toISOString())} ${plain(received.event)} ${plain(received.payment_link_id)} ${outcome}`,
  )
  if (received.body !== undefined) {
    const shown = toJson(received.body)
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n')
    return `${head}\n${sanitizeText(shown)}`
  }
  const status =
    typeof received.status === 'number'
      ? String(received.status)
      : sanitizeText(`no answer: ${plain(received.error)}`)
  const good = typeof received.status === 'number' && received.status < 300
  return `${head} → ${colour ? paint(status, good ? 'good' : 'bad') : status} ${plain(received.ms)} ms`
}

export function receivedTsv(received: Rec): string {
  return RECEIVED_VIEW.listColumns
    .map((column) => {
      const value = column === 'status' && received.status === null ? received.error : received[column]
      return value === null || value === undefined ? '' : sanitizeCell(plain(value))
    })
    .join('\t')
}

/**
 * What `listen` says once stopped, on stderr; on a terminal below the "^C" that Ctrl-C left where
 * the cursor was.
 */
export function listenedText({ received }: { received: number }, io: { stderrIsTerminal: boolean }): string {
  const below = io.stderrIsTerminal ? '\n' : ''
  const count = `${received} ${received === 1 ? 'notification' : 'notifications'}`
  return `${below}Stopped listening after ${count}; its endpoint was removed.`
}
