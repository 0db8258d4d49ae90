/**
 * Where a record's customer page is. A record is kept with the path of its page alone
 * (`/checkout/pay?id=<_id>`, `/checkout/tokens/<token>/activate?test=true`): what identifies the
 * page on whichever sandbox serves the store. An answer names the address of the sandbox that
 * serves it (http/listener.ts), so that a link made through one port is answered, through
 * another, with the page that one serves; the library and the local store name theirs.
 */
import type { PaymentLinkRecord } from './records.js'

/** The path of a payment link's page, as its record keeps it. */
export const paymentPagePath = (id: string): string => `/checkout/pay?id=${id}`

/** The path of a tokenization's activation page, as its record keeps it. */
export const activationPagePath = (token: string): string => `/checkout/tokens/${token}/activate?test=true`

/** The fields that name a page, each followed by a kept path (which starts with `/`). */
const PAGE_PATH = /"(payment_url|activation_url)":"\//g

/**
 * JSON text holding records with each page's path made whole under `origin` (`http://host:port`).
 * The text is as JSON.stringify or SQLite's json functions write it, no space between tokens:
 * inside a JSON string every `"` is escaped, so `"payment_url":"/` is only ever a record's field
 * and the start of its value, never text a client sent.
 */
export function withPageOrigin(json: string, origin: string): string {
  return json.replace(PAGE_PATH, (_, field: string) => `"${field}":"${origin}/`)
}

/** A link record with its page's path made whole under `origin`. */
export const linkAt = (link: PaymentLinkRecord, origin: string): PaymentLinkRecord =>
  link.payment_url.startsWith('/') ? { ...link, payment_url: `${origin}${link.payment_url}` } : link
