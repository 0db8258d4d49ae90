/**
 * The HTML of the customer pages (customer-pages.ts, templates.ts): text escaped for HTML, amounts
 * as pay shows them, and the document every page is: one card, one inline style sheet allowed by
 * its hash, headers that let nothing else load.
 */
import { createHash } from 'node:crypto'
// The amount as pay shows it, in its tables too: the one currency-decimals rule.
import { amountText } from '../../../shared/money.js'
import type { PaymentLinkRecord } from '../../domain/records.js'
import type { ChargeOfLink } from '../billing/billing.js'

/** An answer of the customer pages: HTML (or a bare redirect), with its headers. */
export interface PageReply {
  status: number
  text: string
  headers: Record<string, string>
}

// --- Text -------------------------------------------------------------------------------------

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

function caret(char: string): string {
  const code = char.charCodeAt(0)
  if (code === 0x7f) return '^?'
  if (code >= 0x80) return `M-^${String.fromCharCode(code - 0x80 + 0x40)}`
  return `^${String.fromCharCode(code + 0x40)}`
}

/**
 * The Unicode controls that reorder the text around them (embeddings, overrides, isolates): a
 * reference `REF-<U+202E>evil` would show as "REF-live".
 */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g

/** A bidi control as visible text: `<U+202E>`. */
const named = (char: string) => `<U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`

/** Markup characters as entities. */
const escapeMarkup = (text: string) => text.replace(/[&<>"']/g, (char) => ENTITIES[char])

/**
 * Server text as HTML text or attribute value: markup characters escaped, control characters
 * (but tab and newline) shown in caret notation as pay shows them on a terminal, and bidi
 * controls shown by name (`<U+202E>`), so that no text reorders what is around it.
 */
export function escapeHtml(text: string): string {
  return escapeMarkup(text.replace(CONTROL, caret).replace(BIDI, named))
}

/**
 * A value a form sends back as it is (a hidden field): markup escaped, control characters in
 * caret notation; bidi controls kept, since the value is never shown and must match the record.
 */
export const escapeValue = (text: string) => escapeMarkup(text.replace(CONTROL, caret))

/** `jane@example.com` -> `j•••@example.com`: enough for the customer to know it is theirs. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@')
  if (at <= 0) return '•••'
  return `${email.slice(0, 1)}•••${email.slice(at)}`
}

// --- The document ------------------------------------------------------------------------------

const CSS = `
:root{color-scheme:light;--ink:#161b26;--muted:#576070;--line:#e2e6ee;--bg:#eef1f6;--accent:#1d4ed8;--accent-dark:#1e3fae;--ok-bg:#e7f6ef;--ok:#0f6b4c;--warn-bg:#fff3d6;--warn:#7a4b00;--bad-bg:#fdeaea;--bad:#9b1c1c}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:16px;padding:24px 16px;background:var(--bg);color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Liberation Sans","DejaVu Sans",sans-serif}
.card{width:100%;max-width:26rem;background:#fff;border:1px solid var(--line);border-radius:16px;box-shadow:0 1px 2px rgba(16,24,40,.06),0 12px 32px rgba(16,24,40,.08);padding:28px}
.merchant{display:flex;flex-wrap:wrap;align-items:center;gap:8px 10px;margin:0;font-size:15px;font-weight:600;color:var(--muted)}
.name{white-space:nowrap}
.nowrap{white-space:nowrap}
.logo{flex:none;width:32px;height:32px;border-radius:8px;background:var(--accent);color:#fff;display:flex;align-items:center;justify-content:center;font-weight:700}
.badge{margin-left:auto;flex:none;padding:2px 10px;border:1px solid #efcf7a;border-radius:999px;background:var(--warn-bg);color:var(--warn);font-size:12px;font-weight:700;letter-spacing:.04em;text-transform:uppercase}
h1{margin:22px 0 4px;font-size:21px;line-height:1.3;overflow-wrap:anywhere}
.description{margin:0;color:var(--muted);white-space:pre-line;overflow-wrap:anywhere}
.label{margin:22px 0 0;font-size:14px;color:var(--muted)}
.amount{margin:0;font-size:38px;font-weight:700;line-height:1.2;letter-spacing:-.01em;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.currency{margin-left:6px;font-size:21px;font-weight:600;color:var(--muted)}
.details{display:grid;grid-template-columns:auto 1fr;gap:6px 16px;margin:18px 0 0;padding-top:14px;border-top:1px solid var(--line);font-size:14px}
.details dt{color:var(--muted)}
.details dd{margin:0;text-align:right;overflow-wrap:anywhere}
form{margin:24px 0 0}
button{display:block;width:100%;min-height:50px;padding:13px 16px;border:0;border-radius:10px;background:var(--accent);color:#fff;font:inherit;font-size:17px;font-weight:600;cursor:pointer}
button:hover{background:var(--accent-dark)}
button:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:3px}
a{color:var(--accent)}
.state{display:flex;align-items:flex-start;gap:10px;margin:22px 0 0;padding:12px 14px;border-radius:10px;background:var(--ok-bg);color:var(--ok)}
.state.warn{background:var(--warn-bg);color:var(--warn)}
.state.bad{background:var(--bad-bg);color:var(--bad)}
.state svg{flex:none;width:22px;height:22px;margin-top:1px}
.done{display:flex;justify-content:center;margin:18px 0 0}
.done svg{width:56px;height:56px}
.center{text-align:center}
.others{min-width:0;margin:20px 0 0;padding:14px 0 0;border:0;border-top:1px solid var(--line)}
.others legend{float:left;width:100%;margin:0 0 10px;padding:0;font-size:13px;color:var(--muted);text-align:center}
.row{clear:both;display:flex;flex-wrap:wrap;gap:10px}
.row button{flex:1 1 9rem;min-height:44px;padding:10px 12px;border:1px solid #c3cde0;background:#fff;color:var(--accent);font-size:15px}
.row button:hover{background:#f1f4fa}
.fine{margin:18px 0 0;font-size:13px;color:var(--muted);text-align:center}
footer{max-width:26rem;font-size:13px;color:var(--muted);text-align:center}
@media (max-width:420px){body{padding:16px 12px}.card{padding:22px 20px}.amount{font-size:34px}.merchant{gap:8px;font-size:14px}.logo{width:28px;height:28px}.badge{padding:1px 7px;font-size:11px;letter-spacing:.02em}}
`.trim()

const STYLE_HASH = `sha256-${createHash('sha256').update(CSS).digest('base64')}`

/** The headers of every page: nothing loads but the one style sheet; nothing frames, caches or sniffs it. */
function pageHeaders(formTo?: URL): Record<string, string> {
  const formAction = formTo ? `'self' ${formTo.origin}` : `'self'`
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; style-src '${STYLE_HASH}'; form-action ${formAction}; base-uri 'none'; frame-ancestors 'none'`,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
  }
}

export const ICONS = {
  ok: '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="11" fill="#0f6b4c"/><path d="M7 12.5l3.2 3.2L17 9" fill="none" stroke="#fff" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  bigOk:
    '<svg viewBox="0 0 56 56" aria-hidden="true"><circle cx="28" cy="28" r="27" fill="#e7f6ef"/><circle cx="28" cy="28" r="20" fill="#0f6b4c"/><path d="M19 28.5l6.5 6.5L37.5 22" fill="none" stroke="#fff" stroke-width="3.6" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  warn: '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="11" fill="#b7791f"/><path d="M12 6.5v7" stroke="#fff" stroke-width="2.4" stroke-linecap="round"/><circle cx="12" cy="17.3" r="1.5" fill="#fff"/></svg>',
  bad: '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="11" fill="#9b1c1c"/><path d="M8 8l8 8M16 8l-8 8" stroke="#fff" stroke-width="2.4" stroke-linecap="round"/></svg>',
}

interface Document {
  status: number
  /** The document's title, plain text (escaped here). */
  title: string
  /** The card's content, HTML. */
  body: string
  /** The origin a form's answer may redirect to (form-action). */
  formTo?: URL
  headers?: Record<string, string>
}

export function render({ status, title, body, formTo, headers = {} }: Document): PageReply {
  const text = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main class="card">
${body}
</main>
<footer>Served by the pay sandbox</footer>
</body>
</html>
`
  return { status, text, headers: { ...pageHeaders(formTo), ...headers } }
}

/**
 * The business the page is for, named the same way on every page of a record (payment and
 * activation): the sandbox knows businesses by number only. Pages of no record name the sandbox.
 */
export function merchant(businessId: number | undefined): string {
  const name = businessId === undefined ? 'pay sandbox' : `Business ${businessId}`
  return `<p class="merchant"><span class="logo" aria-hidden="true">${escapeHtml(name.slice(0, 1).toUpperCase())}</span><span class="name">${escapeHtml(name)}</span><span class="badge">Test mode</span></p>`
}

/** A message beside an icon: its first sentence in bold, the rest (HTML) after it. */
export const state = (kind: 'ok' | 'warn' | 'bad', lead: string, rest = '') =>
  `<p class="state${kind === 'ok' ? '' : ` ${kind}`}" role="status">${ICONS[kind]}<span><strong>${lead}</strong>${rest ? ` ${rest}` : ''}</span></p>`

/** An amount as the page shows it: the number large, its currency beside it. */
export const amountHtml = (link: PaymentLinkRecord) =>
  `${escapeHtml(amountText(link.amount, link.currency))}<span class="currency"><bdi>${escapeHtml(link.currency)}</bdi></span>`

export const amountLabel = (link: PaymentLinkRecord) =>
  `${amountText(link.amount, link.currency)} ${link.currency}`

export function linkHeading(link: PaymentLinkRecord): string {
  return [
    merchant(link.business_id),
    `<h1 dir="auto">${keepDatesWhole(escapeHtml(link.title))}</h1>`,
    link.description === undefined
      ? ''
      : `<p class="description" dir="auto">${escapeHtml(link.description)}</p>`,
  ]
    .filter(Boolean)
    .join('\n')
}

/** Escaped text with each `2027-03-31` in it kept on one line (a charge's title has two). */
export const keepDatesWhole = (html: string) =>
  html.replace(/\b\d{4}-\d{2}-\d{2}\b/g, '<span class="nowrap">$&</span>')

/** `2026-12-01` as a customer reads it: `1 Dec 2026`. */
const dayText = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  })

/** A charge of a subscription (handlers/billing/billing.ts) names its package and the period it pays for. */
export function linkDetails(link: PaymentLinkRecord, charge?: ChargeOfLink): string {
  const rows: [string, string][] = []
  if (charge) {
    if (charge.package !== null) rows.push(['Package', escapeHtml(charge.package)])
    rows.push(['Period', `${escapeHtml(dayText(charge.from))} – ${escapeHtml(dayText(charge.to))}`])
  }
  if (link.reference !== undefined) {
    rows.push([charge ? 'Subscription' : 'Reference', escapeHtml(link.reference)])
  }
  if (rows.length === 0) return ''
  const items = rows.map(([term, value]) => `<dt>${term}</dt><dd dir="auto">${value}</dd>`).join('')
  return `<dl class="details">${items}</dl>`
}

/** A page with a heading and a message, for what went wrong. */
export function messagePage(
  status: number,
  heading: string,
  [lead, rest]: [string, string?],
  headers?: Record<string, string>,
) {
  return render({
    status,
    title: heading,
    headers,
    body: [merchant(undefined), `<h1>${escapeHtml(heading)}</h1>`, state('bad', lead, rest)]
      .filter(Boolean)
      .join('\n'),
  })
}

export const seeOther = (location: string): PageReply => ({
  status: 303,
  text: '',
  headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' },
})
