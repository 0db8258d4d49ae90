import { createHash } from 'node:crypto'
import { expect } from 'vitest'
import { type RawAnswer, rawRequest } from './sandbox.js'

/**
 * The customer pages of a sandbox as a browser would use them, over node:http so that the test
 * sets Origin, Sec-Fetch-Site and Host itself: the form's page token, a form POST, the card.
 */

/** The page token of the form in a page. */
export function pageToken(html: string): string {
  const match = /<input type="hidden" name="page_token" value="([^"]+)">/.exec(html)
  if (!match) throw new Error(`no page token in:\n${html}`)
  return match[1]
}

/** The hidden fields of the form in a page, as a browser would send them. */
export function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]] = match[2]
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&')
  }
  return fields
}

/** The card of a page: what is between <main class="card"> and </main>. */
export function card(html: string): string {
  const match = /<main class="card">\n([\s\S]*)\n<\/main>/.exec(html)
  if (!match) throw new Error(`no card in:\n${html}`)
  return match[1]
}

/** A page's <title>. */
export function titleOf(html: string): string {
  return /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? ''
}

export const get = (baseUrl: string, path: string, method = 'GET') => rawRequest(baseUrl, { method, path })

/** The same-origin form POST Chromium sends from a page served with `Referrer-Policy: no-referrer`. */
export const BROWSER_SAME_ORIGIN = { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' }

export function post(
  baseUrl: string,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = BROWSER_SAME_ORIGIN,
): Promise<RawAnswer> {
  return rawRequest(baseUrl, {
    method: 'POST',
    path,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  })
}

/** The headers every page carries; `formTo` is the origin a form may be redirected to. */
export function expectPageHeaders(answer: RawAnswer, formTo?: string): void {
  const style = /<style>([\s\S]*?)<\/style>/.exec(answer.text)?.[1]
  const hash = style === undefined ? '' : createHash('sha256').update(style).digest('base64')
  expect(style).toBeDefined()
  expect({
    type: answer.headers['content-type'],
    csp: answer.headers['content-security-policy'],
    nosniff: answer.headers['x-content-type-options'],
    referrer: answer.headers['referrer-policy'],
    frame: answer.headers['x-frame-options'],
    cache: answer.headers['cache-control'],
    sandbox: answer.headers['x-pay-sandbox'],
  }).toEqual({
    type: 'text/html; charset=utf-8',
    csp: `default-src 'none'; style-src 'sha256-${hash}'; form-action 'self'${formTo ? ` ${formTo}` : ''}; base-uri 'none'; frame-ancestors 'none'`,
    nosniff: 'nosniff',
    referrer: 'no-referrer',
    frame: 'DENY',
    cache: 'no-store',
    sandbox: '1',
  })
  // Nothing to load or run: no script, no external file, no inline style or handler, no absolute URL in a tag.
  expect(answer.text).not.toMatch(/<(?:script|link|img|iframe|object|embed)\b/i)
  expect(answer.text).not.toMatch(/<[a-z][^>]*\s(?:src|style|on[a-z]+)=/i)
  expect(answer.text).not.toMatch(/<[a-z][^>]*\/\//i)
  expect(style).not.toMatch(/url\(|@import/)
}
